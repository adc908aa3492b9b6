// wafer_estimate.h: the same op list on the wafer, as an ANALYTICAL ESTIMATE
// from the fabric's cost model (engine/fabric/isa.h, docs/cost-model.md), not a
// measurement. When the GPT runs on the mesh, measured emulated cycles replace
// it op by op (same WaferOpTime rows).
//
// Per op, in compute-engine cycles on a W x H mesh of P PEs:
//   compute = FMACs (or element ops) / (P x simd_fp32), transcendental ops at their
//             table cost (fexps, ftanhs, frsqrts, fsqrts, fdivs per element);
//   sram    = bytes / (P x kSramBytesPerCycle)  (2 x 32-bit reads + 1 x 32-bit write per cycle);
//   fabric  = the wavelets a PE must receive or send (one per link per cycle):
//             GEMM: weight-stationary tiles, x broadcast along rows, partial sums
//             reduced down columns; attention: K and V streamed past each PE;
//   stream  = weights in (and weight gradients out) through the wafer's I/O when
//             parameters + AdamW state do not fit in SRAM, or when streaming execution
//             is asked for (WaferCase): bytes / io_bytes_per_s, once per micro-batch;
//   sparse  = the blocks' linear layers at density d (WaferCase::density): compute and
//             SRAM x d (20 + T) / (2 + T), matmul.wk's cycles per non-zero against per
//             dense weight (1.27 d at T = 64, as measured); the fabric term unchanged;
//   time    = max(compute, sram, fabric, stream) + (W + H) cycles of fill/drain.
// Assumptions, each written down in docs/gpu-model.md.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/fabric/machine.h"
#include "engine/fabric/wafer.h"
#include "engine/gpt/gpt.h"
#include "engine/gpu/gpu_preset.h"

namespace wl::gpu {

struct WaferSpec {
    std::string id;              // "emulated", "wse2", "wse3"
    std::string name;
    int w = MachineConfig{}.w, h = MachineConfig{}.h;   // PEs
    double clock_hz = kClockHz;  // the WSE clock (engine/fabric/wafer.h)
    int simd_fp32 = 1;
    double sram_bytes_per_pe = MachineConfig{}.sram_bytes;
    double io_bytes_per_s = 0;   // weight streaming in + out of the wafer
    std::vector<Sourced> sources;
    long long pes() const { return (long long)w * h; }
    double peak_flops() const { return double(pes()) * simd_fp32 * 2.0 * clock_hz; }   // fp32 FMA
    double sram_bytes() const { return double(pes()) * sram_bytes_per_pe; }
};

// The emulated mesh (MachineConfig), at the given clock. Its I/O is a CS-2 edge PE's share of
// the CS-2's I/O (model::EdgeLink::wse2, what weight streaming's edge links carry) times the
// mesh's 2 (W + H) edge PEs.
WaferSpec emulated_wafer(const MachineConfig& mc = {}, double clock_hz = WaferSpec{}.clock_hz);
WaferSpec wse2();   // wse2_facts() at the emulator's cost model (engine/fabric/wafer.h)
WaferSpec wse3();   // wse3_facts()

// The execution an estimate is for: the one asked for, or none: by fit (the weights streamed only
// when they do not fit SRAM).
using WaferExecution = std::optional<gpt::Execution>;
const char* execution_name(WaferExecution e);                   // "by fit", "resident", "streaming"

// Which case of the same model the estimate is for.
struct WaferCase {
    WaferExecution execution;                 // none: stream only when the weights do not fit SRAM
    double density = 1;                       // of the blocks' qkv, attproj, fch, fcproj weights (1: dense)
};
// Compute (and SRAM) of a pruned matmul against the dense one at T tokens a sequence: d (20 + T) / (2 + T).
double sparse_matmul_factor(double density, int T);
bool pruned_gemm(const gpt::OpInfo& op);   // a block's qkv, attproj, fch or fcproj (forward or backward): OpRow::prunable

struct WaferOpTime {
    std::string op, tensor;
    int layer = -1;
    const gpt::OpRow* row = nullptr;   // op_list's row; nullptr: the AdamW update
    double flops = 0, bytes = 0;   // the reference's counts (op_list)
    double compute_s = 0, sram_s = 0, fabric_s = 0, stream_s = 0, latency_s = 0, time_s = 0;
    std::string bound;             // "compute", "sram", "fabric", "stream", "latency"
    double intensity = 0;          // flops / bytes
    double achieved_flops = 0;
};

struct WaferEstimate {
    WaferSpec wafer;
    std::string kind = "analytical estimate";   // becomes "measured" when the mesh GPT lands
    int B = 1, T = 1, grad_accum = 1;
    bool with_backward = true;
    std::vector<WaferOpTime> ops;
    double micro_s = 0, optimizer_s = 0, step_s = 0, tokens_per_s = 0;
    double ref_flops_per_step = 0, achieved_flops = 0, utilisation = 0;
    double sram_needed = 0;        // params + grads + AdamW + activations, fp32
    double sram_weights = 0;       // params + grads + AdamW
    double sram_activations = 0;
    bool fits_sram = true;         // everything resident
    bool weight_streaming = false; // weights live off-wafer and stream in per layer
    bool activations_fit = true;
    WaferExecution execution;      // as asked
    double density = 1;
    double stream_bytes = 0;       // per micro-batch: weights in (and gradients out)
    double stream_s = 0;           // the stream terms' sum per micro-batch (each overlaps its op's compute)
    std::string verdict;
};

WaferEstimate estimate_wafer(const gpt::GPTConfig& cfg, const WaferSpec& w, int B, int T, bool with_backward,
                             int grad_accum = 1, const WaferCase& wc = {});
nlohmann::json to_json(const WaferSpec& w);
nlohmann::json to_json(const WaferEstimate& e);

}  // namespace wl::gpu
