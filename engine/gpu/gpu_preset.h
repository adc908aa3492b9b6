// gpu_preset.h: the GPUs the wafer is compared with, and how a framework runs
// the reference's ops on them. Every figure carries its source (docs/gpu-model.md
// lists them all with links); figures we could not confirm say so in the source.
//
// What it is: datasheet peaks (dense, no sparsity), memory and links, plus an
// execution profile (precision, fused attention, achievable efficiencies).
// What it is not: a cycle model of an SM. Efficiencies are single numbers per
// kernel class, taken from published measurements.
#pragma once
#include "engine/core/sourced.h"

#include <string>
#include <utility>
#include <vector>

namespace wl::gpu {

enum class Precision { FP32, TF32, BF16 };
const char* precision_name(Precision p);

using wl::Sourced;

struct GpuPreset {
    std::string id;              // "a100", "a100-40gb", "h100", "same-silicon"
    std::string name;            // "NVIDIA A100 SXM4 80GB"
    double fp32_flops = 0;       // peak dense FLOP/s on CUDA cores
    double tf32_flops = 0;       // peak dense tensor-core FLOP/s
    double bf16_flops = 0;
    double hbm_bytes_per_s = 0;  // DRAM bandwidth
    double l2_bytes = 0;
    int sms = 0;
    double launch_s = 0;         // host cost of one kernel launch (no CUDA graphs)
    double mem_bytes = 0;        // DRAM capacity
    double nvlink_bytes_per_s = 0;   // per GPU, per direction, within a node (line rate)
    double ib_bytes_per_s = 0;       // per GPU, per direction, across nodes (line rate of its NIC)
    // Ring all-reduce (NCCL): measured bus bandwidth over line rate, and NCCL's own latency model.
    double nvlink_eff = 0;           // NCCL ring busbw / NVLink line rate
    double ib_eff = 0;               // NCCL busbw per NIC / NIC line rate
    double ring_base_latency_s = 0;  // once per all-reduce (NCCL tuning.cc baseLat, Ring/Simple)
    double nvlink_latency_s = 0;     // per ring step inside a node (hwLat NVLink, Ring/Simple)
    double ib_latency_s = 0;         // per ring step that crosses the network (hwLat NET, Ring/Simple)
    int gpus_per_node = 8;
    double power_w = 0;
    std::vector<Sourced> sources;    // every figure above, with its source

    double peak(Precision p) const;  // FLOP/s at a precision
};

// Datasheet presets. id: a100 | a100-40gb | h100.
GpuPreset a100_sxm_80gb();
GpuPreset a100_sxm_40gb();   // nanoGPT's published runs used this one
GpuPreset h100_sxm();

// A GPU with the emulated wafer's peak fp32 FLOP/s, everything else scaled from
// the A100 by that ratio (bytes/FLOP, capacity/FLOP, SMs), launch cost unchanged.
// pes, clock, simd: the wafer; sram_bytes_total: for the doc only.
GpuPreset same_silicon(long long pes, double clock_hz, int simd_fp32, double sram_bytes_total);

// How a framework runs the reference's ops on a GPU.
struct ExecProfile {
    std::string id;              // "reference-fp32", "pytorch-bf16", "tuned-bf16"
    std::string description;
    Precision gemm_precision = Precision::FP32;
    double act_bytes = 4;        // bytes per activation element in HBM
    double grad_bytes = 4;       // bytes per gradient element (all-reduce payload, footprint)
    double weight_copy_bytes = 0;   // extra low-precision weight copy per parameter
    bool flash_attention = false;   // the (T, T) matrix never touches HBM
    bool fused_classifier = false;  // softmax + cross-entropy + its backward in one pass, no probs
    bool fused_adamw = false;       // one kernel for every parameter tensor
    bool classifier_fp32 = true;    // softmax/cross-entropy read and write fp32
    bool softmax_fp32 = true;       // unfused attention's softmax runs in fp32 (autocast)
    bool grad_acts_full = false;    // keeps a full copy of every activation gradient (the reference does)
    double gemm_eff = 0.8;       // fraction of peak a GEMM reaches
    double attn_eff = 0.8;       // fraction of peak fused attention reaches
    double mem_eff = 0.8;        // fraction of HBM bandwidth a memory-bound kernel reaches
                                 // (link efficiency is the GPU's: GpuPreset::nvlink_eff, ib_eff)
    std::vector<Sourced> sources;
};

ExecProfile reference_fp32();   // the reference as written: fp32 on CUDA cores, nothing fused
ExecProfile pytorch_bf16();     // nanoGPT, Dec 2022: bf16 autocast + torch.compile, attention materialised
ExecProfile tuned_bf16();       // llm.c, May 2024: bf16, flash attention, fused classifier and AdamW
ExecProfile flash1_bf16();      // flash-attention repo's GPT trainer (2022): FlashAttention-1, fused layers, fp32 grads

std::vector<std::string> gpu_ids();       // "a100", "a100-40gb", "h100", "same-silicon"
std::vector<std::string> profile_ids();   // "reference-fp32", "pytorch-bf16", "tuned-bf16", "flash1-bf16"
ExecProfile profile_by_id(const std::string& id);   // throws std::invalid_argument

}  // namespace wl::gpu
