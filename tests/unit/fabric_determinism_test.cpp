// Determinism: the same program gives the same bits — run after run, in two
// machines side by side, after a snapshot/restore, and natively vs WASM (the
// golden checksum below is the same constant in both builds).
#include "engine/core/fnv.h"
#include "engine/core/wl_math.h"
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"
#include "fabric_fixtures.h"

#include <gtest/gtest.h>
#include <cstring>

using namespace wl;

namespace {

// Elementwise maths (exp, tanh, rsqrt) over a vector, plus a sum: the results
// depend on wl_math, never the platform's libm.
Program elementwise_program(int n) {
    ProgramBuilder b("elem");
    uint32_t x = b.array("x", n), e = b.array("e", n), t = b.array("t", n), q = b.array("q", n), s = b.array("s", 1);
    b.func("main", 6, 0, true);
    b.li(5, n).li(0, int32_t(x)).dmem(0, 0, 5).li(0, int32_t(e)).dmem(1, 0, 5);
    b.li(0, int32_t(t)).dmem(2, 0, 5).li(0, int32_t(q)).dmem(3, 0, 5);
    b.vec(Op::FEXPS, 1, 0).vec(Op::FTANHS, 2, 0).vec(Op::FMULS, 3, 0, 0).vec(Op::FRSQRTS, 3, 3);
    b.fsums(4, 1).li(0, int32_t(s)).st(0, 0, 4).ret();
    return b.finish();
}

struct Reference {
    Host gemv{MachineConfig{.w = Gemv::W, .h = 2}};
    Host elem{MachineConfig{.w = 2, .h = 1}};
    Gemv g;
    void setup() {
        g.setup(gemv);
        ASSERT_FALSE(elem.load(elementwise_program(64), {0, 0, 2, 1}));
        std::vector<float> xs = fixture_values(128, 0.37f, 0.01f);
        ASSERT_FALSE(elem.h2d_rect({0, 0, 2, 1}, "x", xs));
        ASSERT_FALSE(elem.launch({0, 0, 2, 1}, "main"));
    }
    void run() {
        RunResult a = gemv.run_until_quiescent(100000), b = elem.run_until_quiescent(100000);
        ASSERT_TRUE(a.ok()) << a.fault.to_string();
        ASSERT_TRUE(b.ok()) << b.fault.to_string();
    }
    uint64_t checksum() const {
        Fnv1a h;
        uint64_t a = gemv.machine().checksum(), b = elem.machine().checksum();
        h.add(&a, 8);
        h.add(&b, 8);
        return h.value();
    }
};

bool same_stats(const MachineStats& a, const MachineStats& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST(FabricDeterminism, TwoRunsGiveEqualStatsAndMemory) {
    Reference r1, r2;   // two machines of each kind alive at once: no globals
    r1.setup();
    r2.setup();
    r1.run();
    r2.run();
    EXPECT_TRUE(same_stats(r1.gemv.stats(), r2.gemv.stats()));
    EXPECT_TRUE(same_stats(r1.elem.stats(), r2.elem.stats()));
    EXPECT_EQ(r1.checksum(), r2.checksum());
    EXPECT_GT(r1.gemv.stats().hops, 0u);
}

// The same constant natively and in the WASM build (tests/unit runs under node too).
TEST(FabricDeterminism, GoldenChecksumNativeAndWasm) {
    Reference r;
    r.setup();
    r.run();
    const MachineStats s = r.gemv.stats();
    EXPECT_EQ(s.cycles, 130u);
    EXPECT_EQ(s.hops, 80u);   // 16 x south + 24 east + 40 deliveries
    EXPECT_EQ(r.checksum(), 0xc3d6f92aaf1f7a52ull) << std::hex << "checksum 0x" << r.checksum();
}

TEST(FabricDeterminism, SnapshotRestoreReplaysTheSameBits) {
    Reference r;
    r.setup();
    ASSERT_TRUE(r.gemv.run(20).ok());
    Machine snap = r.gemv.snapshot();
    r.run();
    uint64_t want = r.gemv.machine().checksum();
    r.gemv.restore(snap);   // into the same arena: SRAM the later cycles used must be zero again
    EXPECT_EQ(r.gemv.machine().checksum(), snap.checksum());
    EXPECT_EQ(r.gemv.machine().now(), 20u);
    ASSERT_TRUE(r.gemv.run_until_quiescent(100000).ok());
    EXPECT_EQ(r.gemv.machine().checksum(), want);
    // The snapshot itself did not move.
    EXPECT_EQ(snap.now(), 20u);
}

TEST(FabricDeterminism, ElementwiseMathsUsesWlMath) {
    Reference r;
    r.setup();
    r.run();
    std::vector<float> x(64), e(64), t(64), q(64);
    ASSERT_FALSE(r.elem.d2h(1, 0, "x", x.data(), 64));
    ASSERT_FALSE(r.elem.d2h(1, 0, "e", e.data(), 64));
    ASSERT_FALSE(r.elem.d2h(1, 0, "t", t.data(), 64));
    ASSERT_FALSE(r.elem.d2h(1, 0, "q", q.data(), 64));
    float sum = 0.0f;
    for (int k = 0; k < 64; ++k) {
        EXPECT_EQ(e[k], math::expf(x[k]));
        EXPECT_EQ(t[k], math::tanhf(x[k]));
        EXPECT_EQ(q[k], math::rsqrtf(x[k] * x[k]));
        sum = sum + e[k];
    }
    float s = 0;
    ASSERT_FALSE(r.elem.d2h(1, 0, "s", &s, 1));
    EXPECT_EQ(s, sum);
}
