// gpu_kernel_compare_test.cpp: the Wafer vs GPU window's kernel view. The
// operation it models on the GPU is what the run counted (FP operations by
// vector ops, the host block's bytes), checked here against gemv.wk worked by
// hand; the wafer time is the measured cycles at the one WSE clock.
#include "engine/gpu/kernel_compare.h"
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace wl;

namespace {

lang::RunReport run_gemv(RunMode mode) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/gemv.wk");
    std::stringstream ss;
    ss << in.rdbuf();
    lang::CompileResult cr = lang::compile(ss.str(), "gemv.wk");
    EXPECT_TRUE(cr.ok());
    lang::RunOptions o;
    o.mode = mode;
    lang::RunReport r = lang::run_kernel(cr, o);
    EXPECT_TRUE(r.ok) << r.error;
    return r;
}

}  // namespace

// gemv.wk on 4 x 2 PEs, each with a 4 x 4 block of A (8 x 16):
//   fmacs 4 columns x 4 rows per PE: 8 x 16 = 128 elements, 2 FLOPs each = 256;
//   fadds in the 3 non-left columns, 4 elements, 2 rows: 24 elements, 1 FLOP each;
//   fmovs (x down, y out of the left column) are copies: 0.
// SRAM bytes (4 per memory operand per element): fmacs 3 operands x 128; x sent and received
// 2 x 16 elements x 1; y out of the left column 8 x 1; fadds at the right edge 8 x 2, in the middle 16 x 1.
// Host bytes: fill A (8 x 16) and x (16) in, print y (8) out.
TEST(GpuKernelCompare, CountsTheOperationTheRunDid) {
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        const lang::RunReport r = run_gemv(mode);
        const gpu::KernelWork w = gpu::kernel_work(r, 4, 2, mode == RunMode::Fast);
        EXPECT_EQ(w.flops, 256u + 24u);
        EXPECT_EQ(w.sram_bytes, 4u * (3 * 128 + 2 * 16 + 8 + 8 * 2 + 16));
        EXPECT_EQ(w.in_bytes, 4u * (8 * 16 + 16));
        EXPECT_EQ(w.out_bytes, 4u * 8);
        EXPECT_EQ(w.pes, 8);
        EXPECT_GT(w.cycles, 0u);
        EXPECT_GT(w.link_wavelets, 0u);
    }
}

TEST(GpuKernelCompare, WaferTimeIsCyclesAtTheClockAndTheGpuIsItsRoofline) {
    const lang::RunReport r = run_gemv(RunMode::Cycle);
    const gpu::KernelComparison c = gpu::compare_kernel(gpu::kernel_work(r, 4, 2, false), "a100");
    EXPECT_EQ(c.clock_hz, gpu::WaferSpec{}.clock_hz);
    EXPECT_DOUBLE_EQ(c.wafer_s, double(r.cycles) / gpu::WaferSpec{}.clock_hz);
    const gpu::GpuOpTime& t = c.on_gpu;
    const double eff_peak = c.gpu.fp32_flops * c.profile.gemm_eff, eff_bw = c.gpu.hbm_bytes_per_s * c.profile.mem_eff;
    EXPECT_DOUBLE_EQ(t.compute_s, 280.0 / eff_peak);
    EXPECT_DOUBLE_EQ(t.memory_s, 608.0 / eff_bw);
    EXPECT_DOUBLE_EQ(t.launch_s, c.gpu.launch_s);
    EXPECT_DOUBLE_EQ(t.time_s, std::max(t.compute_s, t.memory_s) + t.launch_s);
    // 280 FLOPs cannot fill an A100: the launch dominates, and the sentence says so.
    EXPECT_EQ(t.bound, gpu::Bound::Launch);
    EXPECT_NE(c.sentence.find("launch-bound"), std::string::npos) << c.sentence;
    EXPECT_DOUBLE_EQ(c.ratio, t.time_s / c.wafer_s);
    EXPECT_THROW(gpu::compare_kernel(gpu::kernel_work(r, 4, 2, false), "tpu"), std::invalid_argument);
    const nlohmann::json j = gpu::to_json(c);
    EXPECT_EQ(j["cycles"], r.cycles);
    EXPECT_EQ(j["gpu"]["bound"], "launch");
}
