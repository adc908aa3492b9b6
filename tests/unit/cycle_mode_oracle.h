// cycle_mode_oracle.h: fast mode's macro-ops (engine/fabric/fmacs_loop.h, dot_loop.h) held to
// cycle mode, which interprets one instruction per step. A kernel on one PE (so fast mode's
// estimate is exact) runs in both modes: the output, the PE's SRAM, the cycle count,
// instructions, vector elements, FLOPs and SRAM bytes must be equal, and a fault must have the
// same kind, place, cycle and message. And what the loaders' tests build programs of.
#pragma once
#include "engine/fabric/machine.h"
#include "engine/fabric/program.h"
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

namespace wl::oracle {

using namespace wl::lang;

struct Ran {
    std::unique_ptr<KernelRun> run;
    RunReport rep;
};

// The run in slices of `slice` cycles (0: at once), at most `steps` of them.
inline Ran run(const CompileResult& cr, RunMode mode, uint64_t slice = 0, int steps_max = 1'000'000) {
    RunOptions opt;
    opt.mode = mode;
    opt.cycle_budget = 1'000'000;
    Ran r;
    r.run = std::make_unique<KernelRun>(std::make_shared<const CompileResult>(cr), opt);
    if (slice) {
        int steps = 0;
        while (!r.run->done() && steps < steps_max) r.run->step(slice), ++steps;
    } else {
        r.run->finish();
    }
    r.rep = r.run->report();
    return r;
}

// The kernel compiled with or without the optimising code generator; a failure fails the test
// with its diagnostics.
inline bool compiled(const std::string& src, const char* file, bool optimise, CompileResult* cr) {
    CompileOptions co;
    co.optimise = optimise;
    *cr = compile(src, file, co);
    if (!cr->ok())
        for (auto& d : cr->diagnostics) ADD_FAILURE() << format_diagnostic(d);
    return cr->ok();
}

// One hand-built instruction, for the tests of what the loader finds.
inline Instr instr(Op op, int a, int b, int c, int d, int32_t imm) {
    Instr i;
    i.op = op, i.a = uint8_t(a), i.b = uint8_t(b), i.c = uint8_t(c), i.d = uint8_t(d), i.imm = imm;
    return i;
}

inline void expect_same(const Ran& c, const Ran& f) {
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

}  // namespace wl::oracle
