// fabric_fmacs_loop_test.cpp: fast mode's fmacs-loop macro-op (engine/fabric/fmacs_loop.h) held
// to cycle mode, which interprets one instruction per step. Each kernel runs on one PE (so fast
// mode's estimate is exact) in both modes and with both compilers: the output, every PE's SRAM,
// the cycle count, instructions, vector elements, FLOPs and SRAM bytes must be equal, and a fault
// must have the same kind, place and cycle. The kernels cover the loop the macro-op takes whole
// (odd trip counts, tiles of 16 and of 6), the ones it must hand back (a strided operand,
// overlapping operands, an fmacs or an ld that leaves SRAM in iteration k), and slices that end
// inside a loop.
#include "engine/fabric/fmacs_loop.h"
#include "engine/fabric/machine.h"
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace wl;
using namespace wl::lang;

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

struct Ran {
    std::unique_ptr<KernelRun> run;
    RunReport rep;
};

Ran run(const CompileResult& cr, RunMode mode, uint64_t slice = 0) {
    RunOptions opt;
    opt.mode = mode;
    opt.cycle_budget = 1'000'000;
    Ran r;
    r.run = std::make_unique<KernelRun>(std::make_shared<const CompileResult>(cr), opt);
    if (slice) {
        int steps = 0;
        while (!r.run->done() && steps < 1'000'000) r.run->step(slice), ++steps;
    } else {
        r.run->finish();
    }
    r.rep = r.run->report();
    return r;
}

bool has_fmacs_loop(const CompileResult& cr) {
    for (const Placement& p : cr.placements)
        if (!find_fmacs_loops(*p.program).empty()) return true;
    return false;
}

void expect_same(const Ran& c, const Ran& f) {
    EXPECT_EQ(f.rep.ok, c.rep.ok) << "cycle: " << c.rep.error << "\nfast: " << f.rep.error;
    EXPECT_EQ(f.rep.output, c.rep.output);
    if (c.rep.ok) {   // after a fault the modes' run lengths differ by one cycle (as before the macro-op); the fault's cycle is below
        EXPECT_EQ(f.rep.cycles, c.rep.cycles);
    }
    EXPECT_EQ(f.rep.stats.instrs, c.rep.stats.instrs);
    EXPECT_EQ(f.rep.stats.elems, c.rep.stats.elems);
    EXPECT_EQ(f.rep.stats.flops, c.rep.stats.flops);
    EXPECT_EQ(f.rep.stats.sram_bytes, c.rep.stats.sram_bytes);
    const Machine& a = c.run->machine();
    const Machine& b = f.run->machine();
    EXPECT_EQ(b.core(0, 0).sram_used, a.core(0, 0).sram_used);
    EXPECT_EQ(std::memcmp(a.sram(0, 0), b.sram(0, 0), a.config().sram_bytes), 0) << "SRAM differs";
    if (!c.rep.ok) {
        EXPECT_EQ(fault_kind_name(f.rep.fault.kind), fault_kind_name(c.rep.fault.kind));
        EXPECT_EQ(f.rep.fault.where, c.rep.fault.where);
        EXPECT_EQ(f.rep.fault.cycle, c.rep.fault.cycle);
        EXPECT_EQ(f.rep.fault.message, c.rep.fault.message);
    }
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
            CompileOptions co;
            co.optimise = optimise;
            CompileResult cr = compile(k.src, "fmacs_loop.wk", co);
            if (!cr.ok()) {
                for (auto& d : cr.diagnostics) ADD_FAILURE() << format_diagnostic(d);
                continue;
            }
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
    auto in = [](Op op, int a, int b, int c, int d, int32_t imm) {
        Instr i;
        i.op = op, i.a = uint8_t(a), i.b = uint8_t(b), i.c = uint8_t(c), i.d = uint8_t(d), i.imm = imm;
        return i;
    };
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
