// kernel_compare.h: the loaded kernel's measured run on the emulated mesh next
// to the same operation on a modelled GPU (the Wafer vs GPU window's first view).
//
// What the operation is comes from what the run counted, never from its name:
//   FLOPs = the FP operations its vector ops did (CoreStats::flops, vector_ops.h:
//           2 per fmacs element, 1 per element of the other arithmetic ops, 0 for fmovs);
//   bytes = what its host block copied onto the PEs (fill) and read back (print): the
//           inputs and outputs a GPU kernel doing the same operation must move through
//           its memory at least once.
// Wafer: measured cycles / the WSE clock (WaferSpec::clock_hz).
// GPU:   time_op (gpu_model.h) on one kernel of fp32 work on CUDA cores:
//        max(FLOPs / (fp32 peak x eff), bytes / (HBM bandwidth x eff)) + one launch.
//
//   KernelComparison c = compare_kernel(kernel_work(run.report(), false), "a100");
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "engine/gpu/gpu_model.h"
#include "engine/gpu/wafer_estimate.h"
#include "engine/lang/run.h"

namespace wl::gpu {

struct KernelWork {              // what a finished run measured
    uint64_t cycles = 0;
    bool estimated = false;      // fast mode: the cycles are its estimate
    uint64_t flops = 0;          // FP operations by vector ops
    uint64_t sram_bytes = 0;     // SRAM bytes vector ops read and wrote
    uint64_t in_bytes = 0, out_bytes = 0;   // fill onto the PEs, print back
    uint64_t link_wavelets = 0;  // wavelets that crossed a PE-to-PE link
    int pes = 0;                 // PEs with a program
    int grid_w = 0, grid_h = 0;
    uint64_t bytes() const { return in_bytes + out_bytes; }
};
KernelWork kernel_work(const lang::RunReport& r, int grid_w, int grid_h, bool estimated);

struct KernelComparison {
    KernelWork work;
    double clock_hz = 0;         // WaferSpec{}.clock_hz
    double wafer_s = 0;          // cycles / clock_hz
    GpuPreset gpu;
    ExecProfile profile;         // reference-fp32: fp32, as the kernel computes
    GpuOpTime on_gpu;            // the same FLOPs and bytes as one GPU kernel
    double ratio = 0;            // GPU time / wafer time (> 1: the wafer is faster)
    std::string sentence;        // what sets each machine's time, in plain words
};
// gpu: a100 | a100-40gb | h100 | same-silicon (scaled to the kernel's grid); throws std::invalid_argument.
KernelComparison compare_kernel(const KernelWork& w, const std::string& gpu = "a100");
nlohmann::json to_json(const KernelComparison& c);

}  // namespace wl::gpu
