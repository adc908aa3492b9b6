// gpu_check.cpp: the run against the GPU model, in words (gpu_check.h).
#include "engine/lessons/gpu_check.h"

#include "engine/gpu/compare.h"
#include "engine/gpu/kernel_compare.h"

#include <cstdio>

namespace wl::lessons {

namespace {

const char* bound_words(wl::gpu::Bound b) {
    switch (b) {
        case wl::gpu::Bound::Launch: return "launch-bound: starting the kernel costs more than running it";
        case wl::gpu::Bound::Memory: return "memory-bound: moving the bytes through HBM takes longest";
        case wl::gpu::Bound::Compute: return "compute-bound: the arithmetic takes longest";
    }
    return "";
}

}  // namespace

CheckItem check_gpu(const CheckSpec& spec, const wl::lang::CompileResult& cr, const wl::lang::RunReport& rep, Verdict* v) {
    CheckItem item{CheckKind::Gpu, false, ""};
    if (!rep.ok) {
        item.message = "The comparison with the GPU model counts once the run ends cleanly.";
        return item;
    }
    const wl::gpu::KernelComparison c =
        wl::gpu::compare_kernel(wl::gpu::kernel_work(rep, cr.grid_w, cr.grid_h, false), spec.faster_than_gpu);
    const wl::gpu::GpuOpTime& g = c.on_gpu;
    v->wafer_s = c.wafer_s;
    v->gpu_s = g.time_s;
    item.ok = c.wafer_s < g.time_s;
    using wl::gpu::format_seconds;
    char ghz[32];
    std::snprintf(ghz, sizeof ghz, "%.2g GHz", c.clock_hz / 1e9);
    item.message = "The wafer took " + format_seconds(c.wafer_s) + " (" + grouped(rep.cycles) + " cycles at " + ghz + "); the " +
                   c.gpu.name + " model takes " + format_seconds(g.time_s) + " for the same " + grouped(c.work.flops) +
                   " FLOPs and " + grouped(c.work.bytes()) + " bytes: " + format_seconds(g.launch_s) + " to launch the kernel, " +
                   format_seconds(g.memory_s) + " to move the bytes, " + format_seconds(g.compute_s) +
                   " of arithmetic, so it is " + bound_words(g.bound) + ".";
    char ratio[64];
    if (item.ok) {
        std::snprintf(ratio, sizeof ratio, " The wafer is %.3g times faster.", g.time_s / c.wafer_s);
        item.message += ratio;
    } else {
        std::snprintf(ratio, sizeof ratio, " The GPU is %.3g times faster: ", c.wafer_s / g.time_s);
        item.message += ratio + std::string("the wafer must finish in fewer than ") +
                        grouped(uint64_t(g.time_s * c.clock_hz)) + " cycles.";
    }
    return item;
}

}  // namespace wl::lessons
