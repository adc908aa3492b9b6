// fabric_map_test.cpp: the map instruction (isa.h) issues its op once a pass with each pass's
// scalar and stepped DSDs: the same bits as the loop it replaces, at 1 + passes x (1 + the op's
// cost) cycles, the same in cycle and fast mode; its steps end at 0; what cannot be mapped is
// refused on load or faults with its place.
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

#include <gtest/gtest.h>

#include <vector>

using namespace wl;

namespace {

constexpr int kCols = 5, kLen = 6;   // y[kLen] += A[:, j] * x[j] for j < kCols; A's columns kLen apart

struct Out {
    std::vector<float> y;
    uint64_t cycles = 0, instrs = 0;
    Fault fault;
};

// y += A x on one PE, as a map (mapped) or as a loop of fmacs (not): the loop's ld, fmacs, steps and
// branch. A column's elements `stride` words apart (2: map's general path, not its unit-stride one).
Program matvec(bool mapped, int passes = kCols, int stride = 1) {
    ProgramBuilder b("mv");
    const uint32_t A = b.array("A", kCols * kLen), x = b.array("x", kCols), y = b.array("y", kLen);
    b.func("main", 12, 0, true);
    b.li(0, kLen / stride).li(1, int32_t(y)).dmem(0, 1, 0, stride).li(1, int32_t(A)).dmem(1, 1, 0, stride);
    b.li(2, passes).li(3, int32_t(x)).li(4, kLen * 4);
    if (mapped) {
        b.dstep(1, 4).map(5, 2, 3, 4).fmacs(0, 0, 1, 5);
    } else {
        const int top = b.label(), test = b.label();
        b.li(6, 0).jmp(test).bind(top);
        b.ld(5, 3, 0).fmacs(0, 0, 1, 5).addi(3, 3, 4).daddr(1, 4).addi(6, 6, 1).bind(test).blt(6, 2, top);
    }
    b.ret();
    Program p = b.finish();
    EXPECT_TRUE(b.errors().empty());
    return p;
}

Out run(const Program& p, RunMode mode) {
    Host h(MachineConfig{.w = 1, .h = 1});
    EXPECT_FALSE(h.machine().set_mode(mode));
    Out o;
    if ((o.fault = h.load(p, {0, 0, 1, 1}))) return o;
    std::vector<float> A(kCols * kLen), x(kCols), y(kLen);
    for (size_t k = 0; k < A.size(); ++k) A[k] = float(k % 7) * 0.37f - 1.1f;
    for (int k = 0; k < kCols; ++k) x[size_t(k)] = float(k) * 1.25f - 2.0f;
    for (int k = 0; k < kLen; ++k) y[size_t(k)] = float(k) * 0.5f;
    EXPECT_FALSE(h.h2d(0, 0, "A", A.data(), A.size()));
    EXPECT_FALSE(h.h2d(0, 0, "x", x.data(), x.size()));
    EXPECT_FALSE(h.h2d(0, 0, "y", y.data(), y.size()));
    EXPECT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    const RunResult r = h.run_until_quiescent(100'000);
    o.fault = r.fault;
    o.cycles = r.cycles;
    o.instrs = h.machine().core(0, 0).stats.instrs;
    o.y.resize(kLen);
    EXPECT_FALSE(h.d2h(0, 0, "y", o.y.data(), kLen));
    return o;
}

// main() with d0 = a[0..4) of an array a of 8, then what build adds.
template <class Build>
Program with_a(Build build) {
    ProgramBuilder b("bad");
    b.array("a", 8);
    b.func("main", 8, 0, true);
    b.li(0, 4).li(1, 0).dmem(0, 1, 0);
    build(b);
    b.ret();
    return b.finish();
}

}  // namespace

TEST(Map, IssuesItsOpOncePassWithTheLoopsBitsInBothModes) {
    const Out loop = run(matvec(false), RunMode::Cycle);
    ASSERT_FALSE(loop.fault) << loop.fault.to_string();
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        const Out m = run(matvec(true), mode);
        ASSERT_FALSE(m.fault) << m.fault.to_string();
        EXPECT_EQ(m.y, loop.y);
        // A pass of the loop is ld, fmacs, two steps, the counter and the branch: 5 cycles beside the
        // fmacs's 1 + kLen; of the map, 1. Before the passes: the loop's counter, jump and first test (3),
        // dstep and map (2).
        EXPECT_EQ(loop.cycles - m.cycles, uint64_t(kCols) * 4 + 1);
        EXPECT_EQ(loop.instrs - m.instrs, uint64_t(kCols) * 5 + 1);
    }
    const Out fast = run(matvec(true), RunMode::Fast), cycle = run(matvec(true), RunMode::Cycle);
    EXPECT_EQ(fast.cycles, cycle.cycles);
    // Strided operands take map's general path, a pass at a time: the same bits and cycles again.
    const Out strided_loop = run(matvec(false, kCols, 2), RunMode::Cycle);
    ASSERT_FALSE(strided_loop.fault) << strided_loop.fault.to_string();
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        const Out m = run(matvec(true, kCols, 2), mode);
        ASSERT_FALSE(m.fault) << m.fault.to_string();
        EXPECT_EQ(m.y, strided_loop.y);
        EXPECT_NE(m.y, loop.y);
        EXPECT_EQ(strided_loop.cycles - m.cycles, uint64_t(kCols) * 4 + 1);
    }
}

TEST(Map, NoPassesIssueNothingAndStepsEndAtZero) {
    for (int passes : {0, -3}) {
        const Out m = run(matvec(true, passes), RunMode::Cycle);
        ASSERT_FALSE(m.fault) << m.fault.to_string();
        for (int k = 0; k < kLen; ++k) EXPECT_EQ(m.y[size_t(k)], float(k) * 0.5f);
    }
    Host h(MachineConfig{.w = 1, .h = 1});
    ASSERT_FALSE(h.load(matvec(true, 2), {0, 0, 1, 1}));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    ASSERT_TRUE(h.run_until_quiescent(10'000).ok());
    const Core& c = h.machine().core(0, 0);
    EXPECT_EQ(c.dstep[1], 0u);
    EXPECT_EQ(c.dsd[1].base, 0u + 2 * kLen * 4);   // A's DSD ends stepped past the passes, as a DSR that advanced
}

TEST(Map, ARefusedShapeIsRefusedOnLoad) {
    auto refused = [](auto build) {
        Host h(MachineConfig{.w = 1, .h = 1});
        const Fault f = h.load(with_a(build), {0, 0, 1, 1});
        return f ? f.to_string() : std::string();
    };
    EXPECT_NE(refused([](ProgramBuilder& b) { b.map(kNoReg, 0).addi(1, 1, 1); }).find("the next instruction must be a vector op"), std::string::npos);
    EXPECT_NE(refused([](ProgramBuilder& b) { b.map(kNoReg, 0).fmovs(0, 0, kVecAsync); }).find("without async"), std::string::npos);
    EXPECT_NE(refused([](ProgramBuilder& b) { b.map(3, 0, 1).fmovs(0, 0); }).find("only an op with a scalar"), std::string::npos);
    EXPECT_NE(refused([](ProgramBuilder& b) {
                  const int op = b.label();
                  b.jmp(op).map(kNoReg, 0).bind(op).fmovs(0, 0);
              }).find("jumps to the op of the map"),
              std::string::npos);
    EXPECT_EQ(refused([](ProgramBuilder& b) { b.map(kNoReg, 0).fmovs(0, 0); }), "");
}

TEST(Map, AFabricOperandOrAScalarOutsideSramFaultsAtTheMap) {
    auto fault_of = [](auto build) {   // the run's fault
        Host h(MachineConfig{.w = 1, .h = 1});
        EXPECT_FALSE(h.load(with_a(build), {0, 0, 1, 1}));
        EXPECT_FALSE(h.launch({0, 0, 1, 1}, "main"));
        return h.run_until_quiescent(10'000).fault;
    };
    const Fault fab = fault_of([](ProgramBuilder& b) { b.dfabin(1, 0, 3).li(2, 2).map(kNoReg, 2).fmovs(0, 1); });
    EXPECT_EQ(fab.kind, FaultKind::BadProgram);
    EXPECT_NE(fab.message.find("not a mem1d DSD"), std::string::npos) << fab.to_string();
    const Fault far = fault_of([](ProgramBuilder& b) { b.li(2, 3).li(3, int32_t(kSramBytesPerPe - 8)).map(4, 2, 3, 4).vec(Op::FSCALES, 0, 0, 0, 4); });
    EXPECT_EQ(far.kind, FaultKind::OutOfBounds);
    EXPECT_NE(far.message.find("pass 2's scalar"), std::string::npos) << far.to_string();
    EXPECT_EQ(far.loc.line, 6);   // the map's (pc 5: the builder numbers lines pc + 1)
}
