// Hand-built programs on the fabric, checked bit for bit against plain C++:
// row broadcast, chain reduction, GEMV across a row (x streamed in, partial
// sums flowing east) and a 2D 5-point stencil step.
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"
#include "fabric_fixtures.h"

#include <gtest/gtest.h>
#include <vector>

using namespace wl;

namespace {

std::vector<float> ramp_values(size_t n, float scale, float bias) {
    std::vector<float> v(n);
    for (size_t k = 0; k < n; ++k) v[k] = float(int(k * 7 % 11) - 5) * scale + bias;
    return v;
}

void expect_ok(const Fault& f) { ASSERT_FALSE(f) << f.to_string(); }

}  // namespace

// PE 0 streams x east on colour 0; every other PE on the row copies it into y.
TEST(FabricPrograms, RowBroadcast) {
    const int W = 6, N = 20;
    ProgramBuilder b("bcast");
    uint32_t x = b.array("x", N), y = b.array("y", N);
    b.func("main", 6, 0, true);
    int recv = b.label();
    b.li(5, N).peid(0, 0).bnz(0, recv);
    b.li(1, int32_t(x)).dmem(0, 1, 5).dfabout(1, 5, 0).fmovs(1, 0).ret();   // sender
    b.bind(recv).li(1, int32_t(y)).dmem(0, 1, 5).dfabin(1, 5, 0).fmovs(0, 1).ret();
    Program p = b.finish();
    ASSERT_TRUE(b.errors().empty());

    Host h(MachineConfig{.w = W, .h = 1});
    expect_ok(h.load(p, {0, 0, W, 1}));
    expect_ok(h.route(0, 0, 0, Route::of(kR, kE)));
    for (int i = 1; i < W - 1; ++i) expect_ok(h.route(i, 0, 0, Route::of(kW, kR | kE)));
    expect_ok(h.route(W - 1, 0, 0, Route::of(kW, kR)));
    std::vector<float> xs = ramp_values(N, 0.25f, 1.0f);
    expect_ok(h.h2d(0, 0, "x", xs.data(), N));
    expect_ok(h.launch({0, 0, W, 1}, "main"));
    RunResult r = h.run_until_quiescent(100000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    for (int i = 1; i < W; ++i) {
        std::vector<float> ys(N);
        expect_ok(h.d2h(i, 0, "y", ys.data(), N));
        EXPECT_EQ(ys, xs) << "PE " << i;
    }
    // A stream of N wavelets over W-1 hops: about N + W cycles, not N * W.
    EXPECT_GT(r.cycles, uint64_t(N + W));
    EXPECT_LT(r.cycles, uint64_t(N + W + 20));
    EXPECT_EQ(h.machine().router(0, 0).stats.out[kEast], uint64_t(N));
}

// Partial sums flow east on alternating colours (0, 1): out = ((v0 + v1) + v2) + ...
static Program chain_program(int N) {
    ProgramBuilder b("chain");
    uint32_t v = b.array("v", N), out = b.array("out", N);
    b.func("main", 8, 0, true);
    int odd = b.label(), last_even = b.label(), last_odd = b.label();
    // r0 = x, r1 = width - 1, r2 = (x == last), r5 = N
    b.li(5, N).peid(0, 0).peid(1, 2).addi(1, 1, -1).rrr(Op::IEQ, 2, 0, 1);
    b.li(3, int32_t(v)).dmem(0, 3, 5).li(3, int32_t(out)).dmem(3, 3, 5);
    b.li(4, 1).rrr(Op::IAND, 4, 0, 4).bnz(4, odd);
    // even x: receive on colour 1 (from the odd PE to the west), send on colour 0
    b.dfabin(1, 5, 1).dfabout(2, 5, 0).bnz(2, last_even);
    int first = b.label();
    b.bz(0, first);
    b.fadds(2, 1, 0).ret();
    b.bind(first).fmovs(2, 0).ret();
    b.bind(last_even).fadds(3, 1, 0).ret();
    // odd x: receive on colour 0, send on colour 1
    b.bind(odd).dfabin(1, 5, 0).dfabout(2, 5, 1).bnz(2, last_odd);
    b.fadds(2, 1, 0).ret();
    b.bind(last_odd).fadds(3, 1, 0).ret();
    return b.finish();
}

TEST(FabricPrograms, ChainReduction) {
    const int W = 7, N = 16;
    Program p = chain_program(N);
    Host h(MachineConfig{.w = W, .h = 1});
    expect_ok(h.load(p, {0, 0, W, 1}));
    for (int i = 0; i < W; ++i) {
        int out = i % 2, in = 1 - out;
        if (i < W - 1) expect_ok(h.route(i, 0, out, Route::of(kR, kE)));
        if (i > 0) expect_ok(h.route(i, 0, in, Route::of(kW, kR)));
    }
    std::vector<std::vector<float>> vs;
    for (int i = 0; i < W; ++i) {
        vs.push_back(ramp_values(N, 0.1f * float(i + 1), float(i) * 0.3f));
        expect_ok(h.h2d(i, 0, "v", vs.back().data(), N));
    }
    expect_ok(h.launch({0, 0, W, 1}, "main"));
    RunResult r = h.run_until_quiescent(100000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    std::vector<float> want = vs[0];
    for (int i = 1; i < W; ++i)
        for (int k = 0; k < N; ++k) want[k] = want[k] + vs[i][k];
    std::vector<float> got(N);
    expect_ok(h.d2h(W - 1, 0, "out", got.data(), N));
    EXPECT_EQ(got, want);
}

TEST(FabricPrograms, GemvRowXStreamedPartialSumsEast) {
    Gemv g;
    Host h(MachineConfig{.w = Gemv::W, .h = 2});
    g.setup(h);
    RunResult r = h.run_until_quiescent(100000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    std::vector<float> got(Gemv::M);
    ASSERT_FALSE(h.d2h(Gemv::W - 1, 1, "out", got.data(), Gemv::M));
    EXPECT_EQ(got, g.expected());
    EXPECT_EQ(h.stats().tasks, uint64_t(Gemv::W * 2 + Gemv::N + Gemv::W));   // launches, x tasks, reduce tasks
}

// One Jacobi-style step v = c0*u + c1*(uN + uS + uE + uW) on a P x Q grid, a vector of L
// independent cells per PE, zero outside. Each direction has two colours alternating by
// parity (a PE never receives and sends the same colour): east 4/5, west 6/7, south 8/9, north 10/11.
struct Stencil {
    static constexpr int P = 4, Q = 3, L = 6;
    static constexpr float c0 = 0.5f, c1 = 0.125f;
    static int east(int x) { return 4 + x % 2; }
    static int west(int x) { return 6 + x % 2; }
    static int south(int y) { return 8 + y % 2; }
    static int north(int y) { return 10 + y % 2; }

    static Program program(int x, int y) {
        ProgramBuilder b("stencil");
        uint32_t u = b.array("u", L), v = b.array("v", L), acc = b.array("acc", L);
        b.func("main", 8, 0, true);
        b.li(5, L).li(0, int32_t(u)).dmem(0, 0, 5).li(0, int32_t(v)).dmem(1, 0, 5).li(0, int32_t(acc)).dmem(2, 0, 5);
        // sends: one async fmovs per existing neighbour (4 microthreads)
        int ds = 3;
        auto out = [&](int colour) { b.dfabout(ds, 5, colour).fmovs(ds, 0, kVecAsync); ++ds; };
        if (x + 1 < P) out(east(x));
        if (x > 0) out(west(x));
        if (y + 1 < Q) out(south(y));
        if (y > 0) out(north(y));
        // acc = 0, then + N, S, E, W in that order
        b.lif(1, 0.0f).vec(Op::FSCALES, 2, 2, 0, 1);
        auto in = [&](int colour) { b.dfabin(7, 5, colour).fadds(2, 2, 7); };
        if (y > 0) in(south(y - 1));     // from the north neighbour, travelling south
        if (y + 1 < Q) in(north(y + 1)); // from the south neighbour
        if (x + 1 < P) in(west(x + 1));  // from the east neighbour
        if (x > 0) in(east(x - 1));      // from the west neighbour
        b.lif(1, c1).vec(Op::FSCALES, 1, 2, 0, 1).lif(1, c0).fmacs(1, 1, 0, 1).ret();
        return b.finish();
    }
};

TEST(FabricPrograms, Stencil5PointStep) {
    using S = Stencil;
    Host h(MachineConfig{.w = S::P, .h = S::Q});
    std::vector<float> u(S::P * S::Q * S::L);
    for (size_t k = 0; k < u.size(); ++k) u[k] = float(int(k * 13 % 17) - 8) * 0.25f;
    auto U = [&](int x, int y, int l) { return (x < 0 || y < 0 || x >= S::P || y >= S::Q) ? 0.0f : u[(y * S::P + x) * S::L + l]; };
    for (int y = 0; y < S::Q; ++y)
        for (int x = 0; x < S::P; ++x) {
            ASSERT_FALSE(h.load(S::program(x, y), {x, y, 1, 1}));
            if (x + 1 < S::P) { ASSERT_FALSE(h.route(x, y, S::east(x), Route::of(kR, kE))); }
            if (x > 0) { ASSERT_FALSE(h.route(x, y, S::east(x - 1), Route::of(kW, kR))); }
            if (x > 0) { ASSERT_FALSE(h.route(x, y, S::west(x), Route::of(kR, kW))); }
            if (x + 1 < S::P) { ASSERT_FALSE(h.route(x, y, S::west(x + 1), Route::of(kE, kR))); }
            if (y + 1 < S::Q) { ASSERT_FALSE(h.route(x, y, S::south(y), Route::of(kR, kS))); }
            if (y > 0) { ASSERT_FALSE(h.route(x, y, S::south(y - 1), Route::of(kN, kR))); }
            if (y > 0) { ASSERT_FALSE(h.route(x, y, S::north(y), Route::of(kR, kN))); }
            if (y + 1 < S::Q) { ASSERT_FALSE(h.route(x, y, S::north(y + 1), Route::of(kS, kR))); }
            ASSERT_FALSE(h.h2d(x, y, "u", &u[(y * S::P + x) * S::L], S::L));
        }
    ASSERT_FALSE(h.launch({0, 0, S::P, S::Q}, "main"));
    RunResult r = h.run_until_quiescent(100000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    for (int y = 0; y < S::Q; ++y)
        for (int x = 0; x < S::P; ++x) {
            std::vector<float> got(S::L), want(S::L);
            ASSERT_FALSE(h.d2h(x, y, "v", got.data(), S::L));
            for (int l = 0; l < S::L; ++l) {
                float acc = 0.0f;
                if (y > 0) acc = acc + U(x, y - 1, l);
                if (y + 1 < S::Q) acc = acc + U(x, y + 1, l);
                if (x + 1 < S::P) acc = acc + U(x + 1, y, l);
                if (x > 0) acc = acc + U(x - 1, y, l);
                float v = acc * S::c1;
                want[l] = v + U(x, y, l) * S::c0;
            }
            EXPECT_EQ(got, want) << "PE (" << x << "," << y << ")";
        }
}
