// gpu_model.h: one training step (or one forward) of the reference GPT on a
// modelled GPU, op by op, from the reference's own op list (gpt::op_list).
//
// Per op: time = max(FLOPs / (peak x eff), bytes / (HBM x eff)) + kernels x launch.
// The op is "compute", "memory" or "launch" bound by whichever term is largest.
// Per step: micro-batches x (forward + backward) + AdamW + ring all-reduce of the
// gradients over n GPUs (NVLink within a node, InfiniBand across nodes).
// Footprint: params, weight copy, grads, AdamW m and v, saved activations vs capacity.
//
// Legend: B micro-batch per GPU, T time, C channels, V vocab, NH heads, L layers.
// Sources for every figure: gpu_preset.cpp and docs/gpu-model.md.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/gpt/gpt.h"
#include "engine/gpu/gpu_preset.h"

namespace wl::gpu {

enum class Bound { Compute, Memory, Launch };
const char* bound_name(Bound b);

// A matmul op's shape: out (N, OC) = inp (N, IC) @ weight(OC, IC)^T.
struct GemmShape {
    double N = 0, IC = 0, OC = 0;
};
// A matmul's shape, from its row of op_table() and the config; false for other ops.
bool gemm_shape(const gpt::OpInfo& op, const gpt::GPTConfig& cfg, int B, int T, GemmShape* out);

// What the GPU executes for one reference op under a profile.
struct Executed {
    double flops = 0;        // FLOPs the kernels run (flash recompute, full (T,T) when unmasked)
    double bytes = 0;        // HBM bytes at the profile's precision
    int kernels = 1;
    bool tensor_core = false;   // GEMM-like work at gemm_precision
    bool attention = false;     // fused attention efficiency applies
};
Executed executed(const gpt::OpInfo& op, const gpt::GPTConfig& cfg, int B, int T, const ExecProfile& p);

struct GpuOpTime {
    std::string op, tensor;
    int layer = -1;
    const gpt::OpRow* row = nullptr;       // op_list's row; nullptr: the AdamW update
    double ref_flops = 0, ref_bytes = 0;   // the reference's own counts (op_list)
    Executed ex;
    double compute_s = 0, memory_s = 0, launch_s = 0, time_s = 0;
    Bound bound = Bound::Compute;
    double intensity = 0;        // executed FLOPs / byte
    double achieved_flops = 0;   // executed FLOPs / time
};

// One op on the GPU: the roofline with launch cost above. Non-tensor-core work runs at the fp32 peak.
GpuOpTime time_op(const gpt::OpInfo& op, const Executed& ex, const GpuPreset& g, const ExecProfile& p);

struct Footprint {
    double params = 0, weight_copy = 0, grads = 0, adam = 0, activations = 0, grad_acts = 0;
    double total = 0, capacity = 0;
    bool fits = true;
    std::string verdict;         // one plain sentence
};
Footprint footprint(const gpt::GPTConfig& cfg, int B, int T, bool with_backward, const GpuPreset& g,
                    const ExecProfile& p);

// NCCL ring all-reduce (Simple protocol, the one NCCL picks for MB-sized gradients):
//   seconds = 2(n-1)/n x bytes / bandwidth + latency
//   latency = base + (2(n-1) - inter) x NVLink step + inter x network step, inter = 2 x nodes (0 in one node),
//             x1.4 across nodes; constants and formula from NCCL's tuning model (src/graph/tuning.cc).
struct AllReduce {
    int n = 1;
    int nodes = 1;               // ceil(n / gpus_per_node)
    double bytes = 0;            // payload per GPU
    double bandwidth = 0;        // bytes/s of the slowest link in the ring (line rate x measured efficiency)
    int steps = 0, inter_steps = 0;   // ring steps, of which cross the network
    double latency_s = 0;        // the whole latency term (not per step)
    double seconds = 0;
    std::string link;            // "none", "NVLink", "InfiniBand"
};
AllReduce ring_allreduce(double bytes, int n, const GpuPreset& g);

struct StepOptions {
    int B = 1, T = 1;            // micro-batch per GPU
    bool with_backward = true;   // false: one forward (inference)
    int grad_accum = 1;          // micro-batches per optimiser step
    int gpus = 1;                // data-parallel replicas
};

struct GpuStep {
    GpuPreset gpu;
    ExecProfile profile;
    StepOptions opt;
    std::vector<GpuOpTime> ops;  // one micro-batch; AdamW (last) counted once per step
    double micro_s = 0;          // forward + backward of one micro-batch
    double optimizer_s = 0;
    double compute_s = 0;        // grad_accum x micro_s + optimizer_s
    AllReduce allreduce;
    double step_s = 0;           // compute_s + allreduce (not overlapped: conservative)
    double tokens_per_step = 0;  // all GPUs
    double tokens_per_s = 0;
    double ref_flops_per_step = 0;       // per GPU, from op_list
    double achieved_flops_per_gpu = 0;   // ref FLOPs / step time
    double mfu = 0;                      // achieved / peak at gemm precision
    double time_by_bound[3] = {0, 0, 0};
    Footprint mem;
};
GpuStep model_step(const gpt::GPTConfig& cfg, const GpuPreset& g, const ExecProfile& p, const StepOptions& o);

nlohmann::json to_json(const GpuPreset& g);
nlohmann::json to_json(const ExecProfile& p);
nlohmann::json to_json(const GpuStep& s);

}  // namespace wl::gpu
