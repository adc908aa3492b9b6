// lang_const_override_test.cpp: a value given for a constant from outside the file
// (CompileOptions::constants, the CLI's --const) gets the checks the same literal gets in the
// file: f32's range and smallest, the integer type's range. The error is at the constant's value
// and says the value came from the override; nothing follows from it.
#include "engine/lang/compile.h"

#include <gtest/gtest.h>

#include <string>

using namespace wl::lang;

namespace {

// A file with an untyped float constant, an untyped integer one and typed ones.
const char* kSource =
    "const ALPHA = 0.1;\n"
    "const STEPS = 5;\n"
    "const W: u32 = 1;\n"
    "const G: f32 = 2.0;\n"
    "layout { grid 1 x 1; place p at (0, 0); }\n"
    "program p {\n"
    "    export var y: [f32; 2];\n"
    "    export var n: [u32; 1];\n"
    "    export fn main() {\n"
    "        for i in 0..STEPS { y[0] = y[0] + ALPHA * G; }\n"
    "        n[0] = W;\n"
    "    }\n"
    "}\n"
    "host { launch main at (0, 0); run; print y at (0, 0); }\n";

CompileResult compiled(const std::string& name, double v) {
    CompileOptions co;
    co.constants[name] = v;
    return compile(kSource, "k.wk", co);
}

// The one diagnostic of a refused override, formatted.
std::string refusal(const std::string& name, double v) {
    const CompileResult r = compiled(name, v);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.diagnostics.size(), 1u) << "one error, nothing following from it";
    return r.diagnostics.empty() ? "" : format_diagnostic(r.diagnostics[0]);
}

}  // namespace

TEST(LangConstOverride, AnF32ValueGetsTheLiteralsRangeAndSmallest) {
    EXPECT_EQ(refusal("ALPHA", 1e39), "k.wk:1:15: error: constant override 'ALPHA': 1e+39 is out of range for f32 (largest 3.40282e+38)");
    EXPECT_EQ(refusal("ALPHA", -3.5e38), "k.wk:1:15: error: constant override 'ALPHA': -3.5e+38 is out of range for f32 (largest 3.40282e+38)");
    EXPECT_EQ(refusal("ALPHA", 1e-50),
              "k.wk:1:15: error: constant override 'ALPHA': 1e-50 is below f32's smallest (1.4e-45): it would be 0; write 0.0");
    EXPECT_EQ(refusal("G", 1e39), "k.wk:4:16: error: constant override 'G': 1e+39 is out of range for f32 (largest 3.40282e+38)");
    // The extremes f32 holds are taken, as the literals are; an untyped float constant stays f32 for a whole number.
    EXPECT_TRUE(compiled("G", 3.4e38).ok());
    EXPECT_TRUE(compiled("G", -3.4e38).ok());
    EXPECT_TRUE(compiled("ALPHA", 1.5e-45).ok());
    EXPECT_TRUE(compiled("ALPHA", 2).ok()) << format_diagnostic(compiled("ALPHA", 2).diagnostics[0]);
    EXPECT_TRUE(compiled("ALPHA", 0).ok());
}

TEST(LangConstOverride, AnIntegerValueGetsItsTypesRangeWithoutWrapping) {
    // Untyped and written as an integer: i32, as the literal in the file would be.
    EXPECT_EQ(refusal("STEPS", -2147483649.0),
              "k.wk:2:15: error: constant override 'STEPS': -2147483649 does not fit in i32 (i32 holds -2147483648 to 2147483647)");
    EXPECT_EQ(refusal("STEPS", -4294967291.0),
              "k.wk:2:15: error: constant override 'STEPS': -4294967291 does not fit in i32 (i32 holds -2147483648 to 2147483647)");
    EXPECT_EQ(refusal("STEPS", -9999999999999999999999.0),
              "k.wk:2:15: error: constant override 'STEPS': -1e+22 does not fit in i32 (i32 holds -2147483648 to 2147483647)");
    EXPECT_EQ(refusal("STEPS", 4294967298.0),
              "k.wk:2:15: error: constant override 'STEPS': 4294967298 does not fit in i32 (i32 holds -2147483648 to 2147483647)");
    EXPECT_EQ(refusal("W", -1), "k.wk:3:16: error: constant override 'W': -1 does not fit in u32 (u32 holds 0 to 4294967295)");
    EXPECT_EQ(refusal("W", 4294967296.0), "k.wk:3:16: error: constant override 'W': 4294967296 does not fit in u32 (u32 holds 0 to 4294967295)");
    EXPECT_EQ(refusal("W", 2.5), "k.wk:3:16: error: constant override 'W': 2.5 is not an integer: u32 holds whole numbers");
    // The ends of each type are taken.
    EXPECT_TRUE(compiled("W", 4294967295.0).ok());
    EXPECT_TRUE(compiled("STEPS", 2147483647.0).ok());
    CompileOptions co;
    co.constants["STEPS"] = -2147483648.0;
    co.constants["W"] = 0;
    EXPECT_TRUE(compile(kSource, "k.wk", co).ok());
}

// An untyped integer constant given a fraction becomes f32, as the literal 2.5 in the file would:
// the file's uses of it are then what refuses it, at their place.
TEST(LangConstOverride, AFractionForAnUntypedIntegerIsAnF32) {
    const CompileResult r = compiled("STEPS", 2.5);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(format_diagnostic(r.diagnostics[0]), "k.wk:10:21: error: a 'for' range needs i32 bounds, found f32");
}
