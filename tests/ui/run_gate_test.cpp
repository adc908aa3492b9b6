// run_gate_test.cpp: an edited kernel never runs the old build; errors are named.
#include "ui/run_gate.h"

#include "engine/lang/compile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace wlui;
using wl::lang::Diagnostic;
using wl::lang::Severity;

TEST(RunGate, NothingLoadedMeansCompileFirstOrRefuse) {
    RunGate g;
    EXPECT_EQ(g.judge(3, {}), RunGate::Verdict::Compile);
    EXPECT_EQ(g.judge(3, {Diagnostic{"k.wk", 2, 5, Severity::Error, "x", {}}}), RunGate::Verdict::Blocked);
}

TEST(RunGate, TheLoadedTextRunsAndAnEditedOneDoesNot) {
    RunGate g;
    g.loaded(7);
    EXPECT_EQ(g.judge(7, {}), RunGate::Verdict::Ready);
    EXPECT_EQ(g.judge(8, {}), RunGate::Verdict::Compile);
    EXPECT_EQ(g.judge(8, {Diagnostic{"k.wk", 44, 13, Severity::Error, "unknown builtin", {}}}), RunGate::Verdict::Blocked);
    g.unloaded();
    EXPECT_EQ(g.judge(7, {}), RunGate::Verdict::Compile);
}

TEST(RunGate, WarningsDoNotBlock) {
    RunGate g;
    g.loaded(1);
    EXPECT_EQ(g.judge(2, {Diagnostic{"k.wk", 1, 1, Severity::Warning, "unused", {}}}), RunGate::Verdict::Compile);
}

TEST(RunGate, WhyNamesTheCountAndTheFirstErrorsPlace) {
    // A real compiler report: the student's typo (fmacs -> fmacz) in gemv, line 44.
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/gemv.wk");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string src = ss.str();
    const size_t at = src.find("fmacs(mem(y)");
    ASSERT_NE(at, std::string::npos);
    src[at + 4] = 'z';
    const auto r = wl::lang::compile(src, "gemv.wk");
    ASSERT_FALSE(r.ok());
    const std::string why = RunGate::why(r.diagnostics);
    EXPECT_EQ(why.rfind("not compiled: ", 0), 0u) << why;
    EXPECT_NE(why.find(" at 44:"), std::string::npos) << why;
    EXPECT_EQ(RunGate::why({}), "");
    EXPECT_EQ(RunGate::why({Diagnostic{"k.wk", 44, 13, Severity::Error, "a", {}}, Diagnostic{"k.wk", 50, 1, Severity::Error, "b", {}}}),
              "not compiled: 2 errors at 44:13");
}
