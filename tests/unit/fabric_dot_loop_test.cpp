// fabric_dot_loop_test.cpp: fast mode's macro-op for loops of dot products (engine/fabric/dot_loop.h)
// held to cycle mode (cycle_mode_oracle.h), with both compilers. The kernels are GEMV rows as
// models/kernels/matmul.wk writes them: the batches the macro-op takes whole (row counts around
// its chains of 8 and batches of 64, odd lengths, an x that steps too),
// and what it must hand back or take apart (plain code that reads or writes the products, a store
// into a later row, products that meet a row, an operand or a store that leaves SRAM, slices that
// end inside the loop).
#include "cycle_mode_oracle.h"
#include "engine/fabric/dot_loop.h"
#include "engine/fabric/program.h"
#include "engine/lang/compile.h"
#include "kernel_files.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

using namespace wl;
using namespace wl::lang;
using namespace wl::oracle;

namespace {

// One PE: NC rows of K weights times x, each sum plus b[j] into y[j], the products in pr; `body` is
// what follows the sum, `step` how far the next row is (wo: the row's offset).
std::string kernel(int nc, int k, const std::string& body = "y[j] = s + b[j];", const std::string& step = "K",
                   const std::string& x = "mem(x, 0, K)", const std::string& products = "mem(pr, 0, K)") {
    return "const NC = " + std::to_string(nc) + ";\nconst K = " + std::to_string(k) + ";\n"
           "layout { grid 1 x 1; place p at (0, 0); }\n"
           "program p() {\n"
           "    export var w: [f32; 4800];\n"
           "    export var x: [f32; 96];\n"
           "    export var b: [f32; 80];\n"
           "    export var y: [f32; 80];\n"
           "    export var pr: [f32; 96];\n"
           "    export fn main() {\n"
           "        let wo = 0;\n"
           "        for j in 0..NC {\n"
           "            fmuls(" + products + ", mem(w, wo, K), " + x + ");\n"
           "            let s = fsums(" + products + ");\n"
           "            " + body + "\n"
           "            wo += " + step + ";\n"
           "        }\n"
           "    }\n"
           "}\n"
           "host { fill w at (0, 0) with random(1); fill x at (0, 0) with random(2); fill b at (0, 0) with random(3);\n"
           "       launch main at (0, 0); run; print y at (0, 0); print pr at (0, 0); print w at (0, 0); }\n";
}

bool has_dot_loop(const CompileResult& cr) {
    for (const Placement& p : cr.placements)
        if (!find_dot_loops(*p.program).empty()) return true;
    return false;
}

struct Case {
    const char* name;
    std::string src;
    bool faults;
};

}  // namespace

TEST(FastModeDotLoop, MatchesCycleModeOnEveryPath) {
    const Case cases[] = {
        {"5 rows of 16 (qkv's shape)", kernel(5, 16), false},
        {"one row of 96 (fcproj's)", kernel(1, 96), false},
        {"13 rows of 7 (a chain of 8 and one of 5, an odd length)", kernel(13, 7), false},
        {"70 rows of 4 (more than a batch)", kernel(70, 4), false},
        {"no bias, the sum stored as it is", kernel(9, 12, "y[j] = s;"), false},
        {"x steps with the rows", kernel(6, 8, "y[j] = s;", "K", "mem(w, wo + 2400, K)"), false},
        {"the plain code reads the products", kernel(6, 8, "y[j] = s + pr[3];"), false},
        {"the plain code stores into the products", kernel(6, 8, "pr[j] = s;"), false},
        {"a store into a later row", kernel(9, 8, "w[wo + 2 * K + 1] = s;"), false},
        {"the products meet a later row", kernel(9, 8, "y[j] = s;", "K", "mem(x, 0, K)", "mem(w, 40, K)"), false},
        {"a row leaves SRAM in iteration 3", kernel(6, 8, "y[j] = s;", "5000"), true},
        {"a store leaves SRAM in iteration 4", kernel(9, 8, "y[j * 2000] = s;"), true},
    };
    for (const Case& k : cases) {
        for (bool optimise : {false, true}) {
            SCOPED_TRACE(std::string(k.name) + (optimise ? ", --optimise" : ", plain code"));
            CompileResult cr;
            if (!compiled(k.src, "dot_loop.wk", optimise, &cr)) continue;
            if (optimise) {
                EXPECT_TRUE(has_dot_loop(cr));
            }
            Ran c = run(cr, RunMode::Cycle), f = run(cr, RunMode::Fast);
            EXPECT_EQ(!c.rep.ok, k.faults) << c.rep.error;
            if (k.faults) {
                EXPECT_EQ(fault_kind_name(c.rep.fault.kind), fault_kind_name(FaultKind::OutOfBounds)) << c.rep.error;
            }
            expect_same(c, f);
            for (uint64_t slice : {7u, 250u}) {
                SCOPED_TRACE("slice " + std::to_string(slice));
                expect_same(c, run(cr, RunMode::Fast, slice));
            }
        }
    }
}

// The shape is the loader's to find: matmul.wk's gemv rows are one; a loop whose daddr's step
// changes inside it, whose fsums reads something other than the products, or whose bound changes,
// is not.
TEST(FastModeDotLoop, FindsOnlyLoopsOfItsShape) {
    {
        const std::string src = wl::testing::slurp(std::filesystem::path(WAFERLAB_SOURCE_DIR) / "models/kernels/matmul.wk");
        CompileResult cr;
        ASSERT_TRUE(compiled(src, "matmul.wk", true, &cr));
        EXPECT_TRUE(has_dot_loop(cr));
    }
    Program p;
    const auto in = instr;
    p.code = {
        in(Op::FMULS, 3, 5, 4, 0, 0),    // 0: head
        in(Op::FSUMS, 0, 3, 0, 8, 0),    // 1
        in(Op::ST, 0, 6, 0, 8, 512),     // 2 (st [r6 + 512], r8)
        in(Op::DADDR, 5, 7, 0, 0, 0),    // 3
        in(Op::IADDI, 3, 3, 0, 0, 1),    // 4
        in(Op::BLT, 3, 4, 0, 0, 0),      // 5
        in(Op::FMULS, 3, 5, 4, 0, 0),    // 6: head
        in(Op::FSUMS, 0, 3, 0, 8, 0),    // 7
        in(Op::IADDI, 7, 7, 0, 0, 64),   // 8: the daddr's step changes
        in(Op::DADDR, 5, 7, 0, 0, 0),    // 9
        in(Op::BLT, 3, 4, 0, 0, 6),      // 10
        in(Op::FMULS, 3, 5, 4, 0, 0),    // 11: head
        in(Op::FSUMS, 0, 5, 0, 8, 0),    // 12: sums a row, not the products
        in(Op::BLT, 3, 4, 0, 0, 11),     // 13
        in(Op::FMULS, 3, 5, 4, 0, 0),    // 14: head
        in(Op::FSUMS, 0, 3, 0, 8, 0),    // 15
        in(Op::IADDI, 3, 3, 0, 0, 1),    // 16
        in(Op::IADDI, 4, 4, 0, 0, -1),   // 17: the bound changes
        in(Op::BLT, 3, 4, 0, 0, 14),     // 18
    };
    const DotLoops found = find_dot_loops(p);
    ASSERT_EQ(found.loops.size(), 1u);
    EXPECT_NE(found.find(0), nullptr);
    EXPECT_EQ(found.loops[0].blt, 5u);
    EXPECT_EQ(found.loops[0].counter_step, 1);
    EXPECT_EQ(found.find(6), nullptr);
    EXPECT_EQ(found.find(11), nullptr);
    EXPECT_EQ(found.find(14), nullptr);
}

// dot_rows gives fmuls-then-fsums' bits for every row count (chains of 8 and the rest), the
// products of the last row with them, and the signs of zeros (+0 first: -0 products sum to +0).
TEST(FastModeDotLoop, RowsAreFsumsOfFmuls) {
    const uint32_t n = 37;
    std::vector<float> a(20 * n), x(n), last(n);
    for (size_t k = 0; k < a.size(); ++k) a[k] = std::ldexp(float(int(k * 2654435761u % 2001) - 1000), -int(k % 13));
    for (uint32_t k = 0; k < n; ++k) x[k] = std::ldexp(float(int(k * 40503u % 999) - 499), -int(k % 7)) * (k % 5 ? 1.0f : -0.0f);
    for (uint32_t rows = 1; rows <= 20; ++rows) {
        SCOPED_TRACE(rows);
        float s[20];
        dot_rows(a.data(), n, x.data(), 0, n, rows, s, last.data());
        for (uint32_t r = 0; r < rows; ++r) {
            float acc = 0.0f;
            for (uint32_t k = 0; k < n; ++k) acc = acc + a[r * n + k] * x[k];
            EXPECT_EQ(std::signbit(s[r]), std::signbit(acc));
            EXPECT_EQ(s[r], acc);
            if (r + 1 == rows) {
                for (uint32_t k = 0; k < n; ++k) EXPECT_EQ(last[k], a[r * n + k] * x[k]) << k;
            }
        }
    }
}
