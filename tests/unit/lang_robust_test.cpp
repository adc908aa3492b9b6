// lang_robust_test.cpp: hostile input gets diagnostics, never a crash or a
// hang; lesson-sized kernels compile quickly.
#include "engine/lang/compile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace wl::lang;

namespace {

// What every compile of any input must give: a verdict that agrees with its error
// count, diagnostics that each name a place inside the source and say something,
// in source order, capped, and the same list on a second compile.
void expect_well_formed(const std::string& src, const CompileResult& r) {
    int lines = 1;   // a line ends at LF, CRLF or a lone CR, as the lexer counts
    for (size_t k = 0; k < src.size(); ++k) lines += src[k] == '\n' || (src[k] == '\r' && (k + 1 == src.size() || src[k + 1] != '\n'));
    int errors = 0;
    for (const Diagnostic& d : r.diagnostics) {
        if (d.severity == Severity::Error) errors++;
        EXPECT_FALSE(d.message.empty());
        EXPECT_GE(d.line, 1) << d.message;   // the cap's own line too: at the last one kept
        EXPECT_LE(d.line, lines) << d.message;
        EXPECT_GE(d.col, 1) << d.message;
    }
    EXPECT_EQ(r.ok(), r.errors == 0);
    EXPECT_LE(errors, r.errors);   // past the cap, errors are counted but not kept
    EXPECT_LE(r.diagnostics.size(), Diagnostics::kMaxReported + 1);
    for (size_t k = 1; k < r.diagnostics.size(); ++k) {
        const Diagnostic &a = r.diagnostics[k - 1], &b = r.diagnostics[k];
        EXPECT_TRUE(a.line < b.line || (a.line == b.line && a.col <= b.col))
            << a.line << ":" << a.col << " " << a.message << " before " << b.line << ":" << b.col << " " << b.message;
    }
    CompileResult again = compile(src, r.diagnostics.empty() ? "x.wk" : r.diagnostics[0].file);
    ASSERT_EQ(again.diagnostics.size(), r.diagnostics.size());
    for (size_t k = 0; k < r.diagnostics.size(); ++k) EXPECT_EQ(again.diagnostics[k].message, r.diagnostics[k].message);
}

}  // namespace

TEST(LangRobust, RandomBytes) {
    uint32_t s = 12345;
    for (int round = 0; round < 200; ++round) {
        std::string src(size_t(1 + round * 7), '\0');
        for (char& c : src) {
            s = s * 1664525u + 1013904223u;
            c = char(s >> 24);
        }
        CompileResult r = compile(src, "rand.wk");
        EXPECT_FALSE(r.ok()) << "random bytes compiled";
        expect_well_formed(src, r);
        if (HasFailure()) return;
    }
}

TEST(LangRobust, RandomTokenSoup) {
    const char* words[] = {"program", "p", "{", "}", "(", ")", "fn", "task", "on", "let", "x", "=", "1", ";", "if", "while", "for",
                           "in", "..", "[", "]", "f32", ":", ",", "layout", "grid", "place", "route", "rx", "tx", "east", "ramp",
                           "host", "fill", "with", "iota", "send", "mem", "fmacs", "async", "then", "activate", "+", "*", "-", "->",
                           "return", "var", "export", "colour", "3", "2.5", "at", "x"};
    uint32_t s = 99;
    int failed = 0;
    for (int round = 0; round < 300; ++round) {
        std::string src;
        for (int k = 0; k < 200; ++k) {
            s = s * 1664525u + 1013904223u;
            src += words[(s >> 16) % (sizeof words / sizeof words[0])];
            src += ' ';
        }
        CompileResult r = compile(src, "soup.wk");
        failed += !r.ok();
        expect_well_formed(src, r);
        if (HasFailure()) return;
    }
    EXPECT_GT(failed, 250) << "the soup should mostly be rejected, with diagnostics";
}

TEST(LangRobust, TenMegabyteFile) {
    std::string src = "program p {\n    export var a: [f32; 4];\n    export fn main() {\n";
    while (src.size() < 10u * 1024 * 1024) src += "        a[1] = a[2] + 3.0 * a[3];\n";
    src += "    }\n}\n";
    CompileResult r = compile(src, "big.wk");   // no crash, no quadratic blow-up stalling the suite
    EXPECT_TRUE(r.ok());
}

TEST(LangRobust, TenMegabytesOfGarbageIsCapped) {
    std::string src(10u * 1024 * 1024, '@');
    for (size_t k = 0; k < src.size(); k += 97) src[k] = ' ';
    CompileResult r = compile(src, "junk.wk");
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.diagnostics.back().message, "too many problems; stopped reporting after 200");
    expect_well_formed(src, r);
}

// The cap's own line stands where the reporting stopped, at the last diagnostic kept: a place
// in the file, which every reader (the CLI's file:line:col, --json, the editor's list) can show.
TEST(LangRobust, TheCapsLineIsAtTheLastOneKept) {
    std::string src;
    for (int k = 0; k < 500000; ++k) src += "@ ";
    CompileResult r = compile(src, "at.wk");
    ASSERT_EQ(r.diagnostics.size(), Diagnostics::kMaxReported + 1);
    const Diagnostic &last = r.diagnostics[Diagnostics::kMaxReported - 1], &cap = r.diagnostics.back();
    EXPECT_EQ(last.col, 399);   // the 200th '@'
    EXPECT_EQ(cap.message, "too many problems; stopped reporting after 200");
    EXPECT_EQ(cap.severity, Severity::Error);
    EXPECT_EQ(cap.line, last.line);
    EXPECT_EQ(cap.col, last.col);
    EXPECT_EQ(format_diagnostic(cap), "at.wk:1:399: error: too many problems; stopped reporting after 200");
}

// A name of a megabyte, wherever it stands, is cut to 40 bytes and its size in every diagnostic
// and note (docs/reliability.md): no line of stderr, or of --json, is huge.
TEST(LangRobust, AHugeNameIsQuotedShortEverywhere) {
    const std::string n(1000000, 'n');
    // Declared once each, used wrongly: unused, undefined, out of range (a loop's counter, a constant
    // index, a mem() window), a route that goes nowhere, an unexported fill; then with a parameter
    // unknown, a program undefined and a task's colour undefined as well.
    auto kernel = [&](bool more) {
        return "colour " + n + " = 3;\nconst " + n + "x = 1;\nprogram " + n + "g(" + n + "p: i32) {\n    var " + n + "v: [f32; 4];\n"
               "    task " + n + "t(v: f32) on " + n + (more ? "c" : "") + " { }\n    fn " + n + "f() { let " + n + "l = " + n + "u; " + n + "q = 1; }\n"
               "    export fn main() { for " + n + "i in 0..5 { " + n + "v[" + n + "i] = 1.0; } " + n + "v[4] = 1.0; fmovs(mem(" + n + "v, 2, 4), mem(" + n +
               "v)); }\n}\nlayout {\n    grid 2 x 1;\n    place " + n + "g at (0, 0) with (" + n + "p = 1" + (more ? ", " + n + "z = 2" : "") + ");\n" +
               (more ? "    place " + n + "w at (1, 0);\n" : "") + "    route " + n + " at (0, 0) rx ramp tx east;\n}\n"
               "host {\n    fill " + n + "h at (0, 0) with iota(0, 1);\n    launch main at (0, 0);\n    run;\n}\n";
    };
    const std::vector<std::string> sources = {
        kernel(false),
        kernel(true),
        // a parse error that names the token, a constant override that names the constant
        "program p { export fn main() { let x = 1 " + n + "; } }\nlayout { grid 1 x 1; place p at (0, 0); }\n",
        "program p { var a: [f32; 1]; export fn main() { async fmovs(mem(a), mem(a)) then " + n + " t; } }\nlayout { grid 1 x 1; place p at (0, 0); }\n",
        "program p { export var a: [f32; 4]; }\nlayout { grid 1 x 1; place p at (0, 0); }\nhost { fill a at (0, 0) with " + n + "(1); }\n",
        "program p { export fn main() { let x = 12" + n + "; } }\n",
        // a program of a huge name over its SRAM, with a parameter: the instance's name in the message and the note
        "program " + n + "(k: i32) { var a: [f32; 20000]; export fn main() { a[0] = 8.0 / f32(k); } }\nlayout { grid 1 x 1; place " + n + " at (0, 0) with (k = 0); }\n",
    };
    size_t seen = 0;
    for (const std::string& src : sources) {
        CompileOptions o;
        o.constants[n] = 1;   // not the file's: its error names it
        const CompileResult r = compile(src, "names.wk", o);
        EXPECT_FALSE(r.ok());
        seen += r.diagnostics.size();
        for (const Diagnostic& d : r.diagnostics) {
            EXPECT_LT(format_diagnostic(d).size(), 1000u) << format_diagnostic(d).substr(0, 300);
            for (const DiagNote& note : d.notes) EXPECT_LT(note.message.size(), 300u) << note.message.substr(0, 300);
        }
        EXPECT_LT(diagnostics_json(r.diagnostics).dump().size(), 1000u * r.diagnostics.size());
        if (HasFailure()) return;
    }
    EXPECT_GE(seen, 30u);   // the kernels above say that many things about their names
    const CompileResult r = compile("program p { export fn main() { " + n + " = 1; } }\nlayout { grid 1 x 1; place p at (0, 0); }\n", "u.wk");
    ASSERT_EQ(r.errors, 1);
    EXPECT_EQ(r.diagnostics[0].message, "undefined name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...' (1000000 bytes)");
    EXPECT_EQ(quoted("main"), "'main'");   // a short one as it was
    EXPECT_EQ(shown("p(k=1)"), "p(k=1)");
}

TEST(LangRobust, LongOperatorChainIsBounded) {
    std::string e = "1";
    for (int k = 0; k < 100000; ++k) e += "+1";
    std::string src = "program p { export fn main() { let x = " + e + "; } }";
    CompileResult r = compile(src, "chain.wk");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.diagnostics[0].message.find("too deeply nested"), std::string::npos);
}

TEST(LangRobust, ArrayLargerThanSram) {
    CompileResult r = compile("program p { export var a: [f32; 20000]; }\nlayout { grid 1 x 1; place p at (0, 0); }", "big.wk");
    ASSERT_EQ(r.errors, 1);
    EXPECT_EQ(r.diagnostics[0].message, "program p needs 80000 bytes of SRAM at PE (0,0); a PE has 49152 (over by 30848 bytes)");
    CompileOptions small;
    small.sram_bytes = 1024;
    EXPECT_FALSE(compile("program p { export var a: [f32; 300]; }\nlayout { grid 1 x 1; place p at (0, 0); }", "s.wk", small).ok());
}

// Their speed is a benchmark, not a test: `waferlab-cli bench compile` (docs/performance.md).
TEST(LangRobust, EveryExampleCompilesCleanly) {
    namespace fs = std::filesystem;
    int n = 0;
    for (auto& e : fs::directory_iterator(fs::path(WAFERLAB_SOURCE_DIR) / "examples")) {
        if (e.path().extension() != ".wk") continue;
        std::ifstream in(e.path());
        std::stringstream ss;
        ss << in.rdbuf();
        CompileResult r = compile(ss.str(), e.path().filename().string());
        EXPECT_TRUE(r.ok()) << e.path();
        EXPECT_GT(r.placements.size(), 0u) << e.path();
        n++;
    }
    EXPECT_GT(n, 0);
}
