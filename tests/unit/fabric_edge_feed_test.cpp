// fabric_edge_feed_test.cpp: an edge link (Machine::feed) brings words into the mesh from outside
// at its rate: every PE of a row gets its part, in both modes, at the cycle the rate says; bad
// links are refused with the place; a link nothing reads is a deadlock, not a hang.
#include "engine/fabric/machine.h"
#include "engine/lang/compile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace {

using namespace wl;

// Three PEs in a row; colour 5 comes in at the west edge and every router gives its PE a copy:
// each PE keeps its four of the twelve words (load_w's pattern in models/kernels/matmul.wk).
const char* kRow = R"(
colour s = 5;
layout {
    grid 3 x 1;
    place keep at (0..3, 0) with (px = x);
    route s at (0..2, 0) rx west tx ramp, east;
    route s at (2, 0) rx west tx ramp;
}
program keep(px: i32) {
    export var got: [f32; 4];
    var sink: [f32; 1];
    export fn main() {
        let before = px * 4;
        let after = (2 - px) * 4;
        if before > 0 {
            fmovs(mem(sink, 0, before, 0), fabin(s, before));
        }
        fmovs(mem(got), fabin(s, 4));
        if after > 0 {
            fmovs(mem(sink, 0, after, 0), fabin(s, after));
        }
    }
}
)";

Machine row_machine(RunMode mode) {
    static const lang::CompileResult cr = lang::compile(kRow, "edge_row.wk");
    EXPECT_TRUE(cr.ok()) << (cr.diagnostics.empty() ? "" : cr.diagnostics.front().message);
    Machine m(MachineConfig{3, 1});
    for (const lang::Placement& p : cr.placements) EXPECT_FALSE(m.load(p.program, {p.x, p.y, p.w, p.h}, p.consts));
    for (const lang::RouteSetting& r : cr.routes) EXPECT_FALSE(m.set_route(r.x, r.y, r.colour, r.route));
    EXPECT_FALSE(m.set_mode(mode));
    return m;
}

std::vector<uint32_t> words(int n) {
    std::vector<uint32_t> w;
    for (int i = 0; i < n; i++) {
        const float f = 1.5f * float(i) - 4;
        uint32_t u;
        std::memcpy(&u, &f, 4);
        w.push_back(u);
    }
    return w;
}

float got(const Machine& m, int x, int k) {
    const Symbol* s = m.program_at(x, 0)->symbol("got");
    float f;
    EXPECT_FALSE(m.read(x, 0, s->offset + uint32_t(4 * k), &f, 4));
    return f;
}

TEST(EdgeFeed, EveryPeGetsItsPartAtTheLinksRate) {
    uint64_t cycles[2] = {};
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        Machine m = row_machine(mode);
        for (int x = 0; x < 3; x++) ASSERT_FALSE(m.launch(x, 0, m.program_at(x, 0)->function_index("main")));
        ASSERT_FALSE(m.feed(0, 0, kWest, 5, words(12), 10.0));
        EXPECT_TRUE(m.feeding());
        EXPECT_FALSE(m.quiescent());
        Machine snapshot = m;   // a copy carries the link's words still to come
        const RunResult r = m.run_until_quiescent(100'000);
        ASSERT_TRUE(r.ok()) << r.fault.to_string();
        EXPECT_FALSE(m.feeding());
        for (int x = 0; x < 3; x++)
            for (int k = 0; k < 4; k++) EXPECT_EQ(got(m, x, k), 1.5f * float(4 * x + k) - 4) << run_mode_name(mode) << " PE " << x;
        // the last word enters at cycle 120 (12 words, one each 10 cycles), then crosses the row
        EXPECT_GE(m.now(), 120u) << run_mode_name(mode);
        EXPECT_LE(m.now(), 140u) << run_mode_name(mode);
        cycles[mode == RunMode::Fast] = m.now();
        ASSERT_TRUE(snapshot.run_until_quiescent(100'000).ok());
        EXPECT_EQ(snapshot.checksum(), m.checksum()) << run_mode_name(mode);
        EXPECT_EQ(m.router_stats(0, 0).in[kWest], 12u) << run_mode_name(mode);
    }
    std::printf("edge link, 12 words at one per 10 cycles: cycle mode %llu cycles, fast mode %llu\n",
                (unsigned long long)cycles[0], (unsigned long long)cycles[1]);
}

TEST(EdgeFeed, ABadLinkIsRefusedWithItsPlace) {
    Machine m = row_machine(RunMode::Cycle);
    Fault f = m.feed(1, 0, kWest, 5, words(4), 10.0);
    EXPECT_NE(f.message.find("does not face off the mesh"), std::string::npos) << f.to_string();
    EXPECT_EQ(f.x, 1);
    f = m.feed(0, 0, kWest, 6, words(4), 10.0);
    EXPECT_EQ(f.kind, FaultKind::NoRoute) << f.to_string();
    EXPECT_EQ(f.colour, 6);
    f = m.feed(0, 0, kWest, 5, words(4), 0.5);
    EXPECT_NE(f.message.find("at most one wavelet a cycle"), std::string::npos) << f.to_string();
    EXPECT_FALSE(m.feeding()) << "nothing refused is queued";
}

// Nothing takes the words: cycle mode's queues fill and the link waits for room forever; fast mode's
// wavelets wait at a CE with no task. Both end in a deadlock fault that names the place.
TEST(EdgeFeed, WordsNothingReadsAreADeadlock) {
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        Machine m = row_machine(mode);
        ASSERT_FALSE(m.feed(0, 0, kWest, 5, words(40), 2.0));
        const RunResult r = m.run_until_quiescent(1'000'000);
        ASSERT_FALSE(r.ok()) << run_mode_name(mode);
        EXPECT_EQ(r.fault.kind, FaultKind::Deadlock) << run_mode_name(mode) << ": " << r.fault.to_string();
        EXPECT_LT(r.fault.cycle, 1'000'000u) << run_mode_name(mode) << ": found, not timed out";
    }
}

}  // namespace
