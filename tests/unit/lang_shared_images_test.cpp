// lang_shared_images_test.cpp: PEs whose programs differ only in `place ... with` values run
// one program image (engine/lang/shared_images.h), and nothing a run produces changes: the
// same SRAM, registers, statistics and cycle count (Machine::checksum) as with one image per
// PE, in cycle mode and fast mode, plain and optimised code.
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"
#include "engine/lang/compile.h"
#include "engine/lang/run.h"
#include "tests/unit/kernel_files.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace wl;
using namespace wl::lang;

namespace {

struct Outcome {
    RunReport rep;
    uint64_t checksum = 0;
};

Outcome run(const CompileResult& cr, RunMode mode) {
    RunOptions opt;
    opt.mode = mode;
    KernelRun k(std::make_shared<const CompileResult>(cr), opt);
    k.finish();
    return {k.report(), k.machine().checksum()};
}

CompileResult compile_summa(int P, int B, bool optimise, bool share) {
    CompileOptions co;
    co.constants = {{"P", P}, {"B", B}};
    co.optimise = optimise;
    co.share_images = share;
    return compile(wl::testing::slurp(std::filesystem::path(WAFERLAB_SOURCE_DIR) / "examples/summa.wk"), "summa.wk", co);
}

}  // namespace

TEST(LangSharedImages, SummaPesShareOneImageWithTheSameBitsAndCycles) {
    for (bool optimise : {false, true}) {
        SCOPED_TRACE(optimise ? "optimised" : "plain");
        const CompileResult shared = compile_summa(5, 3, optimise, true), own = compile_summa(5, 3, optimise, false);
        ASSERT_TRUE(shared.ok() && own.ok());
        EXPECT_EQ(own.images(), 25u);
        EXPECT_EQ(shared.images(), 1u);
        ASSERT_EQ(shared.placements.size(), 25u);
        // The image reads mx and my (each once per compare in the source, one slot per distinct column of values).
        EXPECT_EQ(shared.placements[0].program->nconsts, 2);
        for (const Placement& p : shared.placements) EXPECT_EQ(p.consts, (std::vector<uint32_t>{uint32_t(p.x), uint32_t(p.y)}));
        for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
            const Outcome a = run(shared, mode), b = run(own, mode);
            ASSERT_TRUE(a.rep.ok && b.rep.ok) << a.rep.error << b.rep.error;
            EXPECT_EQ(a.checksum, b.checksum);   // SRAM, registers, statistics, the cycle
            EXPECT_EQ(a.rep.cycles, b.rep.cycles);
            EXPECT_EQ(a.rep.stats.instrs, b.rep.stats.instrs);
            EXPECT_EQ(a.rep.busy_per_pe, b.rep.busy_per_pe);
            EXPECT_EQ(a.rep.values, b.rep.values);
        }
    }
}

// A parameter that changes more than a loaded value (here a compile-time branch) keeps images apart.
TEST(LangSharedImages, ParametersThatChangeTheCodeKeepTheirOwnImages) {
    const char* src = R"(layout {
    grid 4 x 1;
    place p at (0..4, 0) with (k = x, first = x == 0);
}
program p(k: i32, first: bool) {
    export var y: [i32; 2];
    export fn main() {
        y[0] = k * 3;
        if first { y[1] = 7; }
    }
}
host {
    launch main at (0..4, 0);
    run;
    print y at (0..4, 0);
}
)";
    CompileResult cr = compile(src, "apart.wk");
    ASSERT_TRUE(cr.ok()) << (cr.diagnostics.empty() ? "" : format_diagnostic(cr.diagnostics[0]));
    EXPECT_EQ(cr.images(), 2u);   // (0,0) alone; (1..3, 0) share, k in a constant
    EXPECT_EQ(cr.placements[1].program, cr.placements[3].program);
    EXPECT_NE(cr.placements[0].program, cr.placements[1].program);
    const RunReport r = run(cr, RunMode::Cycle).rep;
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.values.at("y@0,0"), (std::vector<float>{0, 7}));
    EXPECT_EQ(r.values.at("y@3,0"), (std::vector<float>{9, 0}));
}

// Optimised, a parameter times a register stays an li (not imuli's immediate), and a variable
// that starts at a parameter takes its word from the PE's constants at load: the PEs share one
// image and run as their own images do (a GPT matmul row's 256 PEs ran 256 images before).
TEST(LangSharedImages, AParameterInArithmeticOrAnInitialValueStillShares) {
    const char* src = R"(layout {
    grid 4 x 1;
    place p at (1..4, 0) with (k = x);
    place p at (0, 0) with (k = 5);
}
program p(k: i32) {
    var me: i32 = k;
    export var y: [i32; 3];
    export fn main() {
        let n = y[2];
        y[0] = k * n + me;
        y[1] = n + k;
        for i in 0..n { y[2] += k; }
    }
}
host {
    fill y at (0..4, 0) with value(3);
    launch main at (0..4, 0);
    run;
    print y at (0..4, 0);
}
)";
    CompileOptions co;
    co.optimise = true;
    const CompileResult shared = compile(src, "param.wk", co);
    co.share_images = false;
    const CompileResult own = compile(src, "param.wk", co);
    ASSERT_TRUE(shared.ok()) << (shared.diagnostics.empty() ? "" : format_diagnostic(shared.diagnostics[0]));
    EXPECT_EQ(own.images(), 4u);
    EXPECT_EQ(shared.images(), 1u);
    for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
        const Outcome a = run(shared, mode), b = run(own, mode);
        ASSERT_TRUE(a.rep.ok && b.rep.ok) << a.rep.error << b.rep.error;
        EXPECT_EQ(a.checksum, b.checksum);
        EXPECT_EQ(a.rep.cycles, b.rep.cycles);
        EXPECT_EQ(a.rep.values, b.rep.values);
        EXPECT_EQ(a.rep.values.at("y@0,0"), (std::vector<float>{20, 8, 18}));   // k = 5: 5*3 + 5, 3 + 5, 3 + 3*5
        EXPECT_EQ(a.rep.values.at("y@2,0"), (std::vector<float>{8, 5, 9}));
    }
}

// The machine refuses a load whose constants do not match the image, and an ldp past them.
TEST(LangSharedImages, LoadChecksTheConstants) {
    ProgramBuilder b("two", "two.wk");
    b.func("main", 1, 0, true);
    b.emit(Op::LDP, 0, 0, 0, 0, 0, 1);
    b.ret();
    Program p = b.finish();
    p.nconsts = 2;
    auto image = std::make_shared<const Program>(p);
    Host h({.w = 2, .h = 1});
    const Fault few = h.load(image, {0, 0, 1, 1}, {5});
    EXPECT_EQ(few.kind, FaultKind::HostError);
    EXPECT_NE(few.message.find("reads 2 per-PE constants; 1 given"), std::string::npos) << few.message;
    EXPECT_FALSE(h.load(image, {0, 0, 1, 1}, {5, 6}));
    EXPECT_FALSE(h.load(image, {1, 0, 1, 1}, {7, 8}));
    EXPECT_EQ(h.machine().core(1, 0).konst[1], 8u);
    p.nconsts = 1;
    const Fault past = h.load(std::make_shared<const Program>(p), {0, 0, 1, 1}, {5});
    EXPECT_EQ(past.kind, FaultKind::BadProgram);
    EXPECT_NE(past.message.find("ldp: constant 1 of 1"), std::string::npos) << past.message;
}
