// lesson_test.cpp: the guided lessons hold: every lesson folder reads, every solution
// passes its check and every starter fails it (so the check can fail); and the checker
// says what went wrong in words a student can act on.
#include "engine/core/thousands.h"
#include "engine/lessons/check_spec.h"
#include "engine/lessons/lesson.h"
#include "engine/lessons/lesson_check.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using namespace wl::lessons;

namespace {

const std::string kLessons = std::string(WAFERLAB_SOURCE_DIR) + "/lessons";

// Two PEs: (0,0) sends x[0..SENT) east, a data task on (1,0) stores 2v in y.
std::string doubler(int sent) {
    return "colour msg = 3;\n"
           "layout { grid 2 x 1; place s at (0, 0); place r at (1, 0);\n"
           "  route msg at (0, 0) rx ramp tx east; route msg at (1, 0) rx west tx ramp; }\n"
           "program s { export var x: [f32; 4];\n"
           "  export fn main() { for i in 0.." + std::to_string(sent) + " { send(msg, x[i]); } } }\n"
           "program r { export var y: [f32; 4]; var n: i32 = 0;\n"
           "  task got(v: f32) on msg { y[n] = 2.0 * v; n += 1; } }\n"
           "host { fill x at (0, 0) with iota(1, 1); launch main at (0, 0); run; print y at (1, 0); }\n";
}

// Whether `text` ends a bold sum with n: "= 136 cycles**", "**2,422**" (not "12,422**").
bool bold_total(const std::string& text, uint64_t n) {
    std::string s = std::to_string(n);
    for (int at = int(s.size()) - 3; at > 0; at -= 3) s.insert(size_t(at), ",");
    auto digit = [&](size_t i) { return std::isdigit(static_cast<unsigned char>(text[i])) != 0; };
    for (const std::string& end : {std::string("**"), std::string(" cycles**")})
        for (size_t i = text.find(s + end); i != std::string::npos; i = text.find(s + end, i + 1))
            if (i == 0 || !(digit(i - 1) || (text[i - 1] == ',' && i > 1 && digit(i - 2)))) return true;
    return false;
}

CheckSpec spec_of(const std::string& text) {
    std::vector<SpecError> errors;
    CheckSpec s = parse_check_spec(text, &errors);
    EXPECT_TRUE(errors.empty()) << errors[0].line << ": " << errors[0].message;
    return s;
}

}  // namespace

TEST(Lessons, EveryFolderReadsAndTheyAreNumberedFromOne) {
    const LessonSet set = load_lessons(kLessons);
    for (const std::string& e : set.errors) ADD_FAILURE() << e;
    ASSERT_GE(set.lessons.size(), 11u);
    for (size_t i = 0; i < set.lessons.size(); ++i) {
        const Lesson& l = set.lessons[i];
        EXPECT_EQ(l.number, int(i) + 1) << l.dir;
        EXPECT_FALSE(l.title.empty()) << l.dir;
        EXPECT_FALSE(l.spec.hints.empty()) << l.dir << ": a lesson needs at least one hint";
        EXPECT_NE(l.text.find('?'), std::string::npos) << l.dir << ": the text ends with a question";
    }
}

// A lesson folder whose file is missing or a directory says which and why, as any file a user names.
TEST(Lessons, AFileThatCannotBeReadIsNamedWithWhy) {
    const wltest::TempPath root("lessons");
    const std::filesystem::path d = root.path() / "01-first";
    std::filesystem::create_directories(d / "starter.wk");   // a folder where the starter should be
    std::ofstream(d / "lesson.md") << "# First\nWhy?\n";
    std::ofstream(d / "solution.wk") << "";
    const LessonSet set = load_lessons(root.str());
    ASSERT_EQ(set.errors.size(), 2u);
    EXPECT_EQ(set.errors[0], (d / "starter.wk").string() + ": is a directory, not a lesson file");
    EXPECT_EQ(set.errors[1].rfind((d / "check.txt").string() + ": cannot open", 0), 0u) << set.errors[1];
    EXPECT_TRUE(set.lessons.empty());
}

TEST(Lessons, EverySolutionPassesAndEveryStarterFails) {
    const LessonSet set = load_lessons(kLessons);
    ASSERT_FALSE(set.lessons.empty());
    for (const Lesson& l : set.lessons) {
        SCOPED_TRACE(l.dir);
        const Verdict sol = check_kernel(l.spec, l.solution, "solution.wk");
        EXPECT_TRUE(sol.passed) << sol.summary();
        for (const CheckItem& i : sol.items) EXPECT_TRUE(i.ok) << check_kind_name(i.kind) << ": " << i.message;
        const Verdict start = check_kernel(l.spec, l.starter, "starter.wk");
        EXPECT_FALSE(start.passed) << "the starter passes: the lesson has nothing to do";
        int failed = 0;
        for (const CheckItem& i : start.items) failed += !i.ok;
        EXPECT_GE(failed, 1);
        // A training or GPU lesson's starter runs and computes the right values: it fails on the
        // loss or on the time, which is what the lesson is about.
        if (l.spec.trains() || !l.spec.faster_than_gpu.empty()) {
            EXPECT_TRUE(start.ran);
            for (const CheckItem& i : start.items)
                EXPECT_EQ(i.ok, i.kind != CheckKind::Loss && i.kind != CheckKind::Gpu) << check_kind_name(i.kind) << ": " << i.message;
        }
        if (l.spec.trains()) {
            // The threshold sits between the two with room on both sides (losses in lesson.md).
            EXPECT_LT(sol.loss, l.spec.train.loss_below - 0.1) << sol.loss;
            EXPECT_GT(start.loss, l.spec.train.loss_below + 0.1) << start.loss;
            EXPECT_LT(sol.loss, sol.loss_start);
        }
        // A forward lesson's starter runs: it fails on the logits (a wrong kernel) or, with a
        // cycle bound, only on the cycles (a right but slow one), with room on both sides of the
        // line; the text gives the solution's cycles as the verdict prints them.
        if (l.spec.forwards()) {
            const ForwardSpec& f = l.spec.forward;
            EXPECT_TRUE(start.ran);
            const CheckKind reason = f.cycles_below ? CheckKind::Cycles : CheckKind::Values;
            for (const CheckItem& i : start.items) EXPECT_EQ(i.ok, i.kind != reason) << check_kind_name(i.kind) << ": " << i.message;
            if (f.cycles_below) {
                EXPECT_LT(sol.cycles * 11 / 10, f.cycles_below) << sol.cycles;
                EXPECT_GT(start.cycles * 10 / 11, f.cycles_below) << start.cycles;
            }
            EXPECT_TRUE(bold_total(l.text, sol.cycles)) << "lesson.md should give the solution's **" << sol.cycles << " cycles**";
        }
        if (!l.spec.faster_than_gpu.empty()) {
            EXPECT_LT(sol.wafer_s, sol.gpu_s);
            EXPECT_GT(start.wafer_s, start.gpu_s);
        }
        // The budget is a real bound: the solution does not pass by a mile.
        if (l.spec.cycle_budget) {
            EXPECT_GE(sol.cycles * 2, l.spec.cycle_budget) << sol.cycles << " cycles";
            // The text works the count through to what the solution takes: a code generator
            // change that moves it fails here instead of leaving a student a wrong sum.
            EXPECT_TRUE(bold_total(l.text, sol.cycles)) << "lesson.md should add the solution's cycles up to **" << sol.cycles << " cycles**";
        }
    }
}

TEST(LessonCheck, AnEmptyKernelIsACompileErrorAtItsFile) {
    // As `waferlab-cli run` says it (wl::lang::require_layout), not a fault with no place.
    const Verdict v = check_kernel(spec_of("expect y @ (1,0): 2 4 6 8\n"), "\n", "empty.wk");
    EXPECT_FALSE(v.passed);
    ASSERT_EQ(v.items.size(), 1u);
    EXPECT_EQ(v.items[0].kind, CheckKind::Compile);
    EXPECT_NE(v.items[0].message.find("empty.wk:1:1: error: the file is empty"), std::string::npos) << v.items[0].message;
}

TEST(LessonCheck, TheLastWaveletNeverArrived) {
    const CheckSpec spec = spec_of("expect y @ (1,0): 2 4 6 8\nwhen-wrong look at the sender's loop\n");
    const Verdict v = check_kernel(spec, doubler(3), "k.wk");
    EXPECT_FALSE(v.passed);
    ASSERT_EQ(v.items.size(), 1u);
    EXPECT_EQ(v.items[0].message,
              "y @ (1,0) should be 2 4 6 8; you got 2 4 6 0 — the last value never arrived or was never written "
              "(it is still 0); look at the sender's loop");
    EXPECT_TRUE(check_kernel(spec, doubler(4), "k.wk").passed);
}

TEST(LessonCheck, ExplainsAFactorAnOffsetAndNothingWritten) {
    const std::string k = doubler(4);
    EXPECT_NE(check_kernel(spec_of("expect y @ (1,0): 1 2 3 4"), k, "k.wk").items[0].message.find(
                  "every value is 2 times what it should be"), std::string::npos);
    EXPECT_NE(check_kernel(spec_of("expect y @ (1,0): 1 3 5 7"), k, "k.wk").items[0].message.find(
                  "every value is 1 more than it should be"), std::string::npos);
    EXPECT_NE(check_kernel(spec_of("expect y @ (1,0): 2 4 5 8"), k, "k.wk").items[0].message.find(
                  "the first wrong value is number 3: 6 instead of 5"), std::string::npos);
    EXPECT_NE(check_kernel(spec_of("expect y @ (1,0): 2 4 6 8"), doubler(0), "k.wk").items[0].message.find(
                  "nothing was written"), std::string::npos);
    EXPECT_NE(check_kernel(spec_of("expect z @ (1,0): 1"), k, "k.wk").items[0].message.find(
                  "z @ (1,0) was never printed"), std::string::npos);
}

TEST(LessonCheck, ToleranceCyclesAndPes) {
    const std::string k = doubler(4);
    EXPECT_FALSE(check_kernel(spec_of("expect y @ (1,0): 2 4 6 8.01"), k, "k.wk").passed);
    EXPECT_TRUE(check_kernel(spec_of("expect y @ (1,0): 2 4 6 8.01\ntolerance 0.01"), k, "k.wk").passed);
    const Verdict fast = check_kernel(spec_of("expect y @ (1,0): 2 4 6 8\ncycles 1000\npes 2"), k, "k.wk");
    EXPECT_TRUE(fast.passed) << fast.summary();
    const Verdict slow = check_kernel(spec_of("expect y @ (1,0): 2 4 6 8\ncycles 10\npes 3"), k, "k.wk");
    EXPECT_FALSE(slow.passed);
    ASSERT_EQ(slow.items.size(), 3u);
    EXPECT_TRUE(slow.items[0].ok);
    EXPECT_EQ(slow.items[1].kind, CheckKind::Cycles);
    EXPECT_NE(slow.items[1].message.find("over the budget of 10 by " + std::to_string(slow.cycles - 10)), std::string::npos);
    EXPECT_EQ(slow.items[2].message, "2 PEs run a program; this lesson wants 3.");
}

TEST(LessonCheck, CompileErrorsAndFaultsNameThePlace) {
    const CheckSpec spec = spec_of("expect y @ (1,0): 2 4 6 8");
    const Verdict bad = check_kernel(spec, "layout { grid 1 x 1; }\nprogram p { fn f() { let x: i32 = 1.5; } }\n", "bad.wk");
    EXPECT_FALSE(bad.compiled);
    ASSERT_EQ(bad.items.size(), 1u);
    EXPECT_NE(bad.items[0].message.find("bad.wk:2:"), std::string::npos) << bad.items[0].message;
    // The receiver waits for 4 wavelets with a fabin, the sender sends 3: a deadlock at (1,0).
    const std::string hang =
        "colour c = 1;\nlayout { grid 2 x 1; place s at (0, 0); place r at (1, 0);\n"
        "  route c at (0, 0) rx ramp tx east; route c at (1, 0) rx west tx ramp; }\n"
        "program s { export fn main() { for i in 0..3 { send(c, 1.0); } } }\n"
        "program r { export var y: [f32; 4]; export fn main() { fmovs(mem(y), fabin(c, 4)); } }\n"
        "host { launch main at (0..2, 0); run; print y at (1, 0); }\n";
    const Verdict v = check_kernel(spec, hang, "hang.wk");
    EXPECT_TRUE(v.compiled);
    EXPECT_FALSE(v.ran);
    ASSERT_EQ(v.items.size(), 2u);
    EXPECT_EQ(v.items[0].kind, CheckKind::Fault);
    EXPECT_NE(v.items[0].message.find("PE (1,0)"), std::string::npos) << v.items[0].message;
    EXPECT_NE(v.items[0].message.find("hang.wk:5:"), std::string::npos) << v.items[0].message;
    EXPECT_NE(v.items[0].message.find("Nothing could move"), std::string::npos);
    EXPECT_NE(v.items[1].message.find("because the run stopped first"), std::string::npos);
}

TEST(CheckSpec, ReadsEveryDirectiveAndNamesBadLines) {
    std::vector<SpecError> errors;
    const CheckSpec s = parse_check_spec(
        "# a comment\n"
        "expect y @ (3, 0): 1 2.5 -3e2   # trailing comment\n"
        "when-wrong look at the route at (3,0) # kept: free text\n"
        "tolerance 1e-3\ncycles 120\npes 4\nhint first\nhint second\n"
        "expect y @ (3): 1\n"
        "cycles -1\n"
        "pes 1.5\n"
        "colour 3\n"
        "expect q @ (0,0): 1 x\n",
        &errors);
    ASSERT_EQ(s.expects.size(), 1u);
    EXPECT_EQ(s.expects[0].symbol, "y");
    EXPECT_EQ(s.expects[0].x, 3);
    EXPECT_EQ(s.expects[0].values, (std::vector<double>{1, 2.5, -300}));
    EXPECT_EQ(s.expects[0].when_wrong, "look at the route at (3,0) # kept: free text");
    EXPECT_EQ(s.expects[0].line, 2);
    EXPECT_DOUBLE_EQ(s.tolerance, 1e-3);
    EXPECT_EQ(s.cycle_budget, 120u);
    EXPECT_EQ(s.pes, 4);
    EXPECT_EQ(s.hints, (std::vector<std::string>{"first", "second"}));
    ASSERT_EQ(errors.size(), 5u);
    EXPECT_EQ(errors[0].line, 9);
    EXPECT_EQ(errors[1].line, 10);
    EXPECT_EQ(errors[2].line, 11);
    EXPECT_EQ(errors[3].line, 12);
    EXPECT_NE(errors[3].message.find("unknown directive 'colour'"), std::string::npos);
    EXPECT_EQ(errors[4].message, "expect: a value expects a finite number, got 'x'");
}

TEST(LessonCheckSpec, NumbersAreReadWholeInTheirRangeWithoutNanInfinityOrWrap) {
    // The engine's one number parser (parse_number.h), as the CLI's flags: each line names the word.
    auto first_error = [](const std::string& text) {
        std::vector<SpecError> e;
        parse_check_spec(text, &e);
        return e.empty() ? std::string("none") : e[0].message;
    };
    EXPECT_EQ(first_error("expect y @ (0,0): nan\n"), "expect: a value expects a finite number, got 'nan'");
    EXPECT_EQ(first_error("expect y @ (0,0): 1e999\n"), "expect: a value expects a finite number, got '1e999'");
    EXPECT_EQ(first_error("expect y @ (4294967296,0): 1\n"), "expect: the PE is two whole numbers, as in (3,0): expects an integer in 0..255, got '4294967296'");
    EXPECT_EQ(first_error("cycles 1e30\n"), "cycles expects an integer in 1..1000000000000, got '1e30'");
    EXPECT_EQ(first_error("tolerance inf\n"), "tolerance expects a number >= 0, got 'inf'");
    EXPECT_EQ(first_error("pes 18446744073709551617\n"), "pes expects an integer in 1..65536, got '18446744073709551617'");
    EXPECT_EQ(first_error("expect y @ (0,0): 1\ntolerance 0.5\ncycles 100\npes 4\n"), "none");
    EXPECT_EQ(first_error("expect y @ (0,0): 1\rtolerance 0.5\rcycles 100\r"), "none");   // CR-only line ends
}

TEST(LessonCheck, FasterThanGpuTimesTheRunOnTheGpuModel) {
    // Four values on two PEs: a few dozen cycles against the A100's 5 us launch.
    const Verdict small = check_kernel(spec_of("expect y @ (1,0): 2 4 6 8\nfaster-than-gpu a100"), doubler(4), "k.wk");
    EXPECT_TRUE(small.passed) << small.summary();
    ASSERT_EQ(small.items.size(), 2u);
    EXPECT_EQ(small.items[1].kind, CheckKind::Gpu);
    EXPECT_NE(small.items[1].message.find("so it is launch-bound"), std::string::npos) << small.items[1].message;
    EXPECT_NE(small.items[1].message.find("times faster"), std::string::npos);
    EXPECT_GT(small.gpu_s, 5e-6);
    EXPECT_DOUBLE_EQ(small.wafer_s, double(small.cycles) / 1.1e9);
    // A serial loop of 4,000 scalar adds on one PE loses to the launch.
    const std::string slow =
        "layout { grid 1 x 1; place p at (0, 0); }\n"
        "program p { export var y: [f32; 1]; export fn main() { for i in 0..4000 { y[0] = y[0] + 1.0; } } }\n"
        "host { launch main at (0, 0); run; print y at (0, 0); }\n";
    const Verdict v = check_kernel(spec_of("expect y @ (0,0): 4000\nfaster-than-gpu h100"), slow, "slow.wk");
    EXPECT_FALSE(v.passed);
    ASSERT_EQ(v.items.size(), 2u);
    EXPECT_TRUE(v.items[0].ok);
    EXPECT_FALSE(v.items[1].ok);
    EXPECT_NE(v.items[1].message.find("H100"), std::string::npos) << v.items[1].message;
    EXPECT_NE(v.items[1].message.find("the wafer must finish in fewer than"), std::string::npos);
}

// The training check with lesson 13's files, on kernels that break it: what the model compiler
// refuses, and a step that faults, each said as such (the training itself is covered above).
TEST(LessonCheck, ATrainingKernelThatBreaksThePlanOrAStep) {
    const LessonSet set = load_lessons(kLessons);
    const Lesson* train = nullptr;
    for (const Lesson& l : set.lessons)
        if (l.spec.trains()) train = &l;
    ASSERT_NE(train, nullptr);
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string src = train->solution;
        for (size_t at = src.find(from); at != std::string::npos; at = src.find(from, at + to.size())) src.replace(at, from.size(), to);
        return src;
    };
    // Fits at the file's own constants, not at the plan's (V = 45): only the model compiler sees it.
    const Verdict big = check_kernel(train->spec, replaced("var zero: [f32; TP];", "var zero: [f32; select(V == 64, TP, 20000)];"), "mine.wk");
    EXPECT_TRUE(big.compiled);
    EXPECT_FALSE(big.passed);
    ASSERT_EQ(big.items.size(), 1u);
    EXPECT_EQ(big.items[0].kind, CheckKind::Compile);
    EXPECT_NE(big.items[0].message.find("The model compiler could not use your kernel as " + train->spec.train.kernel),
              std::string::npos) << big.items[0].message;
    EXPECT_NE(big.items[0].message.find("49,152 available"), std::string::npos) << big.items[0].message;
    // Without send_dx the logits' backward has nowhere to take the gradient from: step 1 faults.
    const Verdict nodx = check_kernel(train->spec, replaced("send_dx", "send_dz"), "mine.wk");
    EXPECT_FALSE(nodx.passed);
    EXPECT_FALSE(nodx.ran);
    ASSERT_EQ(nodx.items.size(), 1u);
    EXPECT_EQ(nodx.items[0].kind, CheckKind::Fault);
    EXPECT_NE(nodx.items[0].message.find("Training step 1 stopped with a fault"), std::string::npos) << nodx.items[0].message;
    EXPECT_NE(nodx.items[0].message.find("no function 'send_dx'"), std::string::npos) << nodx.items[0].message;
    const Verdict bad = check_kernel(train->spec, "program p { fn f() { let x: i32 = 1.5; } }\n", "mine.wk");
    EXPECT_FALSE(bad.compiled);
    EXPECT_NE(bad.items[0].message.find("mine.wk:1:"), std::string::npos) << bad.items[0].message;
}

TEST(CheckSpec, ReadsTrainLossAndGpuAndNamesBadLines) {
    std::vector<SpecError> errors;
    CheckSpec s = parse_check_spec(
        "loss below 3.4\n"
        "when-wrong look at the gradient\n"
        "train tiny.yaml steps 20 kernel crossentropy.wk mesh 16x8\n"
        "hint h\n",
        &errors);
    EXPECT_TRUE(errors.empty()) << errors[0].line << ": " << errors[0].message;
    EXPECT_TRUE(s.trains());
    EXPECT_EQ(s.train.config, "tiny.yaml");
    EXPECT_EQ(s.train.steps, 20);
    EXPECT_EQ(s.train.kernel, "crossentropy.wk");
    EXPECT_EQ(s.train.mesh_w, 16);
    EXPECT_EQ(s.train.mesh_h, 8);
    EXPECT_DOUBLE_EQ(s.train.loss_below, 3.4);
    EXPECT_EQ(s.train.when_wrong, "look at the gradient");
    EXPECT_EQ(s.train.line, 3);
    s = parse_check_spec("expect y @ (0,0): 1\nfaster-than-gpu h100\n", &errors);
    EXPECT_EQ(s.faster_than_gpu, "h100");
    EXPECT_EQ(s.gpu_line, 2);

    auto first_error = [](const std::string& text) {
        std::vector<SpecError> e;
        parse_check_spec(text, &e);
        return e.empty() ? SpecError{0, "none"} : e[0];
    };
    SpecError e = first_error("expect y @ (0,0): 1\nfaster-than-gpu tpu\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(e.message.find("a100, a100-40gb, h100, same-silicon"), std::string::npos) << e.message;
    e = first_error("hint h\ntrain tiny.yaml steps 0 kernel gelu.wk\nloss below 3\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.message, "train: steps expects an integer in 1..10000, got '0'");
    e = first_error("train tiny.yaml steps 5 kernel ../gelu.wk\nloss below 3\n");
    EXPECT_NE(e.message.find("kernel needs a file name of models/kernels"), std::string::npos) << e.message;
    e = first_error("train tiny.yaml steps 5 kernel gelu.wk\n");
    EXPECT_EQ(e.line, 1);
    EXPECT_NE(e.message.find("train needs a 'loss below X' line"), std::string::npos) << e.message;
    e = first_error("# c\nloss below 3\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(e.message.find("loss below needs a train line"), std::string::npos) << e.message;
    e = first_error("train tiny.yaml steps 5 kernel gelu.wk\nloss under 3\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.message, "loss needs the form 'loss below X', X > 0");
    e = first_error("expect y @ (0,0): 1\ntrain tiny.yaml steps 5 kernel gelu.wk\nloss below 3\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(e.message.find("cannot go with it"), std::string::npos) << e.message;
    e = first_error("when-wrong too early\n");
    EXPECT_EQ(e.message, "when-wrong must follow an expect, a loss, a logits or a cycles below line");
}

TEST(CheckSpec, ReadsForwardLogitsAndCyclesAndNamesBadLines) {
    std::vector<SpecError> errors;
    CheckSpec s = parse_check_spec(
        "hint h\n"
        "forward tiny.yaml kernel matmul.wk mesh 8x8 sparsity 0.75   # a comment\n"
        "logits match\n"
        "when-wrong look at the sum\n"
        "cycles below 350000\n"
        "when-wrong skip the zeros\n",
        &errors);
    EXPECT_TRUE(errors.empty()) << errors[0].line << ": " << errors[0].message;
    ASSERT_TRUE(s.forwards());
    EXPECT_FALSE(s.trains());
    EXPECT_EQ(s.forward.config, "tiny.yaml");
    EXPECT_EQ(s.forward.kernel, "matmul.wk");
    EXPECT_EQ(s.forward.mesh_w, 8);
    EXPECT_EQ(s.forward.mesh_h, 8);
    EXPECT_DOUBLE_EQ(s.forward.sparsity, 0.75);
    EXPECT_FALSE(s.forward.execution);
    EXPECT_TRUE(s.forward.logits_match);
    EXPECT_EQ(s.forward.cycles_below, 350000u);
    EXPECT_EQ(s.cycle_budget, 0u) << "cycles below is the forward's bound, not a host block's budget";
    EXPECT_EQ(s.forward.logits_when_wrong, "look at the sum");
    EXPECT_EQ(s.forward.cycles_when_wrong, "skip the zeros");
    EXPECT_EQ(s.forward.line, 2);
    s = parse_check_spec("logits match\nforward t.yaml kernel matmul.wk execution streaming\n", &errors);
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(s.forward.execution, wl::gpt::Execution::Streaming);
    EXPECT_TRUE(s.forward.logits_match) << "the order of the lines does not matter";

    auto first_error = [](const std::string& text) {
        std::vector<SpecError> e;
        parse_check_spec(text, &e);
        return e.empty() ? SpecError{0, "none"} : e[0];
    };
    SpecError e = first_error("hint h\nforward tiny.yaml matmul.wk\nlogits match\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(e.message.find("forward needs the form"), std::string::npos) << e.message;
    e = first_error("forward tiny.yaml kernel ../matmul.wk\nlogits match\n");
    EXPECT_EQ(e.line, 1);
    EXPECT_NE(e.message.find("kernel needs a file name of models/kernels"), std::string::npos) << e.message;
    e = first_error("# c\nforward tiny.yaml kernel matmul.wk sparsity 1.5\nlogits match\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.message, "forward: sparsity expects a number in (0, 0.95], got '1.5'");
    e = first_error("forward tiny.yaml kernel matmul.wk execution pipelined\nlogits match\n");
    EXPECT_EQ(e.message, "forward: execution is resident or streaming");
    e = first_error("forward tiny.yaml kernel matmul.wk execution streaming sparsity 0.5\nlogits match\n");
    EXPECT_NE(e.message.find("streams dense weights only"), std::string::npos) << e.message;
    e = first_error("forward tiny.yaml kernel matmul.wk\nlogits match\nforward b.yaml kernel gelu.wk\n");
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(e.message.find("only one forward line (the first is line 1)"), std::string::npos) << e.message;
    e = first_error("hint h\nforward tiny.yaml kernel matmul.wk\ncycles below 100\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_NE(e.message.find("forward needs a 'logits match' line"), std::string::npos) << e.message;
    e = first_error("hint h\n\nlogits match\n");
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(e.message.find("logits match needs a forward line"), std::string::npos) << e.message;
    e = first_error("cycles below 100\n");
    EXPECT_EQ(e.line, 1);
    EXPECT_NE(e.message.find("cycles below needs a forward line"), std::string::npos) << e.message;
    e = first_error("forward tiny.yaml kernel matmul.wk\nlogits equal\n");
    EXPECT_EQ(e.line, 2);
    EXPECT_EQ(e.message, "logits needs the form 'logits match'");
    e = first_error("forward tiny.yaml kernel matmul.wk\nlogits match\ncycles below many\n");
    EXPECT_EQ(e.line, 3);
    EXPECT_EQ(e.message, "cycles below expects an integer in 1..1000000000000, got 'many'");
    e = first_error("forward tiny.yaml kernel matmul.wk\nlogits match\ncycles 100\n");
    EXPECT_EQ(e.line, 1);
    EXPECT_NE(e.message.find("its own bound is 'cycles below N'"), std::string::npos) << e.message;
    e = first_error("train t.yaml steps 5 kernel gelu.wk\nloss below 3\nforward t.yaml kernel matmul.wk\nlogits match\n");
    EXPECT_EQ(e.line, 3);
    EXPECT_NE(e.message.find("cannot go with it"), std::string::npos) << e.message;
}

// A forward lesson's verdicts, in numbers: a kernel the planner refuses, and wrong logits named by token and entry.
TEST(LessonCheck, AForwardKernelThatBreaksThePlanOrTheLogits) {
    const LessonSet set = load_lessons(kLessons);
    const Lesson* fwd = nullptr;
    for (const Lesson& l : set.lessons)
        if (l.spec.forwards() && l.spec.forward.cycles_below && l.spec.forward.sparsity > 0) fwd = &l;   // lesson 16's sparse matmul
    ASSERT_NE(fwd, nullptr);
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string src = fwd->solution;
        const size_t at = src.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) src.replace(at, from.size(), to);
        return src;
    };
    // Every sparse weight counted twice: every logit moves.
    const Verdict twice = check_kernel(fwd->spec, replaced("mem(xb, k * TP + xq, n), wv[i]);", "mem(xb, k * TP + xq, n), 2.0 * wv[i]);"), "mine.wk");
    EXPECT_TRUE(twice.ran);
    EXPECT_FALSE(twice.passed);
    ASSERT_GE(twice.items.size(), 1u);
    EXPECT_EQ(twice.items[0].kind, CheckKind::Values);
    EXPECT_FALSE(twice.items[0].ok);
    EXPECT_NE(twice.items[0].message.find("of 720 logits (16 tokens x 45 vocabulary entries) differ from the reference's; "
                                           "the first at token 0, vocabulary entry "),
              std::string::npos) << twice.items[0].message;
    // A cursor that never moves: the launch stops at the watchdog, 20 times the bound, not after 200 M cycles.
    const Verdict stuck = check_kernel(
        fwd->spec, replaced("mem(xb, k * TP + xq, n), wv[i]);\n                        i += 1;", "mem(xb, k * TP + xq, n), wv[i]);"),
        "mine.wk");
    EXPECT_FALSE(stuck.ran);
    ASSERT_EQ(stuck.items.size(), 1u);
    EXPECT_EQ(stuck.items[0].kind, CheckKind::Fault);
    EXPECT_NE(stuck.items[0].message.find("The forward stopped with a fault"), std::string::npos) << stuck.items[0].message;
    EXPECT_NE(stuck.items[0].message.find("its budget of " + wl::thousands(20 * fwd->spec.forward.cycles_below) + " cycles ran out"),
              std::string::npos) << stuck.items[0].message;
    // Fits at the file's own constants, not at the plan's: only the model compiler sees it.
    const Verdict big = check_kernel(fwd->spec, replaced("var zero: [f32; TP];", "var zero: [f32; select(K == 64, TP, 20000)];"), "mine.wk");
    EXPECT_TRUE(big.compiled);
    EXPECT_FALSE(big.ran);
    ASSERT_EQ(big.items.size(), 1u);
    EXPECT_EQ(big.items[0].kind, CheckKind::Compile);
    EXPECT_NE(big.items[0].message.find("The model compiler could not use your kernel as matmul.wk"), std::string::npos)
        << big.items[0].message;
    const Verdict bad = check_kernel(fwd->spec, "program p { fn f() { let x: i32 = 1.5; } }\n", "mine.wk");
    EXPECT_FALSE(bad.compiled);
    EXPECT_NE(bad.items[0].message.find("mine.wk:1:"), std::string::npos) << bad.items[0].message;
}

TEST(LessonSet, AForwardLineNamesAMissingKernelAtItsLine) {
    const wltest::TempPath tmp_root("lessons_forward");
    const std::string root = tmp_root.str();
    const std::string dir = root + "/01-x";
    std::filesystem::create_directories(dir);
    auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir + "/" + name) << text; };
    write("lesson.md", "# X\n?\n");
    write("starter.wk", "");
    write("solution.wk", "");
    write("check.txt", "hint h\n# c\nforward none.yaml kernel matmul.wk\nlogits match\n");
    const LessonSet set = load_lessons(root);
    EXPECT_TRUE(set.lessons.empty());
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_NE(set.errors[0].find("01-x/check.txt:3: "), std::string::npos) << set.errors[0];
    EXPECT_NE(set.errors[0].find("none.yaml"), std::string::npos) << set.errors[0];
}

TEST(LessonSet, ATrainLineNamesAMissingConfigAtItsLine) {
    const wltest::TempPath tmp_root("lessons_train");
    const std::string root = tmp_root.str();
    const std::string dir = root + "/01-x";
    std::filesystem::create_directories(dir);
    auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir + "/" + name) << text; };
    write("lesson.md", "# X\n?\n");
    write("starter.wk", "");
    write("solution.wk", "");
    write("check.txt", "hint h\ntrain none.yaml steps 5 kernel gelu.wk\nloss below 3\n");
    const LessonSet set = load_lessons(root);
    EXPECT_TRUE(set.lessons.empty());
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_NE(set.errors[0].find("01-x/check.txt:2: "), std::string::npos) << set.errors[0];
    EXPECT_NE(set.errors[0].find("none.yaml"), std::string::npos) << set.errors[0];
}

TEST(LessonSet, AMissingFolderIsAnError) {
    const LessonSet set = load_lessons(kLessons + "/no-such-folder");
    EXPECT_TRUE(set.lessons.empty());
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_NE(set.errors[0].find("no lessons folder"), std::string::npos);
}

// A directive, or a word of a train or forward line, given twice would silently take the last:
// each is an error at its line naming the first.
TEST(CheckSpec, ADirectiveOrAWordGivenTwiceIsAnErrorNamingTheFirst) {
    auto errors_of = [](const std::string& text) {
        std::vector<SpecError> e;
        parse_check_spec(text, &e);
        return e;
    };
    std::vector<SpecError> e = errors_of("expect y @ (0,0): 1\npes 1\n# c\npes 2\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].line, 4);
    EXPECT_EQ(e[0].message, "pes is given twice (the first is line 2); give it once");
    e = errors_of("expect y @ (0,0): 1\ntolerance 1\ncycles 5\nfaster-than-gpu h100\ntolerance 2\ncycles 6\nfaster-than-gpu a100\n");
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[0].message, "tolerance is given twice (the first is line 2); give it once");
    EXPECT_EQ(e[1].message, "cycles is given twice (the first is line 3); give it once");
    EXPECT_EQ(e[2].message, "faster-than-gpu is given twice (the first is line 4); give it once");
    e = errors_of("expect y @ (0,0): 1\nwhen-wrong one\nwhen-wrong two\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].line, 3);
    EXPECT_EQ(e[0].message, "when-wrong is given twice for one line (the first is line 2); give it once");
    EXPECT_TRUE(errors_of("expect y @ (0,0): 1\nwhen-wrong one\nexpect y @ (1,0): 2\nwhen-wrong two\n").empty()) << "one each";
    e = errors_of("train tiny.yaml steps 5 kernel gelu.wk\nloss below 3\nloss below 2\n");
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].message, "loss is given twice (the first is line 2); give it once");
    e = errors_of("forward t.yaml kernel matmul.wk\nlogits match\ncycles below 9\nlogits match\ncycles below 8\n");
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].message, "logits is given twice (the first is line 2); give it once");
    EXPECT_EQ(e[1].message, "cycles below is given twice (the first is line 3); give it once");
    e = errors_of("train tiny.yaml steps 1 kernel crossentropy.wk steps 2\nloss below 3\n");
    ASSERT_GE(e.size(), 1u);
    EXPECT_EQ(e[0].line, 1);
    EXPECT_EQ(e[0].message, "train: steps is given twice ('1' and '2'); give it once");
    e = errors_of("forward t.yaml kernel matmul.wk mesh 8x8 mesh 4x4\nlogits match\n");
    ASSERT_GE(e.size(), 1u);
    EXPECT_EQ(e[0].message, "forward: mesh is given twice ('8x8' and '4x4'); give it once");
}

// A rejected line still counts as given for the rules that pair lines: its own error is the one
// said, not "loss below needs a train line" beside the train line the author wrote.
TEST(CheckSpec, ARejectedLineIsTheOnlyError) {
    struct Case {
        const char* text;
        int line;
        const char* message;
    };
    const Case cases[] = {
        {"train tiny.yaml steps 1000000000 kernel crossentropy.wk\nloss below 3.4\nwhen-wrong look at dx\n", 1,
         "train: steps expects an integer in 1..10000, got '1000000000'"},
        {"train tiny.yaml steps 20 kernel crossentropy.wk\nloss below nan\nwhen-wrong look at dx\n", 2,
         "loss below expects a number > 0, got 'nan'"},
        {"train tiny.yaml steps 20 kernel crossentropy.wk\nloss below 1e400\nwhen-wrong look at dx\n", 2,
         "loss below expects a number > 0, got '1e400'"},
        {"train tiny.yaml steps 20 kernel ../../../o/hello.wk\nloss below 3.4\nwhen-wrong look at dx\n", 1,
         "train: kernel needs a file name of models/kernels, as in gelu.wk"},
        {"train tiny.yaml steps 20 kernel crossentropy.wk\nloss under 3\nwhen-wrong look at dx\n", 2, "loss needs the form 'loss below X', X > 0"},
        {"train tiny.yaml steps 20 kernel crossentropy.wk\nloss below 3\x01\n", 2, "column 13: control byte 0x01; a check line is text"},
        {"forward tiny.yaml kernel matmul.wk sparsity 2\nlogits match\nwhen-wrong look at the sum\ncycles below 9\n", 1,
         "forward: sparsity expects a number in (0, 0.95], got '2'"},
        {"forward tiny.yaml kernel matmul.wk\nlogits matches\nwhen-wrong look at the sum\n", 2, "logits needs the form 'logits match'"},
        {"forward tiny.yaml kernel matmul.wk\nlogits match\ncycles below 0\nwhen-wrong skip the zeros\n", 3,
         "cycles below expects an integer in 1..1000000000000, got '0'"},
        {"expect y @ (0,0): x\nwhen-wrong look at the route\n", 1, "expect: a value expects a finite number, got 'x'"},
        {"train tiny.yaml steps 20 kernel crossentropy.wk\nloss below 3\nloss below 2\nwhen-wrong two\n", 3,
         "loss is given twice (the first is line 2); give it once"},
    };
    for (const Case& c : cases) {
        std::vector<SpecError> e;
        parse_check_spec(c.text, &e);
        ASSERT_EQ(e.size(), 1u) << c.text << (e.size() > 1 ? "second: " + e[1].message : "");
        EXPECT_EQ(e[0].line, c.line) << c.text;
        EXPECT_EQ(e[0].message, c.message) << c.text;
    }
    // Advice after a rejected line still comes once.
    std::vector<SpecError> e;
    parse_check_spec("train tiny.yaml steps 20 kernel crossentropy.wk\nloss below nan\nwhen-wrong one\nwhen-wrong two\n", &e);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[1].line, 4);
    EXPECT_EQ(e[1].message, "when-wrong is given twice for one line (the first is line 3); give it once");
}

namespace {

// A lessons folder of one lesson whose check.txt is `check`, beside a models/ folder with lesson
// 13's config and the repository's kernels, as lessons/ sits beside models/.
struct ModelLessons {
    wltest::TempPath root{"lessons_models"};
    std::filesystem::path lesson() const { return root.path() / "lessons" / "01-x"; }
    explicit ModelLessons(const std::string& check) {
        namespace fs = std::filesystem;
        fs::create_directories(lesson());
        fs::create_directories(root.path() / "models");
        fs::copy(std::string(WAFERLAB_SOURCE_DIR) + "/models/kernels", root.path() / "models" / "kernels", fs::copy_options::recursive);
        fs::copy_file(kLessons + "/13-training/tiny.yaml", root.path() / "models" / "tiny.yaml");
        fs::copy_file(kLessons + "/13-training/tiny.yaml", lesson() / "own.yaml");
        std::ofstream(lesson() / "lesson.md") << "# X\n?\n";
        std::ofstream(lesson() / "starter.wk") << "";
        std::ofstream(lesson() / "solution.wk") << "";
        std::ofstream(lesson() / "check.txt") << check;
    }
    LessonSet load() const { return load_lessons((root.path() / "lessons").string()); }
};

}  // namespace

// A lesson's config is read from its own folder or the repository's models/ folder, nowhere else:
// not up and out of them, not by an absolute path, not through a link that leads out.
TEST(LessonSet, AConfigOutsideTheLessonAndModelsIsRefusedAtItsLine) {
    EXPECT_TRUE(ModelLessons("hint h\ntrain own.yaml steps 5 kernel crossentropy.wk\nloss below 3\n").load().errors.empty());
    {
        const ModelLessons m("hint h\ntrain ../../models/tiny.yaml steps 5 kernel crossentropy.wk\nloss below 3\n");
        const LessonSet set = m.load();
        for (const std::string& e : set.errors) ADD_FAILURE() << e;
        EXPECT_EQ(set.lessons.size(), 1u);
    }
    for (const std::string& config : {std::string("../../../../../../etc/passwd"), std::string("/etc/passwd"), std::string("../../tiny.yaml"),
                                      std::string("link.yaml")}) {
        const ModelLessons m("hint h\ntrain " + config + " steps 5 kernel crossentropy.wk\nloss below 3\n");
        std::filesystem::create_symlink(m.root.path() / "models" / ".." / "outside.yaml", m.lesson() / "link.yaml");
        std::filesystem::copy_file(kLessons + "/13-training/tiny.yaml", m.root.path() / "outside.yaml");
        std::filesystem::copy_file(kLessons + "/13-training/tiny.yaml", m.root.path() / "tiny.yaml");
        const LessonSet set = m.load();
        EXPECT_TRUE(set.lessons.empty());
        ASSERT_EQ(set.errors.size(), 1u) << config;
        EXPECT_EQ(set.errors[0], (m.lesson() / "check.txt").string() + ":2: config " + config +
                                     " is outside the lesson's folder and the repository's models/ folder (a check reads its files from those only)");
    }
    const ModelLessons f("hint h\nforward ../own.yaml kernel matmul.wk\nlogits match\n");
    const LessonSet set = f.load();
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_NE(set.errors[0].find("check.txt:2: config ../own.yaml is outside the lesson's folder"), std::string::npos) << set.errors[0];
}

// A mesh the model compiler cannot plan any GPT on is the lesson's mistake, whatever the student
// writes: an error at the train or forward line when the lesson loads, and at check time (a spec
// made by hand) the lesson's failure, not a verdict on the student's kernel.
TEST(LessonSet, AMeshTheModelCompilerCannotUseIsALessonError) {
    const ModelLessons m("hint h\ntrain own.yaml steps 5 kernel crossentropy.wk mesh 1x1\nloss below 3\n");
    const LessonSet set = m.load();
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_EQ(set.errors[0], (m.lesson() / "check.txt").string() +
                                 ":2: the model compiler cannot plan own.yaml's GPT on a 1x1 mesh: the mesh is 1 PE wide; the model compiler needs rows of at least 2");
    const ModelLessons f("hint h\nforward own.yaml kernel matmul.wk mesh 1x8\nlogits match\n");
    ASSERT_EQ(f.load().errors.size(), 1u);
    EXPECT_NE(f.load().errors[0].find("check.txt:2: the model compiler cannot plan own.yaml's GPT on a 1x8 mesh"), std::string::npos);

    CheckSpec spec = spec_of("hint h\ntrain own.yaml steps 5 kernel crossentropy.wk mesh 1x1\nloss below 3\n");
    spec.dir = m.lesson().string();
    std::ifstream sol(kLessons + "/13-training/solution.wk");
    const std::string solution((std::istreambuf_iterator<char>(sol)), std::istreambuf_iterator<char>());
    const Verdict v = check_kernel(spec, solution, "mine.wk");
    EXPECT_TRUE(v.compiled);
    EXPECT_FALSE(v.passed);
    ASSERT_EQ(v.items.size(), 1u);
    EXPECT_EQ(v.items[0].kind, CheckKind::Fault);
    EXPECT_TRUE(v.lesson_error);
    EXPECT_EQ(v.items[0].message.rfind("check.txt:2: the lesson's model fails whatever the kernel (its own solution too), so this is the lesson's error, "
                                       "not yours: its model could not be built: the model compiler cannot plan own.yaml's GPT on a 1x1 mesh", 0), 0u)
        << v.items[0].message;
}

// A mesh too small to place the model whatever its kernels (found only once they are compiled) is
// the lesson's error too: the lesson's own kernels are planned when the student's fail, and when
// theirs fail as well the verdict says so at the line, not "your kernel".
TEST(LessonSet, AModelTheLessonsOwnKernelsCannotPlaceIsTheLessonsError) {
    const ModelLessons m("hint h\ntrain own.yaml steps 5 kernel crossentropy.wk mesh 4x4\nloss below 3\n");
    const LessonSet set = m.load();
    ASSERT_EQ(set.lessons.size(), 1u);
    std::ifstream sol(kLessons + "/13-training/solution.wk");
    const std::string solution((std::istreambuf_iterator<char>(sol)), std::istreambuf_iterator<char>());
    const Verdict v = check_kernel(set.lessons[0].spec, solution, "mine.wk");
    EXPECT_FALSE(v.passed);
    EXPECT_TRUE(v.lesson_error);
    ASSERT_EQ(v.items.size(), 1u);
    EXPECT_EQ(v.items[0].message.rfind("check.txt:2: the lesson's model fails whatever the kernel", 0), 0u) << v.items[0].message;
    EXPECT_NE(v.items[0].message.find("4x4 PEs are too few"), std::string::npos) << v.items[0].message;
    EXPECT_EQ(v.summary(), "The lesson's check cannot run: the error above is the lesson's; your kernel was not judged.");

    // A kernel of the student's that does not compile, on a mesh that fits, is still the student's.
    const ModelLessons ok("hint h\ntrain own.yaml steps 5 kernel crossentropy.wk\nloss below 3\n");
    const Verdict mine = check_kernel(ok.load().lessons[0].spec, "garbage", "mine.wk");
    EXPECT_FALSE(mine.lesson_error);
    EXPECT_FALSE(mine.passed);
}
