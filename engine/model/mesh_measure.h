// mesh_measure.h: a forward pass's cost MEASURED on the emulated mesh — the
// "emulated" column beside the analytical wafer estimate and the GPU model in
// `compare`. Plans the model for the mesh, runs one sequence of T tokens in
// fast mode (weights from the config's seed: the cycles hardly depend on them),
// and times its cycles at the given clock. B sequences are counted as B runs
// one after another on the same placement (no overlap between sequences).
#pragma once
#include "engine/gpt/gpt_config.h"
#include "engine/model/mesh_plan.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wl::model {

struct MeasuredForward {
    bool ran = false;
    std::string why_not;                    // why not: the planner's error, or the run's
    bool failed = false;                    // an error (a kernel that does not compile, a fault), not a model too big
    int mesh_w = 0, mesh_h = 0, pes_used = 0, B = 0, T = 0;
    uint64_t cycles = 0;                    // all B sequences (estimated by fast mode)
    double seconds = 0;                     // cycles at clock_hz
    double wall_s = 0;                      // host time of the one emulated forward
    std::map<std::string, uint64_t> op_cycles;   // by op_list tensor name, all B sequences
};

// The benchmarks' tokens: n of them spread over the vocabulary V, the same every run (the
// forwards that bench mesh-gpt, bench sparsity and the app's density sweep time).
std::vector<int> bench_tokens(int n, int V);
// The benchmarks' training batch: B sequences of T tokens (bench_tokens(B * T, V)) and their
// targets, the same every run (bench mesh-gpt --train, bench swarmx, the density sweep's step).
void bench_batch(int B, int T, int V, std::vector<int>* inputs, std::vector<int>* targets);

MeasuredForward measure_forward(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, int B, int T,
                                const KernelSource& kernels, double clock_hz);

}  // namespace wl::model
