// lang_kernel_run_test.cpp: running a kernel in slices (as the app does, one
// slice a frame) gives the same bits as running it at once, and a copy of a
// run is a snapshot that continues identically.
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

using namespace wl::lang;

namespace {

std::shared_ptr<const CompileResult> compile_example(const std::string& name) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    auto cr = std::make_shared<const CompileResult>(compile(ss.str(), name));
    EXPECT_TRUE(cr->ok()) << name;
    return cr;
}

const char* kExamples[] = {"hello.wk", "broadcast.wk", "reduction.wk", "gemv.wk",
                           "stencil.wk", "summa.wk", "cannon.wk", "allreduce.wk"};


}  // namespace

TEST(KernelRun, SlicesGiveTheSameBitsAsOneRun) {
    for (const char* name : kExamples) {
        auto cr = compile_example(name);
        KernelRun whole(cr);
        whole.finish();
        ASSERT_TRUE(whole.ok()) << name << ": " << whole.error();
        for (uint64_t slice : {1ull, 7ull, 250ull}) {
            KernelRun sliced(cr);
            int steps = 0;
            while (!sliced.done()) {
                uint64_t ran = sliced.step(slice);
                EXPECT_LE(ran, slice);
                ++steps;
            }
            ASSERT_TRUE(sliced.ok()) << name << ": " << sliced.error();
            EXPECT_EQ(sliced.machine().checksum(), whole.machine().checksum()) << name << " slice " << slice;
            EXPECT_EQ(sliced.cycle(), whole.cycle()) << name;
            EXPECT_EQ(sliced.report().output, whole.report().output) << name;
            if (slice == 1) {
                EXPECT_GE(uint64_t(steps), whole.cycle()) << name;
            }
        }
    }
}

TEST(KernelRun, ACopyIsASnapshotThatContinuesIdentically) {
    auto cr = compile_example("summa.wk");
    KernelRun run(cr);
    run.step(500);
    ASSERT_FALSE(run.done());
    KernelRun snap = run;                     // rewind point
    const uint64_t at = run.cycle();
    run.finish();
    const uint64_t end_sum = run.machine().checksum();
    EXPECT_NE(snap.machine().checksum(), end_sum);
    EXPECT_EQ(snap.cycle(), at);
    snap.finish();
    EXPECT_EQ(snap.machine().checksum(), end_sum);
    EXPECT_EQ(snap.report().output, run.report().output);
}

TEST(KernelRun, WatchdogInSlicesMatchesOneRun) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/tests/fixtures/spin.wk");
    std::stringstream ss;
    ss << in.rdbuf();
    auto cr = std::make_shared<const CompileResult>(compile(ss.str(), "spin.wk"));
    ASSERT_TRUE(cr->ok()) << (cr->diagnostics.empty() ? "" : format_diagnostic(cr->diagnostics[0]));
    RunOptions opt;
    opt.cycle_budget = 1000;
    RunReport whole = run_kernel(*cr, opt);
    ASSERT_FALSE(whole.ok);
    EXPECT_EQ(whole.fault.kind, wl::FaultKind::Watchdog);
    KernelRun sliced(cr, opt);
    while (!sliced.done()) sliced.step(33);
    EXPECT_FALSE(sliced.ok());
    EXPECT_EQ(sliced.error(), whole.error);
    EXPECT_EQ(sliced.cycle(), whole.cycles);
    EXPECT_NE(whole.error.find("spin.wk:9:"), std::string::npos) << whole.error;   // the loop's place
}

TEST(KernelRun, StepZeroPerformsHostStatementsOnly) {
    auto cr = compile_example("hello.wk");
    KernelRun run(cr);
    EXPECT_EQ(run.step(0), 0u);
    EXPECT_EQ(run.cycle(), 0u);
    ASSERT_NE(run.current(), nullptr);
    EXPECT_EQ(run.current()->kind, HostKind::Run);   // fills and launches done, waiting to run
}

TEST(KernelRun, AKernelThatDoesNotCompileIsAnErrorNotACrash) {
    auto cr = std::make_shared<const CompileResult>(compile("program {", "bad.wk"));
    KernelRun run(cr);
    EXPECT_TRUE(run.done());
    EXPECT_FALSE(run.ok());
    EXPECT_EQ(run.step(100), 0u);
}

// A host block's prints stop at RunOptions::print_limit: the line that crosses it is cut there, one
// notice follows, and nothing is printed after it. What print reads is still read in full.
TEST(KernelRun, PrintsStopAtTheLimitWithANotice) {
    const char* src = "layout { grid 4 x 1; place p at (0..4, 0); }\n"
                      "program p { export var a: [i32; 100]; }\n"
                      "host { fill a at (0..4, 0) with iota(0, 1); print a at (0..4, 0); print a at (0, 0); }\n";
    CompileResult cr = compile(src, "p.wk");
    ASSERT_TRUE(cr.ok()) << (cr.diagnostics.empty() ? "" : cr.diagnostics[0].message);
    RunReport whole = run_kernel(cr);
    ASSERT_EQ(whole.output.size(), 5u);
    EXPECT_FALSE(whole.output_truncated);
    uint64_t all = 0;
    for (const std::string& l : whole.output) all += l.size();

    RunOptions opt;
    opt.print_limit = whole.output[0].size() + 10;
    RunReport cut = run_kernel(cr, opt);
    EXPECT_TRUE(cut.ok) << cut.error;
    EXPECT_TRUE(cut.output_truncated);
    ASSERT_EQ(cut.output.size(), 3u);
    EXPECT_EQ(cut.output[0], whole.output[0]);
    EXPECT_EQ(cut.output[1], whole.output[1].substr(0, 10));
    EXPECT_EQ(cut.output[2], print_truncated_notice(opt.print_limit));
    EXPECT_EQ(cut.output[2], "... output truncated after " + std::to_string(opt.print_limit) + " bytes (a host block prints at most that much)");
    EXPECT_EQ(cut.values, whole.values);
    EXPECT_EQ(cut.host_out_bytes, whole.host_out_bytes);

    opt.print_limit = all;   // exactly enough: nothing is cut
    RunReport exact = run_kernel(cr, opt);
    EXPECT_FALSE(exact.output_truncated);
    EXPECT_EQ(exact.output, whole.output);
    opt.print_limit = 0;     // nothing at all: only the notice
    RunReport none = run_kernel(cr, opt);
    ASSERT_EQ(none.output.size(), 1u);
    EXPECT_EQ(none.output[0], print_truncated_notice(0));
}

// The values prints keep for checks stop at RunOptions::values_limit floats (a whole 256x256 mesh's
// SRAM printed would be gigabytes): the PEs past it keep their text, not their values.
TEST(KernelRun, PrintedValuesAreKeptUpToTheLimit) {
    const char* src = "layout { grid 4 x 1; place p at (0..4, 0); }\n"
                      "program p { export var a: [i32; 100]; }\n"
                      "host { fill a at (0..4, 0) with iota(0, 1); print a at (0..4, 0); }\n";
    CompileResult cr = compile(src, "p.wk");
    ASSERT_TRUE(cr.ok());
    const RunReport whole = run_kernel(cr);
    RunOptions opt;
    opt.values_limit = 250;
    const RunReport kept = run_kernel(cr, opt);
    EXPECT_TRUE(kept.ok) << kept.error;
    EXPECT_EQ(kept.output, whole.output);
    ASSERT_EQ(kept.values.size(), 2u);
    EXPECT_EQ(kept.values.at("a@0,0"), whole.values.at("a@0,0"));
    EXPECT_EQ(kept.values.at("a@1,0"), whole.values.at("a@1,0"));
}
