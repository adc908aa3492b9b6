// fabric_edge_drain_test.cpp: an outbound edge link (Machine::drain) takes words out of the mesh at
// its rate, in both modes: the words and their order exact, the cycles within 1% of each other and
// no fewer than the rate allows; routes off the mesh only while a link is open; a feed -> PE -> drain
// round trip; snapshots keep the link and what it holds.
#include "engine/fabric/machine.h"
#include "engine/fabric/program_builder.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>

namespace {

using namespace wl;

constexpr int kWords = 48;           // words sent
constexpr double kRate = 10.0;   // cycles per wavelet on the outbound link

// A PE's main: kWords words from `buf` out on colour 3 (source), or kWords words in on colour 5 and each
// straight back out on colour 6 (echo). Built by hand: the kernel language keeps routes on the grid.
std::shared_ptr<const Program> source() {
    ProgramBuilder b("source");
    const uint32_t buf = b.array("buf", kWords);
    b.func("main", 4, 0, true);
    b.li(1, int32_t(buf)).li(2, kWords).dmem(0, 1, 2).dfabout(1, 2, 3).fmovs(1, 0).ret();
    auto p = std::make_shared<const Program>(b.finish());
    EXPECT_TRUE(b.errors().empty());
    return p;
}

std::shared_ptr<const Program> echo() {
    ProgramBuilder b("echo");
    b.func("main", 4, 0, true);
    b.li(2, kWords).dfabin(0, 2, 5).dfabout(1, 2, 6).fmovs(1, 0).ret();
    auto p = std::make_shared<const Program>(b.finish());
    EXPECT_TRUE(b.errors().empty());
    return p;
}

uint32_t word(int i) {
    const float f = 0.25f * float(i) - 3;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

std::vector<uint32_t> words(int n) {
    std::vector<uint32_t> w;
    for (int i = 0; i < n; i++) w.push_back(word(i));
    return w;
}

// Three PEs in a row: (2,0) sends its words west, (1,0) passes them on and (0,0) out of its west
// port, through a link open there.
Machine row(RunMode mode) {
    Machine m(MachineConfig{3, 1});
    EXPECT_FALSE(m.load(source(), {2, 0, 1, 1}));
    EXPECT_FALSE(m.set_route(2, 0, 3, Route::of(kR, kW)));
    EXPECT_FALSE(m.set_route(1, 0, 3, Route::of(kE, kW)));
    EXPECT_FALSE(m.set_mode(mode));
    return m;
}

Machine sending_row(RunMode mode, double rate) {
    Machine m = row(mode);
    EXPECT_FALSE(m.drain(0, 0, kWest, 3, rate));
    EXPECT_FALSE(m.set_route(0, 0, 3, Route::of(kE, kW)));
    const std::vector<uint32_t> w = words(kWords);
    EXPECT_FALSE(m.write(2, 0, m.program_at(2, 0)->symbol("buf")->offset, w.data(), w.size() * 4));
    EXPECT_FALSE(m.launch(2, 0, m.program_at(2, 0)->function_index("main")));
    return m;
}

TEST(EdgeDrain, ARowsWordsLeaveInOrderAtTheLinksRate) {
    uint64_t cycles[2] = {};
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        Machine m = sending_row(mode, kRate);
        const RunResult r = m.run_until_quiescent(100'000);
        ASSERT_TRUE(r.ok()) << run_mode_name(mode) << ": " << r.fault.to_string();
        EXPECT_EQ(m.take_drained(0, 0, kWest, 3), words(kWords)) << run_mode_name(mode);
        EXPECT_TRUE(m.take_drained(0, 0, kWest, 3).empty()) << run_mode_name(mode) << ": taking clears";
        const EdgeDrain* d = m.drain_at(0, 0, kWest, 3);
        ASSERT_NE(d, nullptr);
        EXPECT_EQ(d->left, uint64_t(kWords)) << run_mode_name(mode);
        // the first word enters the link a few cycles in, then one every 10: the clock covers the last one's crossing
        EXPECT_GE(d->last, uint64_t((kWords - 1) * kRate)) << run_mode_name(mode);
        EXPECT_GT(m.now(), d->last + uint64_t(kRate)) << run_mode_name(mode);
        EXPECT_GE(m.now(), uint64_t(kWords * kRate)) << run_mode_name(mode);
        EXPECT_EQ(m.router_stats(0, 0).out[kWest], uint64_t(kWords)) << run_mode_name(mode) << ": counted as a link";
        EXPECT_EQ(m.router_stats(1, 0).in[kEast], uint64_t(kWords)) << run_mode_name(mode);
        cycles[mode == RunMode::Fast] = m.now();
    }
    EXPECT_NEAR(double(cycles[1]), double(cycles[0]), 0.01 * double(cycles[0]));
    std::printf("edge drain, %d words at one per %.0f cycles: cycle mode %llu cycles, fast mode %llu\n", kWords, kRate,
                (unsigned long long)cycles[0], (unsigned long long)cycles[1]);
}

// A slow link: the row's queues fill and the sender stalls for hundreds of cycles at a time with
// nothing moving. That is waiting for the link, not a deadlock.
TEST(EdgeDrain, WaitingForASlowLinkIsNotADeadlock) {
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        Machine m = sending_row(mode, 250.5);
        const RunResult r = m.run_until_quiescent(1'000'000);
        ASSERT_TRUE(r.ok()) << run_mode_name(mode) << ": " << r.fault.to_string();
        EXPECT_EQ(m.take_drained(0, 0, kWest, 3), words(kWords)) << run_mode_name(mode);
        // a saturated link keeps its fractional rate: 47 gaps of 250.5 cycles, rounded up once
        const EdgeDrain* d = m.drain_at(0, 0, kWest, 3);
        EXPECT_GE(d->last, uint64_t(47 * 250.5)) << run_mode_name(mode);
        EXPECT_LE(d->last, uint64_t(47 * 250.5) + 20) << run_mode_name(mode);
        EXPECT_TRUE(m.quiescent()) << run_mode_name(mode) << ": an open link keeps nothing busy";
    }
}

TEST(EdgeDrain, RoutesOffTheMeshNeedAnOpenLink) {
    Machine m = row(RunMode::Cycle);
    Fault f = m.set_route(0, 0, 3, Route::of(kE, kW));
    EXPECT_EQ(f.kind, FaultKind::InvalidRoute) << f.to_string();
    EXPECT_NE(f.message.find("tx W leads off the mesh"), std::string::npos) << f.to_string();
    EXPECT_EQ(f.x, 0);
    EXPECT_EQ(f.colour, 3);

    ASSERT_FALSE(m.drain(0, 0, kWest, 3, kRate));
    EXPECT_FALSE(m.set_route(0, 0, 3, Route::of(kE, kW)));
    f = m.set_route(0, 0, 4, Route::of(kE, kW));   // another colour: no link
    EXPECT_EQ(f.kind, FaultKind::InvalidRoute) << f.to_string();
    f = m.set_route(0, 0, 3, Route::of(kE, kN));   // another port: no link
    EXPECT_NE(f.message.find("tx N leads off the mesh"), std::string::npos) << f.to_string();

    f = m.close_drain(0, 0, kWest, 3);
    EXPECT_EQ(f.kind, FaultKind::HostError) << f.to_string();
    EXPECT_NE(f.message.find("still sends tx W"), std::string::npos) << f.to_string();
    ASSERT_FALSE(m.set_route(0, 0, 3, Route::of(kE, kR)));
    EXPECT_FALSE(m.close_drain(0, 0, kWest, 3));
    EXPECT_EQ(m.drain_at(0, 0, kWest, 3), nullptr);
    f = m.set_route(0, 0, 3, Route::of(kE, kW));
    EXPECT_EQ(f.kind, FaultKind::InvalidRoute) << "closed: refused again; " << f.to_string();
    EXPECT_TRUE(m.close_drain(0, 0, kWest, 3)) << "nothing left to close";
}

TEST(EdgeDrain, ABadLinkIsRefusedWithItsPlace) {
    Machine m = row(RunMode::Cycle);
    Fault f = m.drain(1, 0, kWest, 3, kRate);
    EXPECT_NE(f.message.find("does not face off the mesh"), std::string::npos) << f.to_string();
    EXPECT_EQ(f.x, 1);
    f = m.drain(2, 0, kEast, 3, 0.5);
    EXPECT_NE(f.message.find("at most one wavelet a cycle"), std::string::npos) << f.to_string();
    f = m.drain(0, 0, kRamp, 3, kRate);
    EXPECT_NE(f.message.find("bad port"), std::string::npos) << f.to_string();
    ASSERT_FALSE(m.drain(0, 0, kNorth, 3, kRate));
    f = m.drain(0, 0, kNorth, 3, kRate);
    EXPECT_NE(f.message.find("already open"), std::string::npos) << f.to_string();
}

// Words come in at the west edge at one per 4 cycles and the PE sends each straight back out, through
// a link at one per 10: the slower link holds up the PE, which holds up the inbound link.
TEST(EdgeDrain, FedWordsComeBackOutThroughAPe) {
    uint64_t cycles[2] = {};
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        Machine m(MachineConfig{1, 1});
        ASSERT_FALSE(m.load(echo(), {0, 0, 1, 1}));
        ASSERT_FALSE(m.set_route(0, 0, 5, Route::of(kW, kR)));
        ASSERT_FALSE(m.set_mode(mode));
        ASSERT_FALSE(m.drain(0, 0, kNorth, 6, kRate));
        ASSERT_FALSE(m.set_route(0, 0, 6, Route::of(kR, kN)));
        ASSERT_FALSE(m.launch(0, 0, m.program_at(0, 0)->function_index("main")));
        ASSERT_FALSE(m.feed(0, 0, kWest, 5, words(kWords), 4.0));
        Machine snapshot = m;   // a copy carries the open link
        const RunResult r = m.run_until_quiescent(100'000);
        ASSERT_TRUE(r.ok()) << run_mode_name(mode) << ": " << r.fault.to_string();
        EXPECT_EQ(m.take_drained(0, 0, kNorth, 6), words(kWords)) << run_mode_name(mode);
        EXPECT_GE(m.now(), uint64_t(kWords * kRate)) << run_mode_name(mode);
        cycles[mode == RunMode::Fast] = m.now();
        ASSERT_TRUE(snapshot.run_until_quiescent(100'000).ok()) << run_mode_name(mode);
        EXPECT_EQ(snapshot.take_drained(0, 0, kNorth, 6), words(kWords)) << run_mode_name(mode) << ": the snapshot's own link";
        EXPECT_EQ(snapshot.now(), m.now()) << run_mode_name(mode);
    }
    EXPECT_NEAR(double(cycles[1]), double(cycles[0]), 0.01 * double(cycles[0]));
}

// (0,0) keeps a copy of each word as it passes out (tx W and RAMP): a multicast waits for both
// outputs, so the PE gets every word, at the link's pace.
TEST(EdgeDrain, AMulticastIncludingTheLinkWaitsForBoth) {
    uint64_t cycles[2] = {};
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        Machine m = row(mode);
        ProgramBuilder b("keep");
        const uint32_t got = b.array("got", kWords);
        b.func("main", 4, 0, true);
        b.li(1, int32_t(got)).li(2, kWords).dmem(1, 1, 2).dfabin(0, 2, 3).fmovs(1, 0).ret();
        ASSERT_FALSE(m.load(std::make_shared<const Program>(b.finish()), {0, 0, 1, 1}));
        ASSERT_FALSE(m.drain(0, 0, kWest, 3, kRate));
        ASSERT_FALSE(m.set_route(0, 0, 3, Route::of(kE, kW | kR)));
        const std::vector<uint32_t> w = words(kWords);
        ASSERT_FALSE(m.write(2, 0, m.program_at(2, 0)->symbol("buf")->offset, w.data(), w.size() * 4));
        for (int x : {0, 2}) ASSERT_FALSE(m.launch(x, 0, m.program_at(x, 0)->function_index("main")));
        const RunResult r = m.run_until_quiescent(100'000);
        ASSERT_TRUE(r.ok()) << run_mode_name(mode) << ": " << r.fault.to_string();
        EXPECT_EQ(m.take_drained(0, 0, kWest, 3), w) << run_mode_name(mode);
        std::vector<uint32_t> kept(kWords);
        ASSERT_FALSE(m.read(0, 0, got, kept.data(), kept.size() * 4));
        EXPECT_EQ(kept, w) << run_mode_name(mode);
        EXPECT_EQ(m.router_stats(0, 0).out[kRamp], uint64_t(kWords)) << run_mode_name(mode);
        EXPECT_GE(m.now(), uint64_t(kWords * kRate)) << run_mode_name(mode);
        cycles[mode == RunMode::Fast] = m.now();
    }
    EXPECT_NEAR(double(cycles[1]), double(cycles[0]), 0.01 * double(cycles[0]));
}

// A snapshot part-way holds the words that left so far; taking them from one leaves the other's.
TEST(EdgeDrain, SnapshotsCopyTheLinkAndItsWords) {
    Machine m = sending_row(RunMode::Cycle, kRate);
    ASSERT_TRUE(m.run(200).ok());
    std::vector<uint32_t> first = m.take_drained(0, 0, kWest, 3);
    ASSERT_FALSE(first.empty());
    ASSERT_LT(first.size(), size_t(kWords));
    ASSERT_TRUE(m.run(100).ok());
    Machine snap = m;
    Machine assigned = row(RunMode::Cycle);
    assigned = m;
    const std::vector<uint32_t> second = m.take_drained(0, 0, kWest, 3);
    EXPECT_FALSE(second.empty());
    EXPECT_EQ(snap.take_drained(0, 0, kWest, 3), second);
    ASSERT_TRUE(snap.run_until_quiescent(100'000).ok());
    ASSERT_TRUE(assigned.run_until_quiescent(100'000).ok());
    std::vector<uint32_t> all = first;
    all.insert(all.end(), second.begin(), second.end());
    const std::vector<uint32_t> rest = snap.take_drained(0, 0, kWest, 3);
    all.insert(all.end(), rest.begin(), rest.end());
    EXPECT_EQ(all, words(kWords));
    EXPECT_EQ(assigned.take_drained(0, 0, kWest, 3).size(), second.size() + rest.size());
    EXPECT_EQ(assigned.now(), snap.now());
}

// A control wavelet uses the link (it takes a slot, and advances the switch as anywhere) but is not
// kept: the store receives data.
TEST(EdgeDrain, ControlWaveletsUseTheLinkButAreNotKept) {
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        Machine m(MachineConfig{1, 1});
        ASSERT_FALSE(m.drain(0, 0, kSouth, 2, 3.0));
        ASSERT_FALSE(m.set_route(0, 0, 2, Route::of(kN, kS).then(kN, kS)));
        ASSERT_FALSE(m.set_mode(mode));
        ASSERT_FALSE(m.inject(0, 0, kNorth, 2, 7));
        ASSERT_FALSE(m.inject(0, 0, kNorth, 2, 8, true));
        ASSERT_TRUE(m.run_until_quiescent(1'000).ok()) << run_mode_name(mode);
        EXPECT_EQ(m.take_drained(0, 0, kSouth, 2), std::vector<uint32_t>{7}) << run_mode_name(mode);
        EXPECT_EQ(m.drain_at(0, 0, kSouth, 2)->left, 2u) << run_mode_name(mode);
        EXPECT_EQ(m.drain_at(0, 0, kSouth, 2)->last, 3u) << run_mode_name(mode) << ": the second waits for its slot";
        EXPECT_EQ(m.router(0, 0).cur[2], 1) << run_mode_name(mode) << ": the control wavelet advanced the switch";
    }
}

}  // namespace
