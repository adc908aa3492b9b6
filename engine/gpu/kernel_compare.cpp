// kernel_compare.cpp: a measured kernel run against the GPU model's roofline.
#include "engine/gpu/kernel_compare.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "engine/gpu/compare.h"

namespace wl::gpu {

KernelWork kernel_work(const lang::RunReport& r, int grid_w, int grid_h, bool estimated) {
    KernelWork w;
    w.cycles = r.cycles;
    w.estimated = estimated;
    w.flops = r.stats.flops;
    w.sram_bytes = r.stats.sram_bytes;
    w.in_bytes = r.host_in_bytes;
    w.out_bytes = r.host_out_bytes;
    w.link_wavelets = r.link_wavelets;
    w.pes = r.pes_loaded;
    w.grid_w = grid_w;
    w.grid_h = grid_h;
    return w;
}

KernelComparison compare_kernel(const KernelWork& w, const std::string& gpu) {
    KernelComparison c;
    c.work = w;
    MachineConfig mc;
    if (w.grid_w > 0 && w.grid_h > 0) mc.w = w.grid_w, mc.h = w.grid_h;
    const WaferSpec mesh = emulated_wafer(mc);
    c.clock_hz = mesh.clock_hz;
    c.wafer_s = double(w.cycles) / c.clock_hz;
    c.gpu = gpu_by_id(gpu, mesh);
    c.profile = reference_fp32();
    gpt::OpInfo op{"kernel", "kernel", -1, double(w.flops), double(w.bytes()), nullptr, false};   // no row: a kernel of one's own
    Executed ex;
    ex.flops = op.flops;
    ex.bytes = op.bytes;
    ex.kernels = 1;
    ex.tensor_core = false;   // fp32 vector work: CUDA cores
    c.on_gpu = time_op(op, ex, c.gpu, c.profile);
    c.ratio = c.wafer_s > 0 ? c.on_gpu.time_s / c.wafer_s : 0;
    const char* why = c.on_gpu.bound == Bound::Launch
                          ? "so little work that starting the kernel costs more than running it: the GPU is launch-bound"
                      : c.on_gpu.bound == Bound::Memory
                          ? "moving its bytes through HBM takes longer than its arithmetic: the GPU is memory-bound"
                          : "its arithmetic takes longer than moving its bytes: the GPU is compute-bound";
    char b[512];
    std::snprintf(b, sizeof b,
                  "On the %s, %llu FLOPs and %llu bytes in and out are %s. The wafer took %s (%llu cycles at %.2f GHz%s): "
                  "the data already sat in the PEs' SRAM and moved only between neighbours.",
                  c.gpu.name.c_str(), (unsigned long long)w.flops, (unsigned long long)w.bytes(), why,
                  format_seconds(c.wafer_s).c_str(), (unsigned long long)w.cycles, c.clock_hz / 1e9,
                  w.estimated ? ", estimated in fast mode" : "");
    c.sentence = b;
    return c;
}

nlohmann::json to_json(const KernelComparison& c) {
    const KernelWork& w = c.work;
    const GpuOpTime& t = c.on_gpu;
    return {{"cycles", w.cycles},
            {"estimated", w.estimated},
            {"flops", w.flops},
            {"sram_bytes", w.sram_bytes},
            {"in_bytes", w.in_bytes},
            {"out_bytes", w.out_bytes},
            {"bytes", w.bytes()},
            {"link_wavelets", w.link_wavelets},
            {"pes", w.pes},
            {"clock_hz", c.clock_hz},
            {"wafer_s", c.wafer_s},
            {"gpu", {{"id", c.gpu.id},
                     {"name", c.gpu.name},
                     {"profile", c.profile.id},
                     {"compute_s", t.compute_s},
                     {"memory_s", t.memory_s},
                     {"launch_s", t.launch_s},
                     {"time_s", t.time_s},
                     {"bound", bound_name(t.bound)}}},
            {"ratio", c.ratio},
            {"sentence", c.sentence}};
}

}  // namespace wl::gpu
