// fabric_bands_test.cpp: one mesh split into bands of rows (engine/fabric/band.h), each band on
// its own thread (thread_bands.h): every kernel ends exactly as in one machine, whatever the
// number of bands: its output, every PE's SRAM and registers, the traffic counts and the cycles.
#include "engine/lang/compile.h"
#include "engine/lang/run.h"
#include "tests/unit/kernel_files.h"
#include "tests/unit/thread_bands.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <thread>

namespace {

struct Ending {
    wl::lang::RunReport report;
    uint64_t checksum = 0;
};

// The kernel run by `bands` bands (0: one machine, not split), each band's ending.
std::vector<Ending> run_split(const std::shared_ptr<const wl::lang::CompileResult>& cr, int bands, uint64_t budget, wl::RunMode mode,
                              size_t path_entries = wl::MachineConfig{}.fast_path_entries) {
    wl::lang::RunOptions opt;
    opt.cycle_budget = budget;
    opt.mode = mode;
    opt.machine.fast_path_entries = path_entries;
    if (bands == 0) {
        wl::lang::KernelRun run(cr, opt);
        run.finish();
        return {{run.report(), run.machine().checksum()}};
    }
    wl::test::ThreadBands link(bands);
    std::vector<Ending> out(static_cast<size_t>(bands));
    std::vector<std::thread> threads;
    for (int r = 0; r < bands; ++r)
        threads.emplace_back([&, r] {
            wl::lang::RunOptions o = opt;
            o.bands = &link.link(r);
            wl::lang::KernelRun run(cr, o);
            run.finish();
            out[size_t(r)] = {run.report(), run.machine().checksum()};
        });
    for (std::thread& t : threads) t.join();
    return out;
}

// Everything but, in fast mode, its core steps: how often a PE was run, which is the schedule's,
// not the machine's (fast_band.cpp runs a band's PEs in windows). With `ending_only`, the outcome
// alone: the fault, the output and the cycles.
void expect_same(const Ending& a, const Ending& b, const std::string& what, wl::RunMode mode, bool ending_only) {
    EXPECT_EQ(a.report.ok, b.report.ok) << what;
    EXPECT_EQ(a.report.error, b.report.error) << what;
    EXPECT_EQ(a.report.output, b.report.output) << what;
    EXPECT_EQ(a.report.cycles, b.report.cycles) << what;
    if (ending_only) return;
    EXPECT_EQ(a.report.stats.hops, b.report.stats.hops) << what;
    EXPECT_EQ(a.report.stats.instrs, b.report.stats.instrs) << what;
    EXPECT_EQ(a.report.stats.router_steps, b.report.stats.router_steps) << what;
    if (mode == wl::RunMode::Cycle) {
        EXPECT_EQ(a.report.stats.core_steps, b.report.stats.core_steps) << what;
    }
    EXPECT_EQ(a.report.link_out_per_pe, b.report.link_out_per_pe) << what;
    EXPECT_EQ(a.checksum, b.checksum) << what;
}

// Every kernel of examples/ and tests/kernels/ that compiles, faults and deadlocks included: the
// same ending at 1, 2 and 4 bands as in one machine (a fault on any band names the same PE, line
// and cycle). Returns how many kernels split and how many were refused (a row too few).
std::pair<int, int> every_kernel(wl::RunMode mode) {
    int split = 0, refused = 0;
    for (const auto& path : wl::testing::kernel_files()) {
        const std::string src = wl::testing::slurp(path);
        auto cr = std::make_shared<const wl::lang::CompileResult>(wl::lang::compile(src, path.filename().string()));
        // mesh_256.wk's 65,536 PEs: its checksums would hash 3 GiB of SRAM per band.
        if (!cr->ok() || cr->grid_w == 0 || cr->grid_w * cr->grid_h > 4096) continue;
        const uint64_t budget = wl::testing::kernel_budget(src, 50'000'000);
        const Ending one = run_split(cr, 0, budget, mode)[0];
        for (int bands : {1, 2, 4}) {
            // Four threads on a CI machine's two cores meet at a barrier four times a cycle in cycle
            // mode: the two long published kernels (meshgemm, stencil2d: 35-40 k cycles) split in 1
            // and 2 bands there, every other kernel in 4 too.
            if (mode == wl::RunMode::Cycle && bands == 4 && one.report.cycles > 20'000) continue;
            // Fast mode's timing-dependent kernels (flood.wk queues 2^20 wavelets a PE) at 2 bands
            // only, and not under AddressSanitizer, where flood.wk alone takes a minute.
            const bool timing = src.find("// fast mode:") != std::string::npos;
#ifdef __SANITIZE_ADDRESS__
            if (mode == wl::RunMode::Fast && timing) continue;
#endif
            if (mode == wl::RunMode::Fast && timing && bands != 2) continue;
            const std::string what = path.filename().string() + ", " + std::to_string(bands) + " bands";
            const std::vector<Ending> ends = run_split(cr, bands, budget, mode);
            if (bands > cr->grid_h) {   // refused before anything runs, on every band
                for (const Ending& e : ends) {
                    EXPECT_EQ(e.report.cycles, 0u) << what;
                    EXPECT_NE(e.report.error.find("each band needs at least one row"), std::string::npos) << what << ": " << e.report.error;
                }
                refused++;
                continue;
            }
            // Fast mode's counts after a fault that depends on its schedule (a kernel marked "// fast
            // mode:", docs/engine.md), or after a ring of routes, which a band stops before the
            // wavelet leaves it, where one machine walks the ring up to its limit (fast_band.cpp).
            const bool ending_only = mode == wl::RunMode::Fast && (timing || one.report.error.find("ring of routes") != std::string::npos);
            for (int r = 0; r < bands; ++r) expect_same(one, ends[size_t(r)], what + ", band " + std::to_string(r), mode, ending_only);
            split++;
        }
    }
    return {split, refused};
}

TEST(FabricBands, EveryKernelEndsAsInOneMachine) {
#ifdef __EMSCRIPTEN__
    GTEST_SKIP() << "the bands run on threads; the web build has one";
#endif
    const auto [split, refused] = every_kernel(wl::RunMode::Cycle);
    EXPECT_GE(split, 40);     // 14 kernels of 2 or more rows (2 and 4 bands where they have the rows), and 1 band of each
    EXPECT_GE(refused, 50);   // the 1-row kernels at 2 and 4 bands
}

// Fast mode's bands (fast_band.cpp): wavelets handed across the bands' edges in windows.
TEST(FabricBands, EveryKernelEndsAsInOneMachineInFastMode) {
#ifdef __EMSCRIPTEN__
    GTEST_SKIP() << "the bands run on threads; the web build has one";
#endif
    const auto [split, refused] = every_kernel(wl::RunMode::Fast);
    EXPECT_GE(split, 56);     // as above, and the long kernels at 4 bands too; the timing-dependent ones at 2 alone (natively)
    EXPECT_GE(refused, 55);
}

// A band forgets its recorded paths (fast_mode.h), hand-offs and all, before every PE's run: a
// SUMMA of broadcasts across the bands' edges still ends as in one machine that keeps them.
TEST(FabricBands, ForgettingRecordedPathsChangesNothing) {
#ifdef __EMSCRIPTEN__
    GTEST_SKIP() << "the bands run on threads; the web build has one";
#endif
    wl::lang::CompileOptions co;
    co.constants = {{"P", 12}, {"B", 3}};
    const std::string src = wl::testing::slurp(std::filesystem::path(WAFERLAB_SOURCE_DIR) / "examples/summa.wk");
    auto cr = std::make_shared<const wl::lang::CompileResult>(wl::lang::compile(src, "summa.wk", co));
    ASSERT_TRUE(cr->ok());
    const Ending one = run_split(cr, 0, 5'000'000, wl::RunMode::Fast)[0];
    ASSERT_TRUE(one.report.ok) << one.report.error;
    for (int bands : {2, 4}) {
        const std::vector<Ending> ends = run_split(cr, bands, 5'000'000, wl::RunMode::Fast, 0);
        for (int r = 0; r < bands; ++r)
            expect_same(one, ends[size_t(r)], std::to_string(bands) + " bands, band " + std::to_string(r), wl::RunMode::Fast, false);
    }
}

}  // namespace
