// run_controller_test.cpp: the app's run controls reach the same bits as a
// one-shot run however the work is sliced, paced or rewound.
#include "ui/run_controller.h"

#include "engine/lang/compile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace wlui;
using wl::lang::CompileResult;

namespace {

std::shared_ptr<const CompileResult> example(const std::string& name) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    auto cr = std::make_shared<const CompileResult>(wl::lang::compile(ss.str(), name));
    EXPECT_TRUE(cr->ok()) << name;
    return cr;
}

uint64_t finish(RunController& rc) {
    int ticks = 0;
    while (rc.busy() && ticks < 1'000'000) rc.tick(1.0 / 60, 16.0), ++ticks;
    return rc.run()->machine().checksum();
}

struct Reference {
    uint64_t checksum, cycles;
};

Reference reference(const std::shared_ptr<const CompileResult>& cr) {
    wl::lang::RunOptions ro;
    ro.machine.trace_capacity = RunControllerOptions{}.trace_capacity;   // the trace is part of the checksum's machine
    wl::lang::KernelRun r(cr, ro);
    r.finish();
    return {r.machine().checksum(), r.cycle()};
}

}  // namespace

TEST(RunController, RunToEndMatchesAOneShotRun) {
    auto cr = example("summa.wk");
    const Reference ref = reference(cr);
    RunController rc;
    rc.load(cr);
    EXPECT_EQ(rc.cycle(), 0u);
    EXPECT_FALSE(rc.busy());
    rc.run_to_end();
    EXPECT_EQ(finish(rc), ref.checksum);
    EXPECT_TRUE(rc.done());
    EXPECT_EQ(rc.cycle(), ref.cycles);
    EXPECT_TRUE(rc.run()->ok());
    EXPECT_FALSE(rc.run()->output().empty());
}

TEST(RunController, StepStopsExactlyAndAccumulates) {
    RunController rc;
    rc.load(example("summa.wk"));
    rc.step(10);
    rc.step(5);                               // queued on top of the first
    EXPECT_EQ(rc.target(), 15u);
    finish(rc);
    EXPECT_EQ(rc.cycle(), 15u);
    EXPECT_EQ(rc.mode(), RunController::Mode::Paused);
    rc.step(1);
    finish(rc);
    EXPECT_EQ(rc.cycle(), 16u);
}

TEST(RunController, PlayIsPacedBySpeed) {
    RunController rc;
    rc.load(example("summa.wk"));
    rc.set_speed(120);                        // cycles per second
    rc.play();
    uint64_t ran = 0;
    for (int i = 0; i < 30; ++i) ran += rc.tick(1.0 / 60, 16.0);   // half a second of frames
    EXPECT_EQ(ran, 60u);
    EXPECT_EQ(rc.cycle(), 60u);
    EXPECT_TRUE(rc.busy());
    rc.pause();
    EXPECT_EQ(rc.tick(1.0, 16.0), 0u);
}

TEST(RunController, SpeedIsCyclesPerSecondWithinItsRange) {
    RunController rc;
    rc.set_speed(5);
    EXPECT_EQ(rc.speed(), 5.0);
    rc.set_speed(20);
    EXPECT_EQ(rc.speed(), 20.0);
    rc.set_speed(1e20);
    EXPECT_EQ(rc.speed(), RunController::kMaxSpeed);
    rc.set_speed(0);
    EXPECT_EQ(rc.speed(), RunController::kMinSpeed);
    rc.set_speed(std::nan(""));
    EXPECT_EQ(rc.speed(), RunController::kMinSpeed);
}

TEST(RunController, RewindReplaysToTheSameBits) {
    auto cr = example("cannon.wk");
    RunController rc({.snapshot_budget_bytes = 1, .first_snapshot_every = 16});   // cycle 0 only: replays from the start
    rc.load(cr);
    rc.step(700);
    finish(rc);
    const uint64_t at700 = rc.run()->machine().checksum();
    rc.run_to_end();
    const uint64_t end = finish(rc);
    EXPECT_EQ(rc.snapshots(), 1u);
    rc.rewind_to(700);
    finish(rc);
    EXPECT_EQ(rc.cycle(), 700u);
    EXPECT_EQ(rc.run()->machine().checksum(), at700);
    rc.step_back(1);
    finish(rc);
    EXPECT_EQ(rc.cycle(), 699u);
    rc.reset();
    finish(rc);
    EXPECT_EQ(rc.cycle(), 0u);
    rc.run_to_end();
    EXPECT_EQ(finish(rc), end);
    EXPECT_EQ(finish(rc), reference(cr).checksum);
}

TEST(RunController, TakesNoSnapshotThatCannotFitBesideCycleZero) {
    // Room for cycle 0's and half of another: none is copied, and rewinds replay from the start.
    auto cr = example("cannon.wk");
    wl::lang::RunOptions ro;
    ro.machine.trace_capacity = RunControllerOptions{}.trace_capacity;
    wl::lang::KernelRun probe(cr, ro);
    const size_t per_snap = probe.machine().snapshot_bytes();
    RunController rc({.snapshot_budget_bytes = per_snap + per_snap / 2, .first_snapshot_every = 8});
    rc.load(cr);
    rc.step(100);
    finish(rc);
    const uint64_t at100 = rc.run()->machine().checksum();
    rc.run_to_end();
    finish(rc);
    EXPECT_EQ(rc.snapshots(), 1u);
    EXPECT_EQ(rc.snapshots_copied(), 0u);
    EXPECT_GT(rc.snapshot_every(), rc.cycle());          // none is due again in this run
    rc.rewind_to(100);
    finish(rc);
    EXPECT_EQ(rc.run()->machine().checksum(), at100);
}

TEST(RunController, SnapshotsThinOutWithinTheirBudget) {
    // A budget of five snapshots of cannon.wk's machine (4 x 4 PEs).
    auto cr = example("cannon.wk");
    wl::lang::RunOptions ro;
    ro.machine.trace_capacity = RunControllerOptions{}.trace_capacity;
    wl::lang::KernelRun probe(cr, ro);
    probe.finish();
    const size_t per_snap = probe.machine().snapshot_bytes();
    RunController rc({.snapshot_budget_bytes = 5 * per_snap, .first_snapshot_every = 8});
    rc.load(cr);
    rc.run_to_end();
    const uint64_t end = finish(rc);
    EXPECT_LE(rc.snapshots(), 5u);
    EXPECT_GE(rc.snapshots(), 3u);
    EXPECT_GT(rc.snapshot_every(), 8u);                   // the spacing doubled at least once
    const uint64_t half = rc.cycle() / 2;
    rc.rewind_to(half);
    finish(rc);
    EXPECT_EQ(rc.cycle(), half);
    rc.run_to_end();
    EXPECT_EQ(finish(rc), end);
}

TEST(RunController, TimelineIsCumulativeAndSurvivesRewind) {
    RunController rc({.sample_every = 4, .max_samples = 16});
    rc.load(example("gemv.wk"));
    rc.run_to_end();
    finish(rc);
    const auto& t = rc.timeline();
    ASSERT_GE(t.size(), 2u);
    EXPECT_LE(t.size(), 17u);
    for (size_t i = 1; i < t.size(); ++i) {
        EXPECT_LT(t[i - 1].cycle, t[i].cycle);
        EXPECT_LE(t[i - 1].busy, t[i].busy);
        EXPECT_LE(t[i - 1].hops, t[i].hops);
    }
    EXPECT_EQ(t.back().cycle, rc.cycle());
    EXPECT_EQ(t.back().busy, rc.run()->machine().stats().busy);
    const auto before = t;
    rc.rewind_to(40);
    finish(rc);
    EXPECT_EQ(rc.cycle(), 40u);
    EXPECT_EQ(rc.timeline().size(), before.size());        // going back forgets nothing
    EXPECT_EQ(rc.timeline().back().cycle, before.back().cycle);
    rc.run_to_end();
    finish(rc);
    EXPECT_EQ(rc.timeline().back().busy, before.back().busy);
}

// The student's scrub: from cycle 96 back to 48, to 0, then to 24. Nothing
// after 24 is lost, and the slider's range (the extent) never shrinks.
TEST(RunController, ScrubbingBackKeepsTheHistory) {
    auto cr = example("gemv.wk");
    RunController rc({.first_snapshot_every = 16});
    rc.load(cr);
    rc.step(96);
    finish(rc);
    const uint64_t at96 = rc.run()->machine().checksum();
    const size_t snaps = rc.snapshots(), samples = rc.timeline().size();
    EXPECT_EQ(rc.extent(), 96u);
    EXPECT_FALSE(rc.extent_is_end());
    for (uint64_t c : {48u, 0u, 24u}) {
        rc.rewind_to(c);
        rc.tick(1.0 / 60, 0.001);                          // mid-drag: a frame's worth of replay at most
        EXPECT_EQ(rc.extent(), 96u) << "while scrubbing to " << c;
    }
    finish(rc);
    EXPECT_EQ(rc.cycle(), 24u);
    EXPECT_EQ(rc.extent(), 96u);
    EXPECT_EQ(rc.snapshots(), snaps);
    EXPECT_EQ(rc.timeline().size(), samples);
    rc.rewind_to(96);                                     // forward again through known history
    finish(rc);
    EXPECT_EQ(rc.cycle(), 96u);
    EXPECT_EQ(rc.run()->machine().checksum(), at96);
    rc.run_to_end();
    finish(rc);
    EXPECT_TRUE(rc.extent_is_end());
    EXPECT_EQ(rc.extent(), rc.cycle());
    rc.reset();
    finish(rc);
    EXPECT_EQ(rc.extent(), reference(cr).cycles);          // still the whole run after Reset
    rc.load(cr);                                           // a new build: a new history
    EXPECT_EQ(rc.extent(), 0u);
    EXPECT_FALSE(rc.extent_is_end());
}

TEST(RunController, AFaultStopsTheRunWithItsPlace) {
    const char* oob = R"(layout {
    grid 2 x 2;
    place p at (0..2, 0..2);
}
program p {
    var a: [f32; 4];
    export fn main() {
        let i: i32 = 100000;
        a[i] = 1.0;
    }
}
host { launch main at (0..2, 0..2); run; }
)";
    auto cr = std::make_shared<const CompileResult>(wl::lang::compile(oob, "oob.wk"));
    ASSERT_TRUE(cr->ok()) << (cr->diagnostics.empty() ? "" : wl::lang::format_diagnostic(cr->diagnostics[0]));
    RunController rc;
    rc.load(cr);
    rc.run_to_end();
    finish(rc);
    EXPECT_TRUE(rc.done());
    EXPECT_FALSE(rc.busy());
    ASSERT_FALSE(rc.run()->ok());
    EXPECT_NE(rc.run()->error().find("oob.wk:9:"), std::string::npos) << rc.run()->error();
    EXPECT_EQ(rc.run()->fault().x, 0);
    rc.play();                                // nothing left to run
    EXPECT_FALSE(rc.busy());
}

// The Cycle/Fast switch: fast mode gives the same output, its cycles are an estimate, and
// switching reloads at cycle 0 (a run is all one mode).
TEST(RunController, FastModeGivesTheSameOutput) {
    auto cr = example("summa.wk");
    RunController rc;
    rc.load(cr);
    rc.run_to_end();
    finish(rc);
    const std::vector<wl::lang::OutputLine> cycle_out = rc.run()->output();
    const uint64_t cycle_cycles = rc.cycle();
    rc.set_run_mode(wl::RunMode::Fast);
    EXPECT_EQ(rc.run_mode(), wl::RunMode::Fast);
    EXPECT_EQ(rc.cycle(), 0u);
    EXPECT_FALSE(rc.done());
    EXPECT_EQ(rc.run()->machine().mode(), wl::RunMode::Fast);
    rc.run_to_end();
    finish(rc);
    ASSERT_TRUE(rc.done());
    ASSERT_EQ(rc.run()->output().size(), cycle_out.size());
    for (size_t k = 0; k < cycle_out.size(); ++k) EXPECT_EQ(rc.run()->output()[k].text, cycle_out[k].text);
    EXPECT_NEAR(double(rc.cycle()), double(cycle_cycles), 0.1 * double(cycle_cycles));
    rc.set_run_mode(wl::RunMode::Cycle);
    EXPECT_EQ(rc.run()->machine().mode(), wl::RunMode::Cycle);
    EXPECT_EQ(rc.cycle(), 0u);
}

// The JS hook's set_arch: a machine profile's lanes time the vector ops (summa's fmacs at the
// WSE-3's eight fp16 lanes take fewer cycles), the output is the same, and a change reloads at cycle 0.
TEST(RunController, AMachineProfileChangesTheCyclesNotTheOutput) {
    auto cr = example("summa.wk");
    RunController rc;
    EXPECT_STREQ(rc.arch().id, "default");
    rc.load(cr);
    rc.run_to_end();
    finish(rc);
    const std::vector<wl::lang::OutputLine> out = rc.run()->output();
    const uint64_t cycles = rc.cycle();
    rc.set_arch(*wl::find_machine_profile("wse3"), wl::Lanes::Fp16);
    EXPECT_STREQ(rc.arch().id, "wse3");
    EXPECT_EQ(rc.lanes(), wl::Lanes::Fp16);
    EXPECT_EQ(rc.cycle(), 0u);
    EXPECT_EQ(rc.run()->machine().config().simd_fp32, 8);
    rc.run_to_end();
    finish(rc);
    ASSERT_EQ(rc.run()->output().size(), out.size());
    for (size_t k = 0; k < out.size(); ++k) EXPECT_EQ(rc.run()->output()[k].text, out[k].text);
    EXPECT_LT(rc.cycle(), cycles);
    rc.set_arch(wl::default_profile(), wl::Lanes::Fp32);
    EXPECT_EQ(rc.run()->machine().config().simd_fp32, 1);
}
