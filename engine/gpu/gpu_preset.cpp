// gpu_preset.cpp: the figures, each with its source. docs/gpu-model.md has the links.
#include "engine/gpu/gpu_preset.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace wl::gpu {

namespace {
constexpr double kT = 1e12, kG = 1e9, kMB = 1e6, kGB = 1e9;

const char* kA100Sheet = "NVIDIA A100 Tensor Core GPU datasheet (2020-2022), SXM column";
const char* kA100Wp = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs, 40 MB L2";
const char* kH100Sheet = "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column (sparsity figures halved to dense)";
const char* kH100Wp = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 132 SMs on the H100 SXM5, 50 MB L2";
const char* kDgxA100 = "NVIDIA DGX A100 datasheet: 8x single-port ConnectX-6 200 Gb/s HDR InfiniBand, one per GPU";
const char* kDgxH100 = "NVIDIA DGX H100 datasheet: 8x ConnectX-7 400 Gb/s NDR InfiniBand, one per GPU";
const char* kLaunch =
    "kernel launch ~4-6 us per launch without CUDA graphs (measured, pegainfer blog 'From Launch Overhead to CUDA "
    "Graph'; NVIDIA 'Getting Started with CUDA Graphs' blog describes the same few-us overhead); 5 us used";
const char* kLatency =
    "NCCL's own cost model (src/graph/tuning.cc, ncclTopoTuneModel): ring all-reduce, Simple protocol: baseLat 8.4 us once, "
    "hwLat 3.4 us per NVLink step and 14 us per network step (2 x nodes of the 2(n-1) steps), x1.4 across nodes "
    "('plateau effect of ring'); nccl-tests #123 measures ~2.4 us per step on a DGX A100 for tiny (LL) messages";
const char* kNvlEffA100 =
    "NCCL maintainer (S. Jeaugey), nccl-tests issue #149: each NVLink3 is 25 GB/s line rate, ~20 GB/s effective with "
    "128 B payloads; 'the total effective bandwidth should therefore be 240GB/s on A100, but some other bottlenecks "
    "... limits it to ~230GB/s' all_reduce busbw: 230 / 300 = 0.77";
const char* kNvlEffH100 =
    "NCCL maintainer (S. Jeaugey), nccl-tests issue #212: '450GB/s is the line rate. With the protocol overhead (~20%) "
    "NCCL can get an effective NVLink bandwidth of 370GB/s' busbw with NCCL_ALGO=RING: 370 / 450 = 0.82 (NVLink SHARP "
    "reaches ~480 GB/s busbw; not modelled: ring only)";
const char* kIbEffHdr =
    "NCCL maintainer (S. Jeaugey), nccl issue #412: with 200G HDR 'you should get ... 24GB/s inter-node' all_reduce "
    "busbw: 24 / 25 = 0.96";
const char* kIbEffNdr =
    "NVIDIA (AddyLaddy), nccl-tests issue #290: 'For NDR @ 400Gbps you should see 46-48GB/s per NIC': 47 / 50 = 0.94";

std::string num(double v, const char* unit) {
    char b[64];
    std::snprintf(b, sizeof b, "%g %s", v, unit);
    return b;
}
}  // namespace

const char* precision_name(Precision p) {
    switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::BF16: return "bf16";
    }
    return "?";
}

double GpuPreset::peak(Precision p) const {
    switch (p) {
    case Precision::FP32: return fp32_flops;
    case Precision::TF32: return tf32_flops;
    case Precision::BF16: return bf16_flops;
    }
    return fp32_flops;
}

static void fill_a100_common(GpuPreset& g) {
    g.fp32_flops = 19.5 * kT;
    g.tf32_flops = 156 * kT;
    g.bf16_flops = 312 * kT;
    g.l2_bytes = 40 * kMB;
    g.sms = 108;
    g.launch_s = 5e-6;
    g.nvlink_bytes_per_s = 300 * kG;   // 600 GB/s total = 300 GB/s each way
    g.ib_bytes_per_s = 25 * kG;        // 200 Gb/s HDR per GPU
    g.nvlink_eff = 230.0 / 300.0;      // ~230 GB/s all_reduce busbw of 300 GB/s
    g.ib_eff = 24.0 / 25.0;            // ~24 GB/s busbw per HDR NIC
    g.ring_base_latency_s = 8.4e-6;
    g.nvlink_latency_s = 3.4e-6;
    g.ib_latency_s = 14e-6;
    g.gpus_per_node = 8;
    g.power_w = 400;
    g.sources = {
        {"fp32 peak", "19.5 TFLOP/s", kA100Sheet},
        {"tf32 tensor peak (dense)", "156 TFLOP/s", kA100Sheet},
        {"bf16 tensor peak (dense)", "312 TFLOP/s", kA100Sheet},
        {"L2 cache", "40 MB", kA100Wp},
        {"SMs", "108", kA100Wp},
        {"NVLink", "600 GB/s total (300 GB/s each way)", kA100Sheet},
        {"InfiniBand per GPU", "200 Gb/s = 25 GB/s", kDgxA100},
        {"NVLink all-reduce efficiency", "0.77 (230 of 300 GB/s)", kNvlEffA100},
        {"InfiniBand all-reduce efficiency", "0.96 (24 of 25 GB/s)", kIbEffHdr},
        {"kernel launch", "5 us", kLaunch},
        {"ring all-reduce latency", "8.4 us + 3.4 us per NVLink step, 14 us per network step", kLatency},
        {"power", "400 W", kA100Sheet},
    };
}

GpuPreset a100_sxm_80gb() {
    GpuPreset g;
    g.id = "a100";
    g.name = "NVIDIA A100 SXM4 80GB";
    fill_a100_common(g);
    g.hbm_bytes_per_s = 2039 * kG;
    g.mem_bytes = 80 * kGB;
    g.sources.push_back({"HBM2e bandwidth", "2,039 GB/s", kA100Sheet});
    g.sources.push_back({"memory", "80 GB", kA100Sheet});
    return g;
}

GpuPreset a100_sxm_40gb() {
    GpuPreset g;
    g.id = "a100-40gb";
    g.name = "NVIDIA A100 SXM4 40GB";
    fill_a100_common(g);
    g.hbm_bytes_per_s = 1555 * kG;
    g.mem_bytes = 40 * kGB;
    g.sources.push_back({"HBM2 bandwidth", "1,555 GB/s", kA100Sheet});
    g.sources.push_back({"memory", "40 GB", kA100Sheet});
    return g;
}

GpuPreset h100_sxm() {
    GpuPreset g;
    g.id = "h100";
    g.name = "NVIDIA H100 SXM5 80GB";
    g.fp32_flops = 67 * kT;
    g.tf32_flops = 494.7 * kT;   // 989 TF with sparsity
    g.bf16_flops = 989 * kT;     // 1,979 TF with sparsity
    g.hbm_bytes_per_s = 3350 * kG;
    g.l2_bytes = 50 * kMB;
    g.sms = 132;
    g.launch_s = 5e-6;
    g.mem_bytes = 80 * kGB;
    g.nvlink_bytes_per_s = 450 * kG;   // 900 GB/s total
    g.ib_bytes_per_s = 50 * kG;        // 400 Gb/s NDR per GPU
    g.nvlink_eff = 370.0 / 450.0;      // ~370 GB/s ring busbw of 450 GB/s
    g.ib_eff = 47.0 / 50.0;            // 46-48 GB/s busbw per NDR NIC
    g.ring_base_latency_s = 8.4e-6;
    g.nvlink_latency_s = 3.4e-6;
    g.ib_latency_s = 14e-6;
    g.gpus_per_node = 8;
    g.power_w = 700;
    g.sources = {
        {"fp32 peak", "67 TFLOP/s", kH100Sheet},
        {"tf32 tensor peak (dense)", "494.7 TFLOP/s (989 sparse)", kH100Sheet},
        {"bf16 tensor peak (dense)", "989 TFLOP/s (1,979 sparse)", kH100Sheet},
        {"HBM3 bandwidth", "3.35 TB/s", kH100Sheet},
        {"L2 cache", "50 MB", kH100Wp},
        {"SMs", "132", kH100Wp},
        {"memory", "80 GB", kH100Sheet},
        {"NVLink", "900 GB/s total (450 GB/s each way)", kH100Sheet},
        {"InfiniBand per GPU", "400 Gb/s = 50 GB/s", kDgxH100},
        {"NVLink all-reduce efficiency", "0.82 (370 of 450 GB/s)", kNvlEffH100},
        {"InfiniBand all-reduce efficiency", "0.94 (47 of 50 GB/s)", kIbEffNdr},
        {"kernel launch", "5 us", kLaunch},
        {"ring all-reduce latency", "8.4 us + 3.4 us per NVLink step, 14 us per network step", kLatency},
        {"power", "700 W", kH100Sheet},
    };
    return g;
}

GpuPreset same_silicon(long long pes, double clock_hz, int simd_fp32, double sram_bytes_total) {
    const GpuPreset a = a100_sxm_80gb();
    GpuPreset g = a;
    g.id = "same-silicon";
    double peak = double(pes) * simd_fp32 * 2.0 * clock_hz;   // one fp32 FMA per lane per cycle
    double r = peak / a.fp32_flops;
    char name[160];
    std::snprintf(name, sizeof name, "GPU scaled to the wafer (%lld PEs x %d lanes @ %.2f GHz = %.3g GFLOP/s)", pes,
                  simd_fp32, clock_hz / 1e9, peak / 1e9);
    g.name = name;
    g.fp32_flops = g.tf32_flops = g.bf16_flops = peak;   // no tensor cores: the wafer has none either
    g.hbm_bytes_per_s = a.hbm_bytes_per_s * r;
    g.l2_bytes = a.l2_bytes * r;
    g.mem_bytes = a.mem_bytes * r;
    g.sms = std::max(1, int(std::lround(a.sms * r)));
    g.nvlink_bytes_per_s = a.nvlink_bytes_per_s * r;
    g.ib_bytes_per_s = a.ib_bytes_per_s * r;
    g.power_w = a.power_w * r;
    g.sources = {
        {"peak", num(peak / 1e9, "GFLOP/s"), "the wafer: PEs x simd_fp32 x 2 FLOP (FMA) x clock"},
        {"bytes/FLOP, capacity/FLOP, SMs, links", "A100 80GB ratios x " + num(r, ""),
         "scaled from the A100 preset so the two machines have equal compute"},
        {"kernel launch", "5 us (not scaled)", "a host-side cost: a smaller GPU does not launch faster"},
        {"wafer SRAM (for comparison)", num(sram_bytes_total / 1e6, "MB"), "MachineConfig"},
    };
    return g;
}

// ---- execution profiles ----------------------------------------------------------------------------------
namespace {
const char* kFa2Gemm =
    "FlashAttention-2 paper (Dao, 2023, arXiv:2307.08691), section 1: 'optimized GEMM can reach up to 80-90% of the "
    "theoretical maximum device throughput'; we take the low end, 0.80";
const char* kFa2Attn =
    "FlashAttention-2 paper: FlashAttention-2 reaches '50-73% of the theoretical maximum FLOPs/s on A100'; we take "
    "the low end, 0.50";
const char* kMemEff =
    "NVIDIA developer forum 'Trouble to Reach Peak Bandwidth of A100' (2025): a read kernel reaches 1.80 of 2.04 TB/s "
    "(88%), and the GTC talk it cites tops out near 90%; real kernels with reductions do less: 0.80 used";
const char* kAutocast =
    "PyTorch autocast op reference: matmul/linear run in lower precision; softmax, log_softmax, cross_entropy run in "
    "float32";
const char* kNano = "nanoGPT (karpathy/nanoGPT, README 'efficiency notes', Dec 29 2022): bf16 autocast, torch.compile, "
                    "attention as softmax(QK^T)V (flash attention came later)";
const char* kLlmc = "llm.c discussion #481 (May 2024) and README: bf16, cuDNN flash attention, fused classifier, fused "
                    "AdamW, bf16 gradients, fp32 master weights";
}  // namespace

ExecProfile reference_fp32() {
    ExecProfile p;
    p.id = "reference-fp32";
    p.description = "the reference as written: fp32 everywhere, no tensor cores, the (T,T) attention matrix in HBM, "
                    "one kernel per op, full activation-gradient buffers";
    p.gemm_precision = Precision::FP32;
    p.act_bytes = 4;
    p.grad_bytes = 4;
    p.flash_attention = false;
    p.fused_classifier = false;
    p.fused_adamw = false;
    p.grad_acts_full = true;
    p.gemm_eff = 0.8;
    p.attn_eff = 0.8;
    p.mem_eff = 0.8;
    p.sources = {{"GEMM efficiency", "0.80", kFa2Gemm}, {"memory efficiency", "0.80", kMemEff}};
    return p;
}

ExecProfile pytorch_bf16() {
    ExecProfile p;
    p.id = "pytorch-bf16";
    p.description = "PyTorch 2 (nanoGPT, Dec 2022): bf16 autocast on tensor cores, torch.compile, attention "
                    "materialised (QK^T, softmax, @V), fp32 loss, fp32 grads, per-tensor AdamW";
    p.gemm_precision = Precision::BF16;
    p.act_bytes = 2;
    p.grad_bytes = 4;
    p.weight_copy_bytes = 2;
    p.flash_attention = false;
    p.fused_classifier = false;
    p.classifier_fp32 = true;
    p.fused_adamw = false;
    p.gemm_eff = 0.8;
    p.attn_eff = 0.8;
    p.mem_eff = 0.8;
    p.sources = {{"precision and kernels", "bf16, unfused attention", kNano},
                 {"classifier precision", "fp32", kAutocast},
                 {"GEMM efficiency", "0.80", kFa2Gemm},
                 {"memory efficiency", "0.80", kMemEff}};
    return p;
}

ExecProfile tuned_bf16() {
    ExecProfile p;
    p.id = "tuned-bf16";
    p.description = "llm.c-style (May 2024): bf16, flash attention, fused classifier (no probs tensor), fused "
                    "AdamW, bf16 gradients";
    p.gemm_precision = Precision::BF16;
    p.act_bytes = 2;
    p.grad_bytes = 2;
    p.weight_copy_bytes = 2;
    p.flash_attention = true;
    p.fused_classifier = true;
    p.classifier_fp32 = false;
    p.fused_adamw = true;
    p.gemm_eff = 0.8;
    p.attn_eff = 0.5;
    p.mem_eff = 0.8;
    p.sources = {{"precision and kernels", "bf16, flash attention, fused classifier/AdamW", kLlmc},
                 {"GEMM efficiency", "0.80", kFa2Gemm},
                 {"attention efficiency", "0.50", kFa2Attn},
                 {"memory efficiency", "0.80", kMemEff}};
    return p;
}

ExecProfile flash1_bf16() {
    ExecProfile p = tuned_bf16();
    p.id = "flash1-bf16";
    p.description = "flash-attention repo's GPT trainer (training/README.md): bf16 (Lightning), FlashAttention-1, "
                    "fused MLP/LayerNorm/cross-entropy (apex), apex AdamW, fp32 gradients";
    p.grad_bytes = 4;
    p.attn_eff = 0.30;
    p.sources = {{"precision and kernels", "bf16, FlashAttention-1, fused cross-entropy, apex AdamW",
                  "Dao-AILab/flash-attention training/README.md and configs/experiment/pile/*.yaml"},
                 {"GEMM efficiency", "0.80", kFa2Gemm},
                 {"attention efficiency", "0.30",
                  "FlashAttention-2 paper, section 1: FlashAttention-1 forward reaches 30-50% and backward 25-35% of "
                  "peak on A100; 0.30 used"},
                 {"memory efficiency", "0.80", kMemEff}};
    return p;
}

std::vector<std::string> gpu_ids() { return {"a100", "a100-40gb", "h100", "same-silicon"}; }
std::vector<std::string> profile_ids() { return {"reference-fp32", "pytorch-bf16", "tuned-bf16", "flash1-bf16"}; }

ExecProfile profile_by_id(const std::string& id) {
    if (id == "reference-fp32") return reference_fp32();
    if (id == "pytorch-bf16") return pytorch_bf16();
    if (id == "tuned-bf16") return tuned_bf16();
    if (id == "flash1-bf16") return flash1_bf16();
    throw std::invalid_argument("unknown GPU profile '" + id +
                                "' (reference-fp32 | pytorch-bf16 | tuned-bf16 | flash1-bf16)");
}

}  // namespace wl::gpu
