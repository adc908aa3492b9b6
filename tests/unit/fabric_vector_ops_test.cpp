// fabric_vector_ops_test.cpp: every vector op gives the same bits whether its
// operands are in memory or on the fabric (a fabin source, a fabout
// destination), in cycle mode and in fast mode: the element formulas are
// written once (vector_ops.h), and this holds the three loops to it.
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace wl;

namespace {

constexpr int kN = 37;

std::vector<float> inputs(int seed) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.25f, -7.75f, 1e-40f, -1e-40f, 1e30f, -1e30f, inf, -inf,
                            std::numeric_limits<float>::quiet_NaN(), 88.5f, -88.5f, 20.0f, -20.0f};
    for (int k = int(v.size()); k < kN; ++k) v.push_back(float((k * 37 + seed * 11) % 29 - 14) * 0.37f);
    if (seed) std::rotate(v.begin(), v.begin() + seed, v.end());
    return v;
}

struct Result {
    std::vector<uint32_t> mem, fab_in, fab_out;
};

// One PE, colours 0 and 1 routed from its ramp back to its ramp. main() runs `op` three ways:
// m = op(a, b) from memory; f1 = op(fabin(a), b) with a sent by a microthread; f2 received
// from op(...) sent on a fabout by a microthread.
Result run_op(Op op, RunMode mode) {
    const bool vecr = op_fmt(op) == Fmt::VecR;
    ProgramBuilder b("vec");
    const uint32_t a = b.array("a", kN), bb = b.array("b", kN), m = b.array("m", kN), f1 = b.array("f1", kN), f2 = b.array("f2", kN);
    b.func("main", 16, 0, true);
    b.li(0, kN);
    b.li(1, int32_t(a)).dmem(0, 1, 0).li(1, int32_t(bb)).dmem(1, 1, 0);
    b.li(1, int32_t(m)).dmem(2, 1, 0).li(1, int32_t(f1)).dmem(3, 1, 0).li(1, int32_t(f2)).dmem(4, 1, 0);
    b.lif(5, 1.5f);
    b.dfabout(5, 0, 0).dfabin(6, 0, 0);
    if (vecr) {   // FSUMS: a sum into a register, stored
        b.fsums(6, 0).li(1, int32_t(m)).st(1, 0, 6);
        b.fmovs(5, 0, kVecAsync).fsums(7, 6).li(1, int32_t(f1)).st(1, 0, 7);
    } else {
        b.vec(op, 2, 0, 1, 5);                                   // memory
        b.fmovs(5, 0, kVecAsync).vec(op, 3, 6, 1, 5);            // a from the fabric
        b.dfabout(7, 0, 1).dfabin(5, 0, 1);
        b.vec(op, 7, 0, 1, 5, kVecAsync).fmovs(4, 5);            // the result through the fabric
    }
    b.ret();
    Program p = b.finish();
    EXPECT_TRUE(b.errors().empty());
    Host h(MachineConfig{.w = 1, .h = 1});
    EXPECT_FALSE(h.machine().set_mode(mode));
    EXPECT_FALSE(h.load(p, {0, 0, 1, 1}));
    EXPECT_FALSE(h.route(0, 0, 0, Route::of(kR, kR)));
    EXPECT_FALSE(h.route(0, 0, 1, Route::of(kR, kR)));
    const std::vector<float> xa = inputs(0), xb = inputs(5);
    EXPECT_FALSE(h.h2d(0, 0, "a", xa.data(), kN));
    EXPECT_FALSE(h.h2d(0, 0, "b", xb.data(), kN));
    EXPECT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(100'000);
    EXPECT_TRUE(r.ok()) << r.fault.to_string();
    Result out;
    const size_t n = vecr ? 1 : kN;
    out.mem.resize(n), out.fab_in.resize(n), out.fab_out.resize(n);
    EXPECT_FALSE(h.d2h_u32(0, 0, "m", out.mem.data(), n));
    EXPECT_FALSE(h.d2h_u32(0, 0, "f1", out.fab_in.data(), n));
    if (!vecr) EXPECT_FALSE(h.d2h_u32(0, 0, "f2", out.fab_out.data(), n));
    else out.fab_out = out.mem;
    // A NaN's sign and payload are not part of the contract: x86 picks an operand's NaN by operand
    // order, which the compiler may swap, and WebAssembly leaves them unspecified. Every NaN is one here.
    for (auto* v : {&out.mem, &out.fab_in, &out.fab_out})
        for (uint32_t& w : *v)
            if ((w & 0x7f800000u) == 0x7f800000u && (w & 0x007fffffu)) w = 0x7fc00000u;
    return out;
}

}  // namespace

TEST(VectorOps, MemoryAndFabricOperandsGiveTheSameBits) {
    int ops = 0;
    for (int k = 0; k < op_count(); ++k) {
        const Op op = Op(k);
        if (!op_is_vector(op)) continue;
        ++ops;
        SCOPED_TRACE(op_info(op).mnemonic);
        const Result c = run_op(op, RunMode::Cycle), f = run_op(op, RunMode::Fast);
        EXPECT_EQ(c.fab_in, c.mem) << "fabin source, cycle mode";
        EXPECT_EQ(c.fab_out, c.mem) << "fabout destination, cycle mode";
        EXPECT_EQ(f.mem, c.mem) << "memory, fast mode";
        EXPECT_EQ(f.fab_in, c.mem) << "fabin source, fast mode";
        EXPECT_EQ(f.fab_out, c.mem) << "fabout destination, fast mode";
        // The inputs reach every element: an element-wise op's results are not all one value.
        if (op_fmt(op) != Fmt::VecR) {
            EXPECT_NE(c.mem.front(), c.mem.back());
        }
    }
    EXPECT_EQ(ops, 16);   // fmacs .. ftanhs, flogs, fsqrts, fdivs, fsums
}
