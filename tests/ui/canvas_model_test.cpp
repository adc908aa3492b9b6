// canvas_model_test.cpp: what the mesh canvas shows — palettes, legend ranges,
// settings from JSON, activity windows and the wavelet clock — without ImGui.
#include "ui/canvas_model.h"

#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

using namespace wlui;
using nlohmann::json;

namespace {

wl::lang::KernelRun summa(uint64_t cycles, wl::RunMode mode = wl::RunMode::Cycle) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/summa.wk");
    std::stringstream ss;
    ss << in.rdbuf();
    auto cr = std::make_shared<const wl::lang::CompileResult>(wl::lang::compile(ss.str(), "summa.wk"));
    EXPECT_TRUE(cr->ok());
    wl::lang::RunOptions ro;
    ro.machine.trace_capacity = 1 << 15;
    ro.mode = mode;
    wl::lang::KernelRun r(cr, ro);
    while (r.cycle() < cycles && !r.done()) r.step(cycles - r.cycle());
    return r;
}

wl::TraceEvent hop(uint64_t cycle, int x, int y, int colour, uint8_t tx) {
    wl::TraceEvent e;
    e.cycle = cycle;
    e.x = uint16_t(x);
    e.y = uint16_t(y);
    e.kind = wl::TraceKind::Hop;
    e.colour = uint8_t(colour);
    e.port = wl::kWest;
    e.tx = tx;
    return e;
}

}  // namespace

TEST(CanvasColours, TwentyFourDistinctColoursThatWrap) {
    std::set<std::tuple<int, int, int>> seen;
    for (int c = 0; c < wl::kColours; ++c) {
        Rgba k = colour_of(c);
        EXPECT_EQ(k.a, 255);
        seen.insert({k.r, k.g, k.b});
    }
    EXPECT_EQ(seen.size(), size_t(wl::kColours));
    EXPECT_EQ(colour_of(24), colour_of(0));
    EXPECT_EQ(colour_of(-1), colour_of(23));
}

TEST(CanvasColours, HeatRampIsMonotoneInBrightnessAndClamps) {
    auto luma = [](Rgba c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; };
    for (int i = 1; i <= 100; ++i) EXPECT_GE(luma(heat(i / 100.0f)), luma(heat((i - 1) / 100.0f))) << i;
    EXPECT_EQ(heat(-1), heat(0));
    EXPECT_EQ(heat(7), heat(1));
    EXPECT_EQ(heat(std::nanf("")), heat(0));
    EXPECT_NE(heat(0), kNoProgram);   // an idle PE is not an empty one
    EXPECT_EQ(with_alpha(heat(1), 0.5f).a, 128);
}

TEST(CanvasLegend, NiceRangesAndBytes) {
    EXPECT_EQ(nice_ceil(0.7), 1);
    EXPECT_EQ(nice_ceil(1), 1);
    EXPECT_EQ(nice_ceil(1.01), 2);
    EXPECT_EQ(nice_ceil(320), 500);
    EXPECT_EQ(nice_ceil(2100), 5000);
    EXPECT_EQ(nice_ceil(6000), 10000);
    EXPECT_EQ(nice_ceil(0), 1);
    EXPECT_EQ(format_bytes(320), "320 B");
    EXPECT_EQ(format_bytes(2048), "2 KiB");
    EXPECT_EQ(format_bytes(1536), "1.5 KiB");
    EXPECT_EQ(format_bytes(48 * 1024), "48 KiB");
}

TEST(CanvasSettings, DetailFollowsCellSize) {
    EXPECT_EQ(detail_for(2.6f), Detail::Heatmap);   // 256x256 fitted
    EXPECT_EQ(detail_for(10), Detail::Cells);        // 64x64
    EXPECT_EQ(detail_for(20), Detail::Full);         // 32x32
}

TEST(CanvasSettings, JsonRoundTripAndErrorsChangeNothing) {
    CanvasSettings s;
    s.apply({{"mode", "task"}, {"overlay_colour", 3}, {"anim_speed", 0.5}, {"recent", false}});
    EXPECT_EQ(s.mode, ColourMode::Task);
    EXPECT_EQ(s.route_colour, 3);
    EXPECT_FLOAT_EQ(s.seconds_per_hop, 0.5f);
    EXPECT_FALSE(s.recent);
    EXPECT_EQ(s.to_json()["mode"], "task");
    EXPECT_EQ(s.to_json()["overlay_colour"], 3);
    s.apply({{"overlay_colour", nullptr}});
    EXPECT_TRUE(s.to_json()["overlay_colour"].is_null());

    for (const json& bad : {json{{"mode", "rainbow"}}, json{{"overlay_colour", 24}}, json{{"anim_speed", 0}},
                            json{{"wavelets", 1}}, json{{"zoom", 2}}, json{{"mode", "sram"}, {"anim_speed", 9}}}) {
        CanvasSettings t = s;
        EXPECT_THROW(t.apply(bad), std::invalid_argument) << bad.dump();
        EXPECT_EQ(t.to_json(), s.to_json()) << bad.dump();
    }
    for (ColourMode m : kColourModes) EXPECT_EQ(mode_from_name(mode_name(m)), m);
}

// [SECTION] the wavelet clock

TEST(HopAnimation, TraceAtMatchesEventsAcrossTheWrap) {   // the canvas reads the ring in place
    wl::Trace t(8);
    for (uint64_t c = 0; c < 5; ++c) t.add(hop(c, 0, 0, 0, wl::kE));
    for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t.at(i).cycle, t.events()[i].cycle);
    for (uint64_t c = 5; c < 21; ++c) t.add(hop(c, 0, 0, 0, wl::kE));
    ASSERT_EQ(t.size(), 8u);
    for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t.at(i).cycle, 13 + i);
}

TEST(HopAnimation, PlaysEachCycleAtItsOwnSpeedWhenTheMachineWaits) {
    wl::Trace t(64);
    t.add(hop(0, 1, 1, 3, wl::kE | wl::kS));   // a multicast: one hop per port
    t.add(hop(1, 2, 1, 3, wl::kE));
    HopAnimation a;
    a.update(t, 2, 0.0, 0.5);
    EXPECT_FALSE(a.any());                     // nothing shown before the first frame advances
    a.update(t, 2, 0.25, 0.5);                 // half a cycle: cycle 0's hops half way
    EXPECT_EQ(a.cycle(), 0u);
    EXPECT_FLOAT_EQ(a.phase(), 0.5f);
    auto f = a.in_flight();
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0].port, wl::kSouth);
    EXPECT_EQ(f[1].port, wl::kEast);
    a.update(t, 2, 0.5, 0.5);                  // one more cycle
    EXPECT_EQ(a.cycle(), 1u);
    EXPECT_FLOAT_EQ(a.phase(), 0.5f);
    ASSERT_EQ(a.in_flight().size(), 1u);
    EXPECT_EQ(a.in_flight()[0].x, 2);
    a.update(t, 2, 10.0, 0.5);                 // caught up: the last cycle's hops rest at their ends
    EXPECT_DOUBLE_EQ(a.clock(), 2.0);
    EXPECT_EQ(a.cycle(), 1u);
    EXPECT_FLOAT_EQ(a.phase(), 1.0f);
}

TEST(HopAnimation, SkipsWholeCyclesWhenTheMachineRunsAhead) {
    wl::Trace t(1024);
    for (uint64_t c = 0; c < 100; ++c) t.add(hop(c, int(c % 8), 0, int(c % 24), wl::kE));
    HopAnimation a;
    a.update(t, 10, 0.1, 1.0);                 // 0.1 cycles in: far behind, so it jumps
    EXPECT_LE(a.clock(), 10.0);
    EXPECT_GE(a.clock(), 10.0 - HopAnimation::kMaxLag);
    EXPECT_NEAR(a.phase(), 0.1f, 1e-6);        // the phase is kept across the skip
    a.update(t, 100, 0.1, 1.0);
    EXPECT_GE(a.clock(), 100.0 - HopAnimation::kMaxLag);
    EXPECT_NEAR(a.phase(), 0.2f, 1e-6);
    ASSERT_EQ(a.in_flight().size(), 1u);
    EXPECT_EQ(a.in_flight()[0].cycle, a.cycle());
    // Trails: the newest hop per (PE, port, colour) within kTrail cycles, ageing from 0.
    auto tr = a.trails();
    EXPECT_EQ(tr.size(), size_t(HopAnimation::kTrail));
    int newest = 99;
    for (const Trail& x : tr) newest = std::min(newest, x.age);
    EXPECT_EQ(newest, 0);
    EXPECT_EQ(__builtin_popcount(a.colours()), HopAnimation::kTrail);
    a.update(t, 5, 0.0, 1.0);                  // rewound: never ahead of the machine
    EXPECT_LE(a.clock(), 5.0);
}

// [SECTION] PE state from a running kernel

TEST(PeView, ActivityWindowCountersAndLegendsFromSumma) {
    wl::lang::KernelRun r = summa(300);
    const wl::Machine& m = r.machine();
    ASSERT_GT(m.now(), 0u);
    PeView v;
    CanvasSettings s;
    v.update(m, s);
    // The first window falls back to "since cycle 0", which is exact.
    const wl::CoreStats& st = m.core(1, 1).stats;
    EXPECT_FLOAT_EQ(v.window().busy(m, 1, 1, true), float(double(st.busy) / double(m.now())));
    EXPECT_FLOAT_EQ(v.window().busy(m, 1, 1, false), v.window().busy(m, 1, 1, true));
    EXPECT_GT(v.window().busy(m, 1, 1, false), 0.0f);
    EXPECT_EQ(v.colour(m, 1, 1), heat(v.window().busy(m, 1, 1, true)));

    Legend l = v.legend(m, {});
    EXPECT_TRUE(l.ramp);
    EXPECT_EQ(l.hi, "100%");
    EXPECT_NE(l.title.find("last"), std::string::npos);
    EXPECT_EQ(l.title.find("estimated"), std::string::npos);   // cycle mode's cycles are exact

    s.mode = ColourMode::Sram;
    v.update(m, s);
    l = v.legend(m, {});
    const uint32_t used = m.program_at(0, 0)->sram_used;
    EXPECT_GT(used, 0u);
    EXPECT_EQ(l.hi, format_bytes(nice_ceil(used)));
    EXPECT_EQ(v.colour(m, 0, 0), heat(float(used) / float(nice_ceil(used))));

    s.mode = ColourMode::Task;
    v.update(m, s);
    SeenTasks seen;
    seen.add(m.program_at(0, 0), -1);
    l = v.legend(m, seen);
    EXPECT_FALSE(l.ramp);
    ASSERT_EQ(l.swatches.size(), 3u);          // no program, idle, launch
    EXPECT_EQ(l.swatches[2].second, "launch");

    auto tip = v.tooltip(m, 2, 1);
    ASSERT_GE(tip.size(), 6u);
    EXPECT_EQ(tip[0], "PE (2, 1)");
    EXPECT_NE(tip[4].find("SRAM"), std::string::npos);
}

// Fast mode's cycles are an estimate, and the busy and stall legends say so.
TEST(PeView, FastModeLegendsSayEstimated) {
    wl::lang::KernelRun r = summa(UINT64_MAX, wl::RunMode::Fast);
    ASSERT_TRUE(r.done());
    const wl::Machine& m = r.machine();
    PeView v;
    CanvasSettings s;
    for (ColourMode mode : {ColourMode::Activity, ColourMode::Stalls}) {
        s.mode = mode;
        v.update(m, s);
        EXPECT_NE(v.legend(m, {}).title.find(", estimated"), std::string::npos) << mode_name(mode);
    }
    s.mode = ColourMode::Sram;                 // bytes, not cycles
    v.update(m, s);
    EXPECT_EQ(v.legend(m, {}).title.find("estimated"), std::string::npos);
}

TEST(PeView, RecentWindowMovesWithTheRunAndResetsOnRewind) {
    wl::lang::KernelRun r = summa(10);
    ActivityWindow w;
    w.update(r.machine());
    while (r.cycle() < 10 + 2 * ActivityWindow::kCycles && !r.done()) {
        r.step(50);
        w.update(r.machine());
    }
    if (r.done()) GTEST_SKIP() << "summa finished before two windows";
    const wl::Machine& m = r.machine();
    EXPECT_GE(w.span(m, true), ActivityWindow::kCycles);
    EXPECT_LE(w.span(m, true), 2 * ActivityWindow::kCycles + 50);   // checkpoints fall on frame (here step) boundaries
    EXPECT_EQ(w.span(m, false), m.now());

    wl::lang::KernelRun early = summa(5);      // a rewind: earlier than the window's checkpoint
    w.update(early.machine());
    EXPECT_EQ(w.span(early.machine(), true), early.machine().now());
}

TEST(PeView, TaskLabelsNameTheBoundFunction) {
    wl::Program p;
    p.functions.push_back({"main"});
    p.functions.push_back({"recv_a"});
    wl::TaskBinding b;
    b.id = 3;
    b.function = 1;
    p.tasks.push_back(b);
    EXPECT_EQ(task_label(&p, 3), "t3 recv_a");
    EXPECT_EQ(task_label(&p, 4), "t4");
    EXPECT_EQ(task_label(nullptr, 2), "t2");
    EXPECT_EQ(task_label(&p, -1), "launch");

    wl::Core c{};
    c.state = wl::ThreadState::Stalled;
    c.why = wl::StallWhy::Recv;
    c.wait_colour = 2;
    EXPECT_EQ(thread_state_text(c), "stalled on recv (colour 2)");
    c.state = wl::ThreadState::Idle;
    EXPECT_EQ(thread_state_text(c), "idle");

    // Colours go by the kernel's names; an unnamed one by its number.
    const std::vector<std::string> names = {"", "xdown", "", "", ""};
    Legend w = wavelet_legend((1u << 1) | (1u << 4), names);
    ASSERT_EQ(w.swatches.size(), 2u);
    EXPECT_EQ(w.swatches[0].second, "xdown");
    EXPECT_EQ(w.swatches[1].second, "colour 4");
    EXPECT_EQ(w.swatches[1].first, colour_of(4));
    EXPECT_EQ(colour_label(9, names), "colour 9");
}
