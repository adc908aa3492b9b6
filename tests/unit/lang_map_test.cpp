// lang_map_test.cpp: `map i in a..b { op(...); }` gives the bits of the same `for` loop, in both
// code generators and both run modes, in fewer cycles (one a pass beside the op); a body the map
// instruction cannot issue is an error at its place (map_rule.h).
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace wl;
using namespace wl::lang;

namespace {

// y[0..8) += A[:, j] * x[j] over columns 1 + j * 8, and z = the same with fadds over A's columns, in
// `kw` loops (for or map).
std::string kernel(const std::string& kw) {
    return R"(const N = 5;
layout { grid 2 x 1; place k at (0..2, 0); }
program k {
    export var A: [f32; 1 + N * 8];
    export var x: [f32; N];
    export var y: [f32; 8];
    export var z: [f32; 8];
    export fn main() {
        )" + kw + R"( j in 0..N {
            fmacs(mem(y), mem(y), mem(A, 1 + j * 8, 8), x[j]);
        }
        )" + kw + R"( j in 1..N {
            fadds(mem(z), mem(A, N * 8 - j * 8 + 1, 8), mem(z));
        }
    }
}
host {
    fill A at (0..2, 0) with random(1);
    fill x at (0..2, 0) with random(2);
    launch main at (0..2, 0);
    run;
    print y at (1, 0);
    print z at (1, 0);
}
)";
}

struct Ran {
    RunReport rep;
    std::string code;
};

Ran run(const std::string& src, bool optimise, RunMode mode) {
    CompileOptions co;
    co.optimise = optimise;
    CompileResult cr = compile(src, "map.wk", co);
    EXPECT_TRUE(cr.ok()) << (cr.diagnostics.empty() ? "" : format_diagnostic(cr.diagnostics[0]));
    Ran r;
    if (!cr.ok()) return r;
    r.code = cr.placements[0].program->disassemble();
    RunOptions ro;
    ro.mode = mode;
    KernelRun k(std::make_shared<const CompileResult>(std::move(cr)), ro);
    k.finish();
    r.rep = k.report();
    return r;
}

std::string diagnostics(const std::string& src) {   // a line each
    CompileResult cr = compile(src, "bad.wk", CompileOptions{});
    std::string all;
    for (const Diagnostic& d : cr.diagnostics) all += format_diagnostic(d) + "\n";
    return all;
}

}  // namespace

TEST(LangMap, GivesTheLoopsBitsInFewerCycles) {
    for (bool optimise : {false, true}) {
        SCOPED_TRACE(optimise ? "optimised" : "plain");
        const Ran loop = run(kernel("for"), optimise, RunMode::Cycle);
        ASSERT_TRUE(loop.rep.ok) << loop.rep.error;
        for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
            const Ran m = run(kernel("map"), optimise, mode);
            ASSERT_TRUE(m.rep.ok) << m.rep.error;
            EXPECT_EQ(m.rep.output, loop.rep.output);
            EXPECT_EQ(m.rep.stats.elems, loop.rep.stats.elems);
            EXPECT_LT(m.rep.cycles, loop.rep.cycles);
            EXPECT_NE(m.code.find("map "), std::string::npos) << m.code;
            EXPECT_NE(m.code.find("dstep"), std::string::npos) << m.code;
        }
        EXPECT_EQ(run(kernel("map"), optimise, RunMode::Fast).rep.cycles, run(kernel("map"), optimise, RunMode::Cycle).rep.cycles);
    }
}

// A pass costs its op's cycles (fmacs over 8: 1 + 8) and one more, whatever the code generator.
TEST(LangMap, APassCostsOneCycleBesideItsOp) {
    auto passes = [](int n, bool optimise) {
        const std::string src = "layout { grid 1 x 1; place k at (0, 0); }\n"
                                "program k {\n"
                                "    export var A: [f32; 64];\n"
                                "    export var x: [f32; 8];\n"
                                "    export var y: [f32; 8];\n"
                                "    export fn main() { map j in 0.." + std::to_string(n) +
                                " { fmacs(mem(y), mem(y), mem(A, j * 8, 8), x[j]); } }\n"
                                "}\n"
                                "host { launch main at (0, 0); run; }\n";
        const Ran r = run(src, optimise, RunMode::Cycle);
        EXPECT_TRUE(r.rep.ok) << r.rep.error;
        return r.rep;
    };
    for (bool optimise : {false, true}) {
        const RunReport a = passes(5, optimise), b = passes(7, optimise);
        EXPECT_EQ(b.cycles - a.cycles, 2u * (1 + 1 + 8));
        EXPECT_EQ(b.stats.instrs - a.stats.instrs, 2u);   // the op, issued twice more
    }
}

TEST(LangMap, ABodyItCannotIssueIsAnErrorAtItsPlace) {
    auto with = [](const std::string& body) {
        return "colour c = 3;\n"
               "layout { grid 1 x 1; place k at (0, 0); }\n"
               "program k {\n"
               "    export var a: [f32; 64];\n"
               "    export var s: [f32; 8];\n"
               "    export fn main() {\n"
               "        map j in 0..4 {\n"
               "            " +
               body +
               "\n        }\n"
               "    }\n"
               "}\n"
               "host { launch main at (0, 0); run; }\n";
    };
    EXPECT_NE(diagnostics(with("fmovs(mem(a), mem(s)); fmovs(mem(s), mem(a));")).find("bad.wk:7:9: error: a 'map' body is one vector op"),
              std::string::npos);
    EXPECT_NE(diagnostics(with("let t = 1;")).find("a 'map' body is one vector op"), std::string::npos);
    EXPECT_NE(diagnostics(with("fmovs(mem(s, 0, 4), fabin(c, 4));")).find("bad.wk:8:33: error: a map's operands are mem() descriptors"),
              std::string::npos);
    EXPECT_NE(diagnostics(with("fmovs(mem(s, j * j, 2), mem(a, j, 2));")).find("bad.wk:8:19: error: this operand's offset must step by a constant"),
              std::string::npos);
    EXPECT_NE(diagnostics(with("fmovs(mem(s, 0, j + 1), mem(a, 0, j + 1));")).find("keep their length and stride"), std::string::npos);
    EXPECT_NE(diagnostics(with("fscales(mem(s, 0, 4), mem(a, j * 4, 4), a[j] * 2.0);")).find("bad.wk:8:58: error: a map's scalar is a value"),
              std::string::npos);
    EXPECT_NE(diagnostics(with("async fmovs(mem(s, 0, 4), mem(a, j * 4, 4));")).find("no 'async' or 'then'"), std::string::npos);
    EXPECT_NE(diagnostics(with("fsums(mem(a, j * 4, 4));")).find("gives one value"), std::string::npos);
    // Its bounds are checked as a for loop's: the last pass reads a[63 .. 67).
    EXPECT_NE(diagnostics(with("fmovs(mem(s, 0, 4), mem(a, j * 21, 4));")).find("bad.wk:8:33: warning: mem() window out of range: it reaches a[66]"),
              std::string::npos);
    EXPECT_EQ(diagnostics(with("fscales(mem(s, 0, 4), mem(a, j * 4, 4), a[2 * j + 1]);")).find("error"), std::string::npos);
}

namespace {
// A lesson's solution, and the same with the loop `loop` (its header) as a map, in cycle mode: the
// cycles its text gives for each, and the same output.
void expect_lesson_map(const std::string& solution, const std::string& loop, uint64_t loop_cycles, uint64_t map_cycles) {
    std::ifstream f(std::string(WAFERLAB_SOURCE_DIR) + "/lessons/" + solution);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string as_loop = ss.str();
    std::string as_map = as_loop;
    const size_t at = as_map.find(loop);
    ASSERT_NE(at, std::string::npos) << loop;
    as_map.replace(at, 3, "map");
    const Ran a = run(as_loop, false, RunMode::Cycle), b = run(as_map, false, RunMode::Cycle);
    ASSERT_TRUE(a.rep.ok && b.rep.ok);
    EXPECT_EQ(a.rep.cycles, loop_cycles);
    EXPECT_EQ(b.rep.cycles, map_cycles);
    EXPECT_EQ(b.rep.output, a.rep.output);
}
}  // namespace

// Lesson 7's text: its solution with the local work as a map runs in 79 cycles, not 128, with the
// same y (lessons/07-gemv/lesson.md, "The hardware's way").
TEST(LangMap, LessonSevensMapRunsInTheCyclesItsTextSays) { expect_lesson_map("07-gemv/solution.wk", "for k in 0..NB {", 128, 79); }

// Lesson 9's "Where 2,422 cycles go": its inner loop as a map takes the kernel to 1,286.
TEST(LangMap, LessonNinesMapRunsInTheCyclesItsTextSays) { expect_lesson_map("09-gemm/solution.wk", "for l in 0..B {", 2422, 1286); }

// The shapes an fmacs map's fast path tells apart (CoreExec::map_tile), each against the same for
// loop in cycle mode (one instruction at a time): a tile that stays put, one that moves, a source
// or scalars that overlap the tile (the pass-at-a-time loop, or element by element), a tile that is
// not whole vectors of four.
TEST(LangMap, EveryShapeOfAnFmacsMapGivesTheLoopsBits) {
    auto kernel_of = [](const std::string& kw) {
        return "layout { grid 1 x 1; place k at (0, 0); }\n"
               "program k {\n"
               "    export var b: [f32; 64];\n"
               "    export var w: [f32; 64];\n"
               "    export var y: [f32; 64];\n"
               "    export var z: [f32; 64];\n"
               "    export fn main() {\n"
               "        " + kw + " j in 0..5 { fmacs(mem(y, 0, 12), mem(y, 0, 12), mem(b, j * 4, 12), w[j * 3]); }\n"   // stays put
               "        " + kw + " j in 0..5 { fmacs(mem(y, j * 8, 8), mem(y, j * 8, 8), mem(b, 0, 8), w[j * 3 + 1]); }\n"   // moves
               "        " + kw + " j in 0..4 { fmacs(mem(z, 0, 8), mem(z, 0, 8), mem(z, 2 + j, 8), w[j]); }\n"   // its source overlaps it
               "        " + kw + " j in 0..4 { fmacs(mem(z, j * 4, 8), mem(z, j * 4, 8), mem(z, j * 4 + 2, 8), z[j * 4 + 9]); }\n"   // both
               "        " + kw + " j in 0..4 { fmacs(mem(y, j * 6, 6), mem(y, j * 6, 6), mem(b, j, 6), 0.5); }\n"   // 6: not whole fours
               "        " + kw + " j in 3..1 { fmacs(mem(y), mem(y), mem(b), w[j]); }\n"   // no passes
               "    }\n"
               "}\n"
               "host { fill b at (0, 0) with random(1); fill w at (0, 0) with random(2); fill y at (0, 0) with random(3);\n"
               "       fill z at (0, 0) with random(4); launch main at (0, 0); run; print y at (0, 0); print z at (0, 0); }\n";
    };
    const Ran loop = run(kernel_of("for"), false, RunMode::Cycle);
    ASSERT_TRUE(loop.rep.ok) << loop.rep.error;
    for (bool optimise : {false, true})
        for (RunMode mode : {RunMode::Cycle, RunMode::Fast}) {
            const Ran m = run(kernel_of("map"), optimise, mode);
            ASSERT_TRUE(m.rep.ok) << m.rep.error;
            EXPECT_EQ(m.rep.output, loop.rep.output) << (optimise ? "optimised, " : "plain, ") << (mode == RunMode::Fast ? "fast" : "cycle");
            EXPECT_EQ(m.rep.stats.elems, loop.rep.stats.elems);
        }
}
