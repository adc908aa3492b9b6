// The instruction table and what hangs off it (docs, disassembler), scalar
// semantics, calls, control wavelets, the trace, and the memory budget.
#include "engine/core/wl_math.h"
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

#include <gtest/gtest.h>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

using namespace wl;

TEST(FabricIsa, CostModelDocIsGeneratedFromTheTable) {
    std::ifstream f(std::string(WAFERLAB_SOURCE_DIR) + "/docs/cost-model.md");
    ASSERT_TRUE(f.good()) << "docs/cost-model.md missing";
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_EQ(ss.str(), isa_markdown()) << "regenerate: waferlab-cli isa markdown > docs/cost-model.md";
}

TEST(FabricIsa, MnemonicsAreUniqueAndRoundTrip) {
    std::set<std::string> seen;
    for (int k = 0; k < op_count(); ++k) {
        const OpInfo& o = op_info(Op(k));
        EXPECT_TRUE(seen.insert(o.mnemonic).second) << o.mnemonic;
        Op back;
        ASSERT_TRUE(op_from_mnemonic(o.mnemonic, &back));
        EXPECT_EQ(int(back), k);
        EXPECT_GE(o.base_cycles, 1);
    }
    EXPECT_TRUE(op_is_vector(Op::FMACS));
    EXPECT_FALSE(op_is_vector(Op::FADD));
}

TEST(FabricIsa, DisassemblerShowsMnemonicsOperandsAndLocations) {
    ProgramBuilder b("d", "k.wl");
    b.array("y", 4);
    b.func("main", 4, 0, true).at(3, 5).li(1, 4).la(0, "y").dmem(2, 0, 1).fmacs(2, 2, 2, 1, kVecAsync | kVecActivate, 24).ret();
    Program p = b.finish();
    std::string d = p.disassemble();
    EXPECT_NE(d.find("main (exported)"), std::string::npos) << d;
    EXPECT_NE(d.find("dmem     d2, base r0, len r1, stride 1"), std::string::npos) << d;
    EXPECT_NE(d.find("fmacs    d2, d2, d2, r1 async then activate 24"), std::string::npos) << d;
    EXPECT_NE(d.find("; k.wl:3:5"), std::string::npos) << d;
}

// Scalar semantics, including the edge cases a kernel compiler relies on.
TEST(FabricIsa, ScalarOpsCallsAndEdgeCases) {
    ProgramBuilder b("scalar");
    uint32_t out = b.array("out", 16, ElemType::U32);
    b.func("twice_plus", 3, 2).rrr(Op::IADD, 2, 0, 0).rrr(Op::IADD, 2, 2, 1).ret(2);   // 2a + b
    b.func("main", 12, 0, true);
    b.li(10, int32_t(out));
    b.li(0, 7).li(1, 0).rrr(Op::IDIV, 2, 0, 1).st(10, 0, 2);                   // 7/0 = 0
    b.li(0, INT32_MIN).li(1, -1).rrr(Op::IDIV, 2, 0, 1).st(10, 4, 2);          // INT_MIN/-1 = INT_MIN
    b.li(0, -7).li(1, 2).rrr(Op::ISHR, 2, 0, 1).st(10, 8, 2);                  // -7 >> 2 = -2
    b.lif(0, 2.5f).lif(1, -1.25f).rrr(Op::FMUL, 2, 0, 1).st(10, 12, 2);        // -3.125
    b.lif(0, NAN).rr(Op::FTOI, 2, 0).st(10, 16, 2);                            // 0
    b.lif(0, 3e9f).rr(Op::FTOI, 2, 0).st(10, 20, 2);                           // INT_MAX
    b.lif(0, 1.5f).rr(Op::FEXP, 2, 0).st(10, 24, 2);                           // wl_math
    b.li(4, 5).li(5, 3).call(6, "twice_plus", 4, 2).st(10, 28, 6);             // 13
    b.li(0, -3).rr(Op::ITOF, 2, 0).st(10, 32, 2);                              // -3.0f
    b.lif(0, 2.0f).lif(1, 3.0f).rrr(Op::FLT, 2, 0, 1).st(10, 36, 2);           // 1
    b.peid(2, 0).st(10, 40, 2).peid(2, 3).st(10, 44, 2);                       // x, rect height
    b.ret();
    Host h(MachineConfig{.w = 3, .h = 2});
    ASSERT_FALSE(h.load(b.finish(), {1, 0, 2, 2}));
    ASSERT_FALSE(h.launch({2, 1, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    uint32_t o[12];
    ASSERT_FALSE(h.d2h_u32(2, 1, "out", o, 12));
    auto f = [](uint32_t u) { float v; std::memcpy(&v, &u, 4); return v; };
    EXPECT_EQ(o[0], 0u);
    EXPECT_EQ(o[1], uint32_t(INT32_MIN));
    EXPECT_EQ(int32_t(o[2]), -2);
    EXPECT_EQ(f(o[3]), -3.125f);
    EXPECT_EQ(o[4], 0u);
    EXPECT_EQ(o[5], uint32_t(INT32_MAX));
    EXPECT_EQ(f(o[6]), math::expf(1.5f));
    EXPECT_EQ(o[7], 13u);
    EXPECT_EQ(f(o[8]), -3.0f);
    EXPECT_EQ(o[9], 1u);
    EXPECT_EQ(o[10], 1u);   // (2,1) is x = 1 in a rectangle starting at x = 1
    EXPECT_EQ(o[11], 2u);
    // Costs come from the table: idiv is 8 cycles, not 1.
    EXPECT_GT(h.machine().core(2, 1).stats.busy, h.machine().core(2, 1).stats.instrs);
}

// A vector op's time is base + n * per_elem / simd, and n elements are one op.
TEST(FabricIsa, VectorOpCostFollowsTheTable) {
    auto run = [](int simd, int n) {
        ProgramBuilder b("v");
        uint32_t x = b.array("x", uint32_t(n));
        b.func("main", 4, 0, true).li(0, int32_t(x)).li(1, n).dmem(0, 0, 1).vec(Op::FEXPS, 0, 0).ret();
        Host h(MachineConfig{.w = 1, .h = 1, .simd_fp32 = simd});
        EXPECT_FALSE(h.load(b.finish(), {0, 0, 1, 1}));
        EXPECT_FALSE(h.launch({0, 0, 1, 1}, "main"));
        RunResult r = h.run_until_quiescent(100000);
        EXPECT_TRUE(r.ok());
        EXPECT_EQ(h.machine().core(0, 0).stats.elems, uint64_t(n));
        return r.cycles;
    };
    uint64_t c1 = run(1, 100), c2 = run(2, 100);
    // fexps: 20 cycles per element; halving the time with simd 2.
    EXPECT_EQ(c1 - c2, 1000u);
}

// A control wavelet advances a colour's switch position: later data goes the new way.
TEST(FabricIsa, ControlWaveletSwitchesTheRoute) {
    ProgramBuilder b("sw");
    b.array("got", 4, ElemType::U32);
    b.data_task(0, "on_data");
    b.func("main", 2, 0, true).li(0, 11).send(0, 0).li(0, 22).sendc(0, 0).li(0, 33).send(0, 0).ret();
    b.func("on_data", 4, 1).li(1, 0).ld(2, 1).addi(2, 2, 1).st(1, 0, 2).li(3, 4).rrr(Op::IMUL, 3, 3, 2).st(3, 0, 0).ret();
    Host h(MachineConfig{.w = 3, .h = 1});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 3, 1}));
    ASSERT_FALSE(h.route(0, 0, 0, Route::of(kR, kE)));
    ASSERT_FALSE(h.route(1, 0, 0, Route::of(kW, kE).then(kW, kR)));
    ASSERT_FALSE(h.route(2, 0, 0, Route::of(kW, kR)));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    uint32_t far[4], near[4];
    ASSERT_FALSE(h.d2h_u32(2, 0, "got", far, 4));
    ASSERT_FALSE(h.d2h_u32(1, 0, "got", near, 4));
    EXPECT_EQ(far[0], 2u);   // data 11 and the control wavelet 22 went east
    EXPECT_EQ(far[1], 11u);
    EXPECT_EQ(far[2], 22u);
    EXPECT_EQ(near[0], 1u);  // after the switch, 33 stopped at (1,0)
    EXPECT_EQ(near[1], 33u);
    EXPECT_EQ(h.machine().router(1, 0).cur[0], 1);
}

TEST(FabricIsa, TraceIsBoundedAndKeepsTheNewest) {
    ProgramBuilder b("t");
    b.data_task(0, "sink");
    b.func("main", 2, 0, true);
    for (int k = 0; k < 10; ++k) b.li(0, k).send(0, 0);
    b.ret();
    b.func("sink", 1, 1).ret();
    Host h(MachineConfig{.w = 2, .h = 1, .trace_capacity = 8});
    ASSERT_FALSE(h.load(b.finish(), {0, 0, 2, 1}));
    ASSERT_FALSE(h.route(0, 0, 0, Route::of(kR, kE)));
    ASSERT_FALSE(h.route(1, 0, 0, Route::of(kW, kR)));
    ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    ASSERT_TRUE(h.run_until_quiescent(1000).ok());
    const Trace& t = h.machine().trace();
    auto ev = t.events();
    EXPECT_EQ(ev.size(), 8u);
    EXPECT_GT(t.dropped(), 0u);
    for (size_t k = 1; k < ev.size(); ++k) EXPECT_LE(ev[k - 1].cycle, ev[k].cycle);
    EXPECT_EQ(ev.back().kind, TraceKind::TaskEnd);
    EXPECT_NE(Trace::format(ev.back()).find("task 0 end"), std::string::npos) << Trace::format(ev.back());
}

TEST(FabricMemory, StateBeyondSramFitsTheBudget) {
    EXPECT_LE(Machine::state_bytes_per_pe(), 4096u) << "docs/engine.md states this budget";
    std::printf("[ info ] state beyond SRAM: %zu bytes per PE (router %zu, CE %zu)\n", Machine::state_bytes_per_pe(), sizeof(Router),
                sizeof(Core));
}

// 256 x 256 PEs: 3 GiB of SRAM in one lazily committed arena, so construction is cheap.
TEST(FabricMemory, Mesh256x256ConstructsAndRuns) {
#ifdef __EMSCRIPTEN__
    GTEST_SKIP() << "the browser build targets 64 x 64";
#else
    Host h(MachineConfig{.w = 256, .h = 256});
    ASSERT_FALSE(h.machine().fault()) << h.machine().fault().to_string();
    ProgramBuilder b("corner");
    b.data_task(1, "sink");
    b.func("main", 2, 0, true).li(0, 9).send(0, 1).ret();
    b.func("sink", 2, 1).li(1, 0).st(1, 0, 0).ret();
    b.array("v", 1);
    Program p = b.finish();
    ASSERT_FALSE(h.load(p, {250, 255, 6, 1}));
    ASSERT_FALSE(h.route(250, 255, 1, Route::of(kR, kE)));
    for (int x = 251; x < 255; ++x) ASSERT_FALSE(h.route(x, 255, 1, Route::of(kW, kE)));
    ASSERT_FALSE(h.route(255, 255, 1, Route::of(kW, kR)));
    ASSERT_FALSE(h.launch({250, 255, 1, 1}, "main"));
    RunResult r = h.run_until_quiescent(1000);
    ASSERT_TRUE(r.ok()) << r.fault.to_string();
    float v = 0;
    uint32_t u = 0;
    ASSERT_FALSE(h.machine().read(255, 255, 0, &u, 4));
    (void)v;
    EXPECT_EQ(u, 9u);
    EXPECT_EQ(r.cycles, 15u);   // send at 2, task at 2 + 5 + 2, sink li/st/ret (1+1+2), idle check
#endif
}

// The table's kind and register columns against what the ops do (isa.h): a plain op touches only
// this PE; a straight one cannot branch, touch SRAM or fault; reads and writes name the fields the
// disassembler prints as registers.
TEST(Isa, KindsAndRegisterColumnsAgreeWithTheOps) {
    using namespace wl;
    for (Op op : {Op::CALL, Op::RET, Op::SEND, Op::SENDC, Op::RECV, Op::ACTIVATE, Op::BLOCK, Op::UNBLOCK}) EXPECT_FALSE(op_is_plain(op)) << op_info(op).mnemonic;
    for (Op op : {Op::LD, Op::ST, Op::JMP, Op::BLT, Op::FADD, Op::DFABIN}) {
        EXPECT_TRUE(op_is_plain(op)) << op_info(op).mnemonic;
        EXPECT_FALSE(op_is_straight(op)) << op_info(op).mnemonic;
    }
    for (Op op : {Op::IADDI, Op::DMEM, Op::DADDR, Op::LDP, Op::NOP}) EXPECT_TRUE(op_is_straight(op)) << op_info(op).mnemonic;
    for (int k = 0; k < op_count(); ++k) {
        const Op op = Op(k);
        EXPECT_EQ(op_kind(op) == OpKind::Vector, op_is_vector(op)) << op_info(op).mnemonic;
        if (op_kind(op) == OpKind::Straight) {
            EXPECT_FALSE(op_reads(op) & op_regs::Args) << op_info(op).mnemonic;
        }
    }
    Instr in;
    in.op = Op::IADD, in.a = 1, in.b = 2, in.c = 3;
    EXPECT_EQ(regs_read(in), (1ull << 2) | (1ull << 3));
    EXPECT_EQ(regs_written(in), 1ull << 1);
    in.op = Op::ST;   // [rB + imm] = rA: reads both, writes none
    EXPECT_EQ(regs_read(in), (1ull << 1) | (1ull << 2));
    EXPECT_EQ(regs_written(in), 0u);
    in.op = Op::FSUMS, in.d = 5;   // rD = sum of dB
    EXPECT_EQ(regs_read(in), 0u);
    EXPECT_EQ(regs_written(in), 1ull << 5);
    in.op = Op::CALL;   // arguments: every register, to be safe
    EXPECT_EQ(regs_read(in), ~0ull);
}
