// Fabric timing: the documented latency formula, one wavelet per link per
// cycle, and colours that stay independent when one of them is congested.
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace wl;

namespace {

// A row: PE 0 sends, PEs 1..k-1 forward east, PE k delivers to its CE.
void row_route(Host& h, int k, int colour) {
    ASSERT_FALSE(h.route(0, 0, colour, Route::of(kR, kE)));
    for (int i = 1; i < k; ++i) ASSERT_FALSE(h.route(i, 0, colour, Route::of(kW, kE)));
    ASSERT_FALSE(h.route(k, 0, colour, Route::of(kW, kR)));
}

Program sender_one(int colour) {
    ProgramBuilder b("send1");
    b.array("got", 1);
    b.data_task(colour, "on_data");
    b.func("main", 2, 0, true).li(0, 42).send(0, colour).ret();
    b.func("on_data", 2, 1).li(1, 0).st(1, 0, 0).ret();
    return b.finish();
}

uint64_t first(const std::vector<TraceEvent>& ev, TraceKind k, int x) {
    for (const TraceEvent& e : ev)
        if (e.kind == k && e.x == x) return e.cycle;
    return ~0ull;
}

}  // namespace

// send at cycle t: up the ramp (1), k hops (1 each), down the ramp (1):
// the data task on the PE k hops away starts at t + k + 2.
TEST(FabricTiming, LatencyIsRampPlusHopsPlusRamp) {
    for (int k : {1, 2, 5, 9}) {
        Host h(MachineConfig{.w = k + 1, .h = 1, .trace_capacity = 1024});
        ASSERT_FALSE(h.load(sender_one(3), {0, 0, k + 1, 1}));
        row_route(h, k, 3);
        ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
        RunResult r = h.run_until_quiescent(1000);
        ASSERT_TRUE(r.ok()) << r.fault.to_string();
        auto ev = h.machine().trace().events();
        uint64_t sent = first(ev, TraceKind::Send, 0);
        uint64_t delivered = first(ev, TraceKind::Deliver, k);
        uint64_t started = ~0ull;
        for (const TraceEvent& e : ev)
            if (e.kind == TraceKind::TaskStart && e.x == k && e.task == 3) started = e.cycle;
        EXPECT_EQ(delivered - sent, uint64_t(k + 1)) << "k=" << k;
        EXPECT_EQ(started - sent, uint64_t(k + 2)) << "k=" << k;
        uint32_t got = 0;
        ASSERT_FALSE(h.machine().read(k, 0, 0, &got, 4));
        EXPECT_EQ(got, 42u);
        // launch: pick (cycle 0), li (1), send issues at cycle 2
        EXPECT_EQ(sent, 2u);
    }
}

// A long stream crosses each link at exactly one wavelet per cycle.
TEST(FabricTiming, LinkCarriesOneWaveletPerCycle) {
    const int k = 4, N = 64;
    ProgramBuilder b("stream");
    uint32_t x = b.array("x", N), y = b.array("y", N);
    b.func("main", 4, 0, true);
    int rx = b.label();
    b.li(3, N).peid(0, 0).bnz(0, rx).li(1, int32_t(x)).dmem(0, 1, 3).dfabout(1, 3, 0).fmovs(1, 0).ret();
    b.bind(rx).li(1, int32_t(y)).dmem(0, 1, 3).dfabin(1, 3, 0).fmovs(0, 1).ret();
    Program p = b.finish();
    Host h(MachineConfig{.w = k + 1, .h = 1, .trace_capacity = 100000});
    ASSERT_FALSE(h.load(p, {0, 0, k + 1, 1}));
    row_route(h, k, 0);
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    ASSERT_FALSE(h.launch({k, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(10000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    std::map<std::pair<int, uint64_t>, int> per_link_cycle;
    std::vector<uint64_t> deliveries;
    for (const TraceEvent& e : h.machine().trace().events()) {
        if (e.kind == TraceKind::Hop) per_link_cycle[{e.x, e.cycle}]++;
        if (e.kind == TraceKind::Deliver) deliveries.push_back(e.cycle);
    }
    for (auto& [key, n] : per_link_cycle) EXPECT_EQ(n, 1) << "router " << key.first << " cycle " << key.second;
    ASSERT_EQ(deliveries.size(), size_t(N));
    for (size_t i = 1; i < deliveries.size(); ++i) EXPECT_EQ(deliveries[i] - deliveries[i - 1], 1u) << "i=" << i;
    std::vector<float> got(N), want(N);
    ASSERT_FALSE(h.d2h(0, 0, "x", want.data(), N));
    ASSERT_FALSE(h.d2h(k, 0, "y", got.data(), N));
    EXPECT_EQ(got, want);
    for (int i = 0; i < k; ++i) EXPECT_EQ(h.machine().router(i, 0).stats.out[kEast], uint64_t(N));
}

// Two colours on one link share it: together they still move one wavelet per cycle.
TEST(FabricTiming, TwoColoursShareOneLink) {
    const int N = 40;
    ProgramBuilder b("two");
    uint32_t x = b.array("x", N), y0 = b.array("y0", N), y1 = b.array("y1", N);
    b.func("main", 4, 0, true);
    int rx = b.label();
    b.li(3, N).peid(0, 0).bnz(0, rx);
    b.li(1, int32_t(x)).dmem(0, 1, 3).dfabout(1, 3, 0).dfabout(2, 3, 1).fmovs(1, 0, kVecAsync).fmovs(2, 0, kVecAsync).ret();
    b.bind(rx).li(1, int32_t(y0)).dmem(0, 1, 3).li(1, int32_t(y1)).dmem(3, 1, 3).dfabin(1, 3, 0).dfabin(2, 3, 1);
    b.fmovs(0, 1, kVecAsync).fmovs(3, 2).ret();
    Program p = b.finish();
    Host h(MachineConfig{.w = 3, .h = 1});
    ASSERT_FALSE(h.load(p, {0, 0, 3, 1}));
    for (int c : {0, 1}) {
        ASSERT_FALSE(h.route(0, 0, c, Route::of(kR, kE)));
        ASSERT_FALSE(h.route(1, 0, c, Route::of(kW, kE)));
        ASSERT_FALSE(h.route(2, 0, c, Route::of(kW, kR)));
    }
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    ASSERT_FALSE(h.launch({2, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(10000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    const Router& mid = h.machine().router(1, 0);
    EXPECT_EQ(mid.stats.out_colour[0], uint32_t(N));
    EXPECT_EQ(mid.stats.out_colour[1], uint32_t(N));
    EXPECT_GE(r.cycles, uint64_t(2 * N));   // 2N wavelets over one link, and the ramp: >= 2N cycles
    EXPECT_LT(r.cycles, uint64_t(2 * N + 20));
}

// Colour 0 backs up into a PE whose data task is blocked; colour 1 on the same
// links still gets every wavelet through.
TEST(FabricTiming, CongestedColourDoesNotBlockAnother) {
    const int N = 30;
    ProgramBuilder b("cong");
    uint32_t x = b.array("x", N), y = b.array("y", N);
    b.data_task(0, "never", 0, /*blocked=*/true);
    b.func("main", 4, 0, true);
    int rx = b.label();
    b.li(3, N).peid(0, 0).bnz(0, rx);
    b.li(1, int32_t(x)).dmem(0, 1, 3).dfabout(1, 3, 0).dfabout(2, 3, 1).fmovs(1, 0, kVecAsync).fmovs(2, 0, kVecAsync).ret();
    b.bind(rx).li(1, int32_t(y)).dmem(0, 1, 3).dfabin(1, 3, 1).fmovs(0, 1).ret();
    b.func("never", 2, 1).ret();
    Program p = b.finish();
    Host h(MachineConfig{.w = 3, .h = 1});
    ASSERT_FALSE(h.load(p, {0, 0, 3, 1}));
    for (int c : {0, 1}) {
        ASSERT_FALSE(h.route(0, 0, c, Route::of(kR, kE)));
        ASSERT_FALSE(h.route(1, 0, c, Route::of(kW, kE)));
        ASSERT_FALSE(h.route(2, 0, c, Route::of(kW, kR)));
    }
    std::vector<float> xs(N);
    for (int i = 0; i < N; ++i) xs[i] = float(i) + 0.5f;
    ASSERT_FALSE(h.h2d(0, 0, "x", xs.data(), N));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    ASSERT_FALSE(h.launch({2, 0, 1, 1}, "main"));
    RunResult r = h.run(500);
    // Colour 0 can never drain, so the machine reports the deadlock — after colour 1 finished.
    ASSERT_EQ(r.status, RunStatus::Faulted);
    EXPECT_EQ(r.fault.kind, FaultKind::Deadlock);
    std::vector<float> got(N);
    ASSERT_FALSE(h.d2h(2, 0, "y", got.data(), N));
    EXPECT_EQ(got, xs);
    EXPECT_EQ(h.machine().router(1, 0).stats.out_colour[1], uint32_t(N));
    EXPECT_LT(h.machine().router(1, 0).stats.out_colour[0], uint32_t(N));   // colour 0 is stuck
    bool blames_colour0 = false;
    for (const Stuck& s : r.fault.stuck) blames_colour0 |= s.colour == 0;
    EXPECT_TRUE(blames_colour0) << r.fault.to_string();
}
