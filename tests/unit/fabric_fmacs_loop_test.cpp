// fabric_fmacs_loop_test.cpp: fast mode's fmacs-loop macro-op (engine/fabric/fmacs_loop.h) held to
// cycle mode (cycle_mode_oracle.h), with both compilers. The kernels cover the loop the macro-op
// takes whole (odd trip counts, tiles of 16 and of 6), the ones it must hand back (a strided
// operand, overlapping operands, an fmacs or an ld that leaves SRAM in iteration k), and slices
// that end inside a loop.
#include "cycle_mode_oracle.h"
#include "engine/core/read_file.h"
#include "engine/core/simd.h"
#include "engine/fabric/fmacs_loop.h"
#include "engine/fabric/fmacs_tile.h"
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"
#include "engine/fabric/machine.h"
#include "engine/fabric/map_nest.h"
#include "engine/fabric/vector_ops.h"
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace wl;
using namespace wl::lang;
using namespace wl::oracle;

namespace {

// One PE: C (or D) += A's columns times x, in a loop of `trip` iterations of `body` (over l).
std::string kernel(int trip, const std::string& body, int asize = 512) {
    return "layout { grid 1 x 1; place p at (0, 0); }\n"
           "program p() {\n"
           "    export var A: [f32; " + std::to_string(asize) + "];\n"
           "    export var x: [f32; 64];\n"
           "    export var C: [f32; 32];\n"
           "    export var D: [f32; 32];\n"
           "    export fn main() {\n"
           "        for l in 0.." + std::to_string(trip) + " {\n"
           "            " + body + "\n"
           "        }\n"
           "    }\n"
           "}\n"
           "host { fill A at (0, 0) with random(1); fill x at (0, 0) with random(2); fill C at (0, 0) with random(3);\n"
           "       launch main at (0, 0); run; print C at (0, 0); print D at (0, 0); }\n";
}

// One PE: a loop over j of `outer` passes around a loop (or, inner_kw "map", a map) over l of
// `inner` iterations of `body` (the nest, fmacs_loop.h), before which `pre` runs; with reps, all that inside a loop over rep
// (the nest entered again).
// `inner` is the inner loop's range: "0..4", or one known only when it runs ("0..n" with pre
// "let n = N[0];": 5).
std::string nest_kernel(int outer, const std::string& inner, const std::string& body, const std::string& pre = "", int reps = 0,
                        const char* inner_kw = "for") {
    return "layout { grid 1 x 1; place p at (0, 0); }\n"
           "program p() {\n"
           "    export var A: [f32; 512];\n"
           "    export var x: [f32; 256];\n"
           "    export var C: [f32; 256];\n"
           "    export var D: [f32; 256];\n"
           "    export var N: [i32; 2];\n"
           "    export fn main() {\n" +
           (reps ? "      for rep in 0.." + std::to_string(reps) + " {\n" : std::string()) +
           "        " + pre + "\n"
           "        for j in 0.." + std::to_string(outer) + " {\n"
           "            " + inner_kw + " l in " + inner + " {\n"
           "                " + body + "\n"
           "            }\n"
           "        }\n" +
           (reps ? "      }\n" : "") +
           "    }\n"
           "}\n"
           "host { fill A at (0, 0) with random(1); fill x at (0, 0) with random(2); fill C at (0, 0) with random(3);\n"
           "       fill N at (0, 0) with [5, 0];\n"
           "       launch main at (0, 0); run; print C at (0, 0); print D at (0, 0); }\n";
}

std::string nest_kernel(int outer, int inner, const std::string& body, const std::string& pre = "", int reps = 0) {
    return nest_kernel(outer, "0.." + std::to_string(inner), body, pre, reps);
}

// The nest the loader found around the program's first fmacs loop: 0 none, 1 one, 2 an affine one.
int nest_kind(const CompileResult& cr) {
    for (const Placement& p : cr.placements)
        for (const FmacsLoop& L : find_fmacs_loops(*p.program).loops)
            if (L.nest.blt) return L.nest.affine ? 2 : 1;
    return 0;
}

bool has_fmacs_loop(const CompileResult& cr) {
    for (const Placement& p : cr.placements)
        if (!find_fmacs_loops(*p.program).empty()) return true;
    return false;
}

// A nest's kernel held to cycle mode: whole (the fault, if it faults, with it), in slices of 7,
// 250 and 1,000 cycles, and stopped part of the way (the run-ahead limit in a pass run at once:
// the same instructions issued and the same SRAM as cycle mode at that cycle). Returns cycle
// mode's whole run.
Ran expect_nest_as_cycle_mode(const CompileResult& cr, bool faults) {
    Ran c = run(cr, RunMode::Cycle), f = run(cr, RunMode::Fast);
    EXPECT_EQ(!c.rep.ok, faults) << c.rep.error;
    expect_same(c, f);
    for (uint64_t slice : {7u, 250u, 1000u}) {
        SCOPED_TRACE("slice " + std::to_string(slice));
        expect_same(c, run(cr, RunMode::Fast, slice));
    }
    for (uint64_t cycles : {900u, 2500u, 6000u}) {
        SCOPED_TRACE("stopped at cycle " + std::to_string(cycles));
        Ran cs = run(cr, RunMode::Cycle, cycles, 1), fs = run(cr, RunMode::Fast, cycles, 1);
        const Machine& a = cs.run->machine();
        const Machine& b = fs.run->machine();
        EXPECT_EQ(b.core(0, 0).stats.instrs, a.core(0, 0).stats.instrs);
        EXPECT_EQ(std::memcmp(a.sram(0, 0), b.sram(0, 0), a.config().sram_bytes), 0) << "SRAM differs";
    }
    return c;
}

struct Case {
    const char* name;
    std::string src;
    bool macro;                 // the optimising compiler's loop has the macro-op's shape
    bool faults;
};

}  // namespace

TEST(FastModeFmacsLoop, MatchesCycleModeOnEveryPath) {
    const Case cases[] = {
        {"odd trip, tile 4", kernel(7, "fmacs(mem(C, 0, 4), mem(C, 0, 4), mem(A, l * 4, 4), x[l]);"), true, false},
        {"tile 16", kernel(16, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, l * 16, 16), x[l]);"), true, false},
        {"tile 6 (not a multiple of 4)", kernel(9, "fmacs(mem(C, 2, 6), mem(C, 2, 6), mem(A, l * 6, 6), x[l + 1]);"), true, false},
        {"into another array", kernel(5, "fmacs(mem(D, 0, 8), mem(C, 0, 8), mem(A, l * 8, 8), x[l]);"), true, false},
        {"strided source", kernel(6, "fmacs(mem(C, 0, 4), mem(C, 0, 4), mem(A, l, 4, 3), x[l]);"), true, false},
        {"overlapping operands", kernel(7, "fmacs(mem(C, 0, 8), mem(C, 0, 8), mem(C, l + 1, 8), x[l]);"), true, false},
        {"fmacs leaves SRAM in iteration 4", kernel(9, "fmacs(mem(C, 0, 4), mem(C, 0, 4), mem(A, l * 3000, 4), x[l]);"), true, true},
        {"ld leaves SRAM in iteration 3", kernel(9, "fmacs(mem(C, 0, 4), mem(C, 0, 4), mem(A, l * 4, 4), x[l * 5000]);"), true, true},
        // A tile of 16 that stays put is held in registers across the iterations whose addresses are
        // known to be in SRAM, unless something else the loop reads overlaps it.
        {"tile 16, the scalar read from the tile", kernel(9, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, l * 16, 16), C[l + 3]);"), true, false},
        {"tile 16, a source that meets the tile later (a negative step)",
         kernel(4, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(C, 16 - l * 4, 16), x[l]);"), true, false},
        {"tile 16, into another array", kernel(5, "fmacs(mem(D, 0, 16), mem(C, 0, 16), mem(A, l * 16, 16), x[l]);"), true, false},
        {"tile 16 that moves", kernel(2, "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, l * 16, 16), x[l]);"), true, false},
        {"tile 16, fmacs leaves SRAM in iteration 4", kernel(9, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, l * 3000, 16), x[l]);"), true, true},
        {"tile 16, ld leaves SRAM in iteration 3", kernel(9, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, l * 16, 16), x[l * 5000]);"), true, true},
    };
    for (const Case& k : cases) {
        for (bool optimise : {false, true}) {
            SCOPED_TRACE(std::string(k.name) + (optimise ? ", --optimise" : ", plain code"));
            CompileResult cr;
            if (!compiled(k.src, "fmacs_loop.wk", optimise, &cr)) continue;
            if (optimise) {
                EXPECT_EQ(has_fmacs_loop(cr), k.macro);
            }
            Ran c = run(cr, RunMode::Cycle), f = run(cr, RunMode::Fast);
            EXPECT_EQ(!c.rep.ok, k.faults) << c.rep.error;
            if (k.faults) {
                EXPECT_EQ(fault_kind_name(c.rep.fault.kind), fault_kind_name(FaultKind::OutOfBounds)) << c.rep.error;
            }
            expect_same(c, f);
        }
    }
}

// The run-ahead limit (here a slice's end) can fall anywhere in the loop: the macro-op runs only
// iterations that end before it, and the interpreter takes the rest one instruction at a time; the
// bits and counts are the same for every slice. (Where exactly a PE stops is visible only to other
// PEs: the SUMMA tests in fabric_fast_mode_test.cpp hold that to cycle mode.)
TEST(FastModeFmacsLoop, SlicesStopInsideTheLoop) {
    CompileOptions co;
    co.optimise = true;
    CompileResult cr = compile(kernel(31, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, l * 16, 16), x[l]);", 1024), "slices.wk", co);
    ASSERT_TRUE(cr.ok());
    ASSERT_TRUE(has_fmacs_loop(cr));
    const Ran c = run(cr, RunMode::Cycle);
    ASSERT_TRUE(c.rep.ok) << c.rep.error;
    for (uint64_t slice : {1u, 3u, 7u, 25u, 250u}) {
        SCOPED_TRACE("slice " + std::to_string(slice));
        expect_same(c, run(cr, RunMode::Fast, slice));
    }
}

// The shape is the loader's to find: a loop whose daddr reads a register the loop changes is not one.
TEST(FastModeFmacsLoop, FindsOnlyLoopsOfItsShape) {
    Program p;
    const auto in = instr;
    p.code = {
        in(Op::LD, 8, 6, 0, 0, 4096),    // 0: head
        in(Op::FMACS, 3, 3, 4, 8, 0),    // 1
        in(Op::IADDI, 6, 6, 0, 0, 4),    // 2
        in(Op::DADDR, 4, 7, 0, 0, 0),    // 3
        in(Op::IADDI, 4, 4, 0, 0, 1),    // 4
        in(Op::BLT, 4, 5, 0, 0, 0),      // 5
        in(Op::FMACS, 3, 3, 4, 8, 0),    // 6: head
        in(Op::IADDI, 7, 7, 0, 0, 64),   // 7: the daddr's step changes
        in(Op::DADDR, 4, 7, 0, 0, 0),    // 8
        in(Op::BLT, 4, 5, 0, 0, 6),      // 9
        in(Op::FMACS, 3, 3, 4, 8, 0),    // 10
        in(Op::IADDI, 4, 4, 0, 0, 1),    // 11
        in(Op::BLT, 4, 5, 0, 0, 9),      // 12: back past the fmacs: not the shape
        in(Op::RET, kNoReg, 0, 0, 0, 0),
    };
    const FmacsLoops loops = find_fmacs_loops(p);
    ASSERT_EQ(loops.at.size(), p.code.size());
    for (uint32_t pc = 0; pc < p.code.size(); ++pc) {
        const FmacsLoop* L = loops.find(pc);
        EXPECT_EQ(L ? L->blt : 0u, pc == 1 ? 5u : 0u) << "pc " << pc;
    }
    // Decoded once: the ld at the head, the steps, and (each iaddi adding to its own register) the
    // counter's and the ld address's steps.
    const FmacsLoop& L = *loops.find(1);
    EXPECT_EQ(L.ld, 0);
    EXPECT_EQ(L.nadd, 2);
    EXPECT_EQ(L.nstep, 1);
    EXPECT_EQ(L.post_cycles, 3u * op_base_cycles(Op::IADDI));
    EXPECT_TRUE(L.affine);
    EXPECT_EQ(L.counter_step, 1u);
    EXPECT_EQ(L.address_step, 4u);
}

// The nest (fmacs_loop.h): the loop around an fmacs loop runs as one macro-op too, and an affine
// one runs the passes after its first two at once. Each case is held to cycle mode as above: the
// passes run at once (the tile in registers or not), a fault in a later pass (its fmacs, its ld),
// a nest whose passes do not change by the same d (the inner loop's start moves), one that is
// not affine (a product of two registers in its lead), and inner loops whose trip counts are known
// only when they run (entered through their test, and passes that run no iteration).
TEST(FastModeFmacsLoop, NestsMatchCycleMode) {
    struct NestCase {
        const char* name;
        std::string src;
        int nest;   // nest_kind with the optimising compiler
        bool faults;
    };
    const NestCase cases[] = {
        {"SUMMA's shape, tile in registers", nest_kernel(12, 16, "fmacs(mem(C, j * 16, 16), mem(C, j * 16, 16), mem(A, l * 16, 16), x[j * 16 + l]);"), 2, false},
        {"the tile moves in the inner loop", nest_kernel(9, 5, "fmacs(mem(D, j * 4 + l * 8, 8), mem(C, j * 4, 8), mem(A, l * 8, 8), x[j + l]);"), 2, false},
        // A GPT matmul's rounds: the tile moves in the inner loop and every pass takes the same
        // tiles, so the loops run swapped, a tile in registers across the passes; not where the
        // tiles overlap each other, or meet the fmacs's source or the scalars.
        {"the same moving tiles each pass", nest_kernel(6, 12, "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), x[l * 8 + j]);"), 2, false},
        {"the same moving tiles each pass, apart, tile 8", nest_kernel(7, 9, "fmacs(mem(C, l * 20 + 4, 8), mem(C, l * 20 + 4, 8), mem(A, j * 8, 8), x[l * 7 + j]);"), 2, false},
        {"the same moving tiles, overlapping", nest_kernel(6, 12, "fmacs(mem(C, l * 8, 16), mem(C, l * 8, 16), mem(A, j * 16, 16), x[l * 8 + j]);"), 2, false},
        {"the same moving tiles, a source that meets them", nest_kernel(6, 12, "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(C, 160 + j * 4, 16), x[l * 8 + j]);"), 2, false},
        {"the same moving tiles, scalars read from them", nest_kernel(6, 12, "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), C[l * 8 + j + 3]);"), 2, false},
        {"the same moving tiles, ld leaves SRAM in pass 4", nest_kernel(6, 12, "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), x[j * 3000 + l]);"), 2, true},
        {"the tile in registers, tiles of 6 overlapping pass to pass", nest_kernel(9, 5, "fmacs(mem(C, j * 2, 6), mem(C, j * 2, 6), mem(A, l * 6 + j, 6), x[j * 5 + l]);"), 2, false},
        {"odd trips, tile 6", nest_kernel(7, 3, "fmacs(mem(C, j * 6, 6), mem(C, j * 6, 6), mem(A, l * 6 + j, 6), x[l * 3 + j]);"), 2, false},
        {"the scalar read from the pass's own tile", nest_kernel(10, 4, "fmacs(mem(C, j * 16, 16), mem(C, j * 16, 16), mem(A, l * 16, 16), C[j * 16 + l + 3]);"), 2, false},
        {"fmacs leaves SRAM in pass 6", nest_kernel(12, 4, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, j * 2000 + l * 16, 16), x[l]);"), 2, true},
        {"ld leaves SRAM in pass 7", nest_kernel(12, 4, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, l * 16, 16), x[j * 1600 + l]);"), 2, true},
        {"the inner loop's start moves", nest_kernel(8, 8, "if l >= j { fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, l * 16, 16), x[l]); }"), 0, false},
        {"not affine: j * j", nest_kernel(8, 4, "fmacs(mem(C, 0, 16), mem(C, 0, 16), mem(A, (j * j + l) * 4, 16), x[l]);"), 1, false},
        // Trip counts known only when the loop runs: the lead ends with a jmp to the inner blt,
        // which tests first (the GPT's dW sums, tiles of 4); passes that run no iteration.
        {"trips known at run time, tile 4", nest_kernel(9, "0..n", "fmacs(mem(C, j * 4, 4), mem(C, j * 4, 4), mem(A, l * 4, 4), x[j * 5 + l]);", "let n = N[0];"), 2, false},
        {"trips known at run time, tile 12", nest_kernel(6, "0..n", "fmacs(mem(C, j * 12, 12), mem(C, j * 12, 12), mem(A, l * 12 + j, 12), x[l]);", "let n = N[0];"), 2, false},
        {"no trips at all", nest_kernel(5, "0..n", "fmacs(mem(C, j * 4, 4), mem(C, j * 4, 4), mem(A, l * 4, 4), x[l]);", "let n = N[1];"), 2, false},
        {"some passes without trips", nest_kernel(8, "j..n", "fmacs(mem(C, 0, 8), mem(C, 0, 8), mem(A, l * 8, 8), x[l + j]);", "let n = N[0];"), 2, false},
        // Entered again (nest_map.h): from the same state (the map kept), from the same registers
        // with the fmacs's A operand set before the nest elsewhere, and from other registers.
        {"entered again, the same state", nest_kernel(6, 4, "fmacs(mem(C, j * 16, 16), mem(C, j * 16, 16), mem(A, 64, 16), x[l]);", "", 3), 2, false},
        {"entered again, another DSD", nest_kernel(6, 4, "fmacs(mem(C, j * 16, 16), mem(C, j * 16, 16), mem(A, rep * 64, 16), x[l]);", "", 3), 2, false},
        {"entered again, another register", nest_kernel(6, 4, "fmacs(mem(C, j * 16, 16), mem(C, j * 16, 16), mem(A, l * 16, 16), x[rep * 4 + l + j]);", "", 3), 2, false},
        // Entered from states along a line (a matmul's rounds): the map extrapolated from the two
        // before it, where the trip count stays; not where it grows with the state.
        {"entered along a line", nest_kernel(6, 4, "fmacs(mem(C, j * 16, 16), mem(C, j * 16, 16), mem(A, rep * 32 + l * 16, 16), x[rep * 4 + l + j]);", "", 6), 2, false},
        {"entered along a line, the tile's length growing", nest_kernel(5, 3, "fmacs(mem(C, j * 24, n), mem(C, j * 24, n), mem(A, rep * 8 + l * 24, n), x[rep * 3 + l + j]);", "let n = rep + 4;", 6), 2, false},
        {"entered along a line, the trip count growing", nest_kernel(5, "0..n", "fmacs(mem(C, j * 16, 16), mem(C, j * 16, 16), mem(A, l * 16, 16), x[rep * 4 + l + j]);", "let n = rep + 2;", 6), 2, false},
    };
    for (const NestCase& k : cases) {
        for (bool optimise : {false, true}) {
            SCOPED_TRACE(std::string(k.name) + (optimise ? ", --optimise" : ", plain code"));
            CompileResult cr;
            if (!compiled(k.src, "nest.wk", optimise, &cr)) continue;
            if (optimise) {
                EXPECT_EQ(nest_kind(cr), k.nest);
            }
            expect_nest_as_cycle_mode(cr, k.faults);
        }
    }
}

// A nest built by hand, SUMMA's shape, that stores the inner loop's scalar register after it: the
// passes run at once must leave it the last value loaded. The same nest whose lead reads that
// register before loading it, or multiplies two registers, is not affine; one whose ld address
// grows by a growing step is affine but its passes do not change by one d, so none run at once.
namespace {

enum class Lead { Plain, ReadsScalar, Product, Quadratic };

Program hand_nest(int J, int L, Lead lead) {
    ProgramBuilder b("nest");
    const uint32_t C = b.array("C", 16 * uint32_t(J)), A = b.array("A", 16 * uint32_t(L)), x = b.array("x", uint32_t(J * L + J * J)),
                   out = b.array("out", 2);
    b.func("main", 13, 0, true);
    b.li(2, 0).li(3, J).li(8, 0).li(1, 0).li(12, 0);
    const int outer = b.label(), inner = b.label();
    b.bind(outer).li(4, 0).li(5, L);
    b.emit(Op::ISHLI, 6, 2, 0, 0, 0, 6).addi(6, 6, int32_t(C)).li(7, 16).dmem(3, 6, 7);
    if (lead == Lead::ReadsScalar) b.mov(1, 8);
    if (lead == Lead::Product) b.rrr(Op::IMUL, 9, 2, 2).emit(Op::IMULI, 9, 9, 0, 0, 0, 0);
    else b.emit(Op::IMULI, 9, 2, 0, 0, 0, L * 4);
    if (lead == Lead::Quadratic) b.rrr(Op::IADD, 1, 1, 12).addi(12, 12, 4).rrr(Op::IADD, 10, 9, 1);
    else b.mov(10, 9);
    b.li(11, int32_t(A)).dmem(4, 11, 7).li(7, 64);
    b.bind(inner).ld(8, 10, int32_t(x)).fmacs(3, 3, 4, 8).addi(10, 10, 4).daddr(4, 7).addi(4, 4, 1).blt(4, 5, inner);
    b.addi(2, 2, 1).blt(2, 3, outer);
    b.li(0, int32_t(out)).st(0, 0, 8).ret();
    return b.finish();
}

struct HandRun {
    std::vector<float> C, out;
    uint64_t cycles = 0, instrs = 0;
};

HandRun run_hand(const Program& p, int J, int L, RunMode mode) {
    Host h(MachineConfig{.w = 1, .h = 1});
    const Fault loaded = h.load(p, {0, 0, 1, 1});
    EXPECT_FALSE(loaded) << loaded.to_string();
    EXPECT_FALSE(h.machine().set_mode(mode));
    std::vector<float> A(size_t(16 * L)), x(size_t(J * L + J * J));
    for (size_t k = 0; k < A.size(); ++k) A[k] = float(k % 7) * 0.25f - 0.5f;
    for (size_t k = 0; k < x.size(); ++k) x[k] = float(k % 5) * 0.5f + 0.125f;
    EXPECT_FALSE(h.h2d(0, 0, "A", A.data(), A.size()));
    EXPECT_FALSE(h.h2d(0, 0, "x", x.data(), x.size()));
    EXPECT_FALSE(h.launch({0, 0, 1, 1}, "main"));
    const RunResult r = h.run_until_quiescent(1'000'000);
    EXPECT_TRUE(r.ok()) << r.fault.to_string();
    HandRun out;
    out.C.resize(size_t(16 * J)), out.out.resize(2);
    EXPECT_FALSE(h.d2h(0, 0, "C", out.C.data(), out.C.size()));
    EXPECT_FALSE(h.d2h(0, 0, "out", out.out.data(), 2));
    out.cycles = r.cycles, out.instrs = h.machine().core(0, 0).stats.instrs;
    return out;
}

}  // namespace

TEST(FastModeFmacsLoop, HandBuiltNestLeavesTheLastScalar) {
    const int J = 9, L = 5;
    for (Lead lead : {Lead::Plain, Lead::ReadsScalar, Lead::Product, Lead::Quadratic}) {
        SCOPED_TRACE(int(lead));
        const Program p = hand_nest(J, L, lead);
        const FmacsLoops loops = find_fmacs_loops(p);
        ASSERT_EQ(loops.loops.size(), 1u);
        EXPECT_NE(loops.loops[0].nest.blt, 0u);
        EXPECT_EQ(loops.loops[0].nest.affine, lead == Lead::Plain || lead == Lead::Quadratic);
        const HandRun c = run_hand(p, J, L, RunMode::Cycle), f = run_hand(p, J, L, RunMode::Fast);
        EXPECT_EQ(f.C, c.C);
        EXPECT_EQ(f.out, c.out);
        if (lead != Lead::Quadratic) {
            EXPECT_EQ(f.out[0], 0.5f * float((J * L - 1) % 5) + 0.125f);   // x's last element
        }
        EXPECT_EQ(f.cycles, c.cycles);
        EXPECT_EQ(f.instrs, c.instrs);
    }
}

static void tile_kernel_gives_the_scalar_bits(const uint32_t n) {
    const float special[] = {-0.0f, 0.0f, 1e-45f, -1e-40f, 3.0e38f, -3.0e38f, std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 1.5f, -2.25f};
    const int kSpecial = int(sizeof special / sizeof special[0]);
    uint32_t seed = 1;
    auto next = [&] {
        seed = seed * 1664525u + 1013904223u;
        const int k = int(seed >> 24) % (kSpecial + 4);
        return k < kSpecial ? special[k] : float(int32_t(seed >> 8) % 1000) / 64.0f;
    };
    for (int trial = 0; trial < 99; ++trial) {   // 1 to 9 passes: the kernel runs up to four side by side
        const uint64_t passes = uint64_t(trial % 9) + 1, runs = uint64_t(trial % 7) + 1;
        const bool lead_load = trial % 4 >= 2;
        const uint64_t loads = lead_load || trial % 2 ? runs - 1 : runs;
        // Pass q: its tile at d + n q, its y at y + (n / 2) q (overlapping the last pass's), its scalars at x + 3 q.
        float d[9 * kMaxRegisterTile + 16], ref[9 * kMaxRegisterTile + 16], y[kMaxRegisterTile * 12], x[40];
        for (float& v : d) v = next();
        for (float& v : y) v = next();
        for (float& v : x) v = next();
        float s = next();
        if (trial == 0) std::fill(d, d + n, -0.0f), std::fill(y, y + n, 1.0f), s = -0.0f;   // -0 + 1 (-0) is -0
        std::memcpy(ref, d, sizeof d);
        uint32_t sbits;
        std::memcpy(&sbits, &s, 4);
        for (uint64_t q = 0; q < passes; ++q) {
            const float* xs = x + 3 * q;
            if (lead_load) s = *xs++;
            for (uint64_t k = 0; k < runs; ++k) {
                for (uint64_t e = 0; e < n; ++e) ref[n * q + e] = fmacs_elem(ref[n * q + e], y[n / 2 * q + n * k + e], s);
                if (k < loads) s = xs[k];
            }
        }
        const ptrdiff_t tile = 4 * ptrdiff_t(n);
        const uint32_t out = fmacs_tile_passes({reinterpret_cast<uint8_t*>(d), reinterpret_cast<const uint8_t*>(y),
                                                reinterpret_cast<const uint8_t*>(x), tile, 4 * ptrdiff_t(n / 2), 12, tile, 4, passes, runs, loads, lead_load, n},
                                               sbits);
        for (uint32_t e = 0; e < 9 * kMaxRegisterTile + 16; ++e)   // a NaN from two NaNs keeps the one its build put first (docs/engine.md)
            if (!(d[e] != d[e] && ref[e] != ref[e])) {
                EXPECT_EQ(std::memcmp(&d[e], &ref[e], 4), 0) << "a tile of " << n << ", trial " << trial << ", element " << e;
            }
        EXPECT_EQ(std::memcmp(&out, &s, 4), 0) << "the last scalar, trial " << trial;
    }
}

// The moving tile's kernel (fmacs_tile.h) at one tile size: tiles apart from their y, and tiles
// their y overlaps (run element by element), against the scalar fmacs in the interpreter's order.
static void moving_tile_gives_the_scalar_bits(const uint32_t n) {
    uint32_t seed = n;
    auto next = [&] {
        seed = seed * 1664525u + 1013904223u;
        const int k = int(seed >> 24) % 12;
        return k == 0 ? -0.0f : k == 1 ? 1e-45f : k == 2 ? std::numeric_limits<float>::infinity() : float(int32_t(seed >> 8) % 1000) / 64.0f;
    };
    for (int trial = 0; trial < 24; ++trial) {
        const uint64_t runs = uint64_t(trial % 5) + 1, loads = trial % 2 ? runs - 1 : runs;
        const bool overlap = trial % 3 == 0;
        // The tiles step by n + 4 floats from buf[0]; y steps by n floats, from buf[1] when they
        // overlap, else from past the tiles.
        std::vector<float> buf(size_t(8 * (kMaxRegisterTile + 4) + 8 * kMaxRegisterTile)), ref;
        float x[8];
        for (float& v : buf) v = next();
        for (float& v : x) v = next();
        float s = next();
        ref = buf;
        const size_t dstep = n + 4, ystep = n, y0 = overlap ? 1 : 6 * (kMaxRegisterTile + 4);
        uint32_t sbits;
        std::memcpy(&sbits, &s, 4);
        for (uint64_t k = 0; k < runs; ++k) {
            for (size_t e = 0; e < n; ++e) ref[k * dstep + e] = fmacs_elem(ref[k * dstep + e], ref[y0 + k * ystep + e], s);
            if (k < loads) s = x[k];
        }
        uint8_t* const b = reinterpret_cast<uint8_t*>(buf.data());
        const uint32_t out = fmacs_moving_tile({b, b + 4 * y0, reinterpret_cast<const uint8_t*>(x), ptrdiff_t(4 * dstep), ptrdiff_t(4 * ystep), 4,
                                                runs, loads, n},
                                               sbits);
        for (size_t e = 0; e < buf.size(); ++e)
            if (!(buf[e] != buf[e] && ref[e] != ref[e])) {
                EXPECT_EQ(std::memcmp(&buf[e], &ref[e], 4), 0) << "a tile of " << n << ", trial " << trial << ", element " << e;
            }
        EXPECT_EQ(std::memcmp(&out, &s, 4), 0) << "the last scalar, trial " << trial;
    }
}

// The tile kernel, for every tile it holds in registers (any size up to 64: whole vectors and a
// tail of scalars) and in each SIMD level's vectors this CPU has, gives the scalar fmacs's bits, signed zeros, infinities, subnormals and NaNs made from
// numbers included, pass after pass, its scalars read from x as it steps (or each pass's first at
// the pass's x). Elements past the passes' tiles stay as they were. The same for the kernel of a
// tile that moves, with tiles apart from and overlapping their y.
TEST(FastModeFmacsLoop, TileKernelsGiveTheScalarBits) {
    const Simd detected = simd_level();
    for (Simd level : {Simd::Generic, Simd::Avx2, Simd::Avx512}) {
        if (!set_simd_level(level)) continue;
        SCOPED_TRACE(simd_name(level));
        for (uint32_t n = 1; n <= kMaxRegisterTile; ++n) {
            ASSERT_TRUE(register_tile(n));
            tile_kernel_gives_the_scalar_bits(n);
            if (n % 4 == 0) moving_tile_gives_the_scalar_bits(n);
        }
    }
    EXPECT_FALSE(register_tile(0) || register_tile(kMaxRegisterTile + 1));
    set_simd_level(detected);
}

// The map nest (map_nest.h): a loop over j around a map over l of one fmacs, with `pre` before it;
// with reps, all that inside a loop over rep (the nest entered again).
namespace {

std::string map_nest_kernel(int outer, const std::string& inner, const std::string& body, const std::string& pre = "", int reps = 0) {
    return nest_kernel(outer, inner, body, pre, reps, "map");
}

bool has_map_nest(const CompileResult& cr) {
    for (const Placement& p : cr.placements)
        if (!find_map_nests(*p.program).nests.empty()) return true;
    return false;
}

}  // namespace

// Each case held to cycle mode as the fmacs nests are (output, SRAM, cycles, counts, a fault's
// place and cycle; slices and stops part-way): the same tiles every pass, in registers with the
// loops swapped (a GPT matmul's rounds, tiles of 16, 64 and 6), and not where they overlap each
// other, meet the fmacs's source or the scalars; a tile that stays put across each map; tiles
// over 64 floats; faults in a later pass (the fmacs, the scalar); passes whose maps differ (no pass
// at once); a lead that is not linear (no nest); nests of too few passes (a map at a time) and of
// the fewest run at once; entered again.
TEST(FastModeMapNest, MatchesCycleMode) {
    struct MapCase {
        const char* name;
        std::string src;
        bool nest;     // find_map_nests finds it in the optimising compiler's code
        bool faults;
    };
    const MapCase cases[] = {
        {"the same tiles each pass, tile 16", map_nest_kernel(6, "0..12", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), x[l * 8 + j]);"), true, false},
        {"a GPT matmul's round, tile 64", map_nest_kernel(7, "0..4", "fmacs(mem(C, l * 64, 64), mem(C, l * 64, 64), mem(A, j * 64, 64), x[l * 7 + j]);"), true, false},
        {"the same tiles, tile 6, apart", map_nest_kernel(7, "0..9", "fmacs(mem(C, l * 8 + 2, 6), mem(C, l * 8 + 2, 6), mem(A, j * 6, 6), x[l * 7 + j]);"), true, false},
        {"the same tiles, overlapping", map_nest_kernel(6, "0..12", "fmacs(mem(C, l * 8, 16), mem(C, l * 8, 16), mem(A, j * 16, 16), x[l * 8 + j]);"), true, false},
        {"the same tiles, a source that meets them", map_nest_kernel(6, "0..12", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(C, 160 + j * 4, 16), x[l * 8 + j]);"), true, false},
        {"the same tiles, scalars read from them", map_nest_kernel(6, "0..12", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), C[l * 8 + j + 3]);"), true, false},
        {"a tile that stays put across each map", map_nest_kernel(12, "0..16", "fmacs(mem(C, j * 16, 16), mem(C, j * 16, 16), mem(A, l * 16, 16), x[j * 16 + l]);"), true, false},
        {"a tile that stays put, tiles overlapping", map_nest_kernel(9, "0..5", "fmacs(mem(C, j * 2, 6), mem(C, j * 2, 6), mem(A, l * 6 + j, 6), x[j * 5 + l]);"), true, false},
        {"tiles of 80, apart", map_nest_kernel(5, "0..3", "fmacs(mem(C, l * 80, 80), mem(C, l * 80, 80), mem(A, j * 80, 80), x[l * 5 + j]);"), true, false},
        {"tiles of 6 that move each pass", map_nest_kernel(7, "0..3", "fmacs(mem(C, j * 6 + l * 50, 6), mem(C, j * 6 + l * 50, 6), mem(A, l * 6 + j, 6), x[l * 3 + j]);"), true, false},
        {"fmacs leaves SRAM in pass 6", map_nest_kernel(12, "0..4", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 2000 + l * 16, 16), x[l]);"), true, true},
        {"a scalar leaves SRAM in pass 7", map_nest_kernel(12, "0..4", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, l * 16, 16), x[j * 1600 + l]);"), true, true},
        {"maps of a growing length", map_nest_kernel(8, "0..j + 1", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), x[l * 8 + j]);"), true, false},
        {"passes known at run time", map_nest_kernel(9, "0..n", "fmacs(mem(C, l * 4, 4), mem(C, l * 4, 4), mem(A, j * 4, 4), x[l * 9 + j]);", "let n = N[0];"), true, false},
        {"no passes at all", map_nest_kernel(5, "0..n", "fmacs(mem(C, l * 4, 4), mem(C, l * 4, 4), mem(A, j * 4, 4), x[l]);", "let n = N[1];"), true, false},
        {"not linear: j * j", map_nest_kernel(8, "0..4", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * j * 4, 16), x[l]);"), false, false},
        {"two passes", map_nest_kernel(2, "0..4", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), x[l * 4 + j]);"), true, false},
        {"three passes", map_nest_kernel(3, "0..4", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), x[l * 4 + j]);"), true, false},
        {"four passes (the fewest run at once)", map_nest_kernel(4, "0..4", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, j * 16, 16), x[l * 4 + j]);"), true, false},
        {"entered again", map_nest_kernel(6, "0..4", "fmacs(mem(C, l * 16, 16), mem(C, l * 16, 16), mem(A, rep * 64 + j * 16, 16), x[rep * 4 + l * 6 + j]);", "", 3), true, false},
    };
    for (const MapCase& k : cases) {
        for (bool optimise : {false, true}) {
            SCOPED_TRACE(std::string(k.name) + (optimise ? ", --optimise" : ", plain code"));
            CompileResult cr;
            if (!compiled(k.src, "map_nest.wk", optimise, &cr)) continue;
            if (optimise) {
                EXPECT_EQ(has_map_nest(cr), k.nest);
            }
            const Ran c = expect_nest_as_cycle_mode(cr, k.faults);
            if (k.faults) {
                EXPECT_EQ(fault_kind_name(c.rep.fault.kind), fault_kind_name(FaultKind::OutOfBounds)) << c.rep.error;
            }
        }
    }
}

// The model's own matmul issues its multiply-adds as such a nest (models/kernels/matmul.wk's gemm).
TEST(FastModeMapNest, FindsTheModelMatmulsNest) {
    CompileOptions co;
    co.optimise = true;
    std::string src, error;
    ASSERT_TRUE(read_file(std::string(WAFERLAB_SOURCE_DIR) + "/models/kernels/matmul.wk", kMaxSourceBytes, "kernel", &src, &error)) << error;
    const CompileResult cr = compile(src, "matmul.wk", co);
    ASSERT_TRUE(cr.ok()) << (cr.diagnostics.empty() ? "" : format_diagnostic(cr.diagnostics[0]));
    EXPECT_TRUE(has_map_nest(cr));
}
