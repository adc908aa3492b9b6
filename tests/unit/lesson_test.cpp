// lesson_test.cpp: the guided lessons hold: every lesson folder reads, every solution
// passes its check and every starter fails it (so the check can fail); and the checker
// says what went wrong in words a student can act on.
#include "engine/lessons/check_spec.h"
#include "engine/lessons/lesson.h"
#include "engine/lessons/lesson_check.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
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

// Whether `text` ends a bold sum with n: "= 136 cycles**", "**2,342**" (not "12,342**").
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
        // The budget is a real bound: the solution does not pass by a mile.
        if (l.spec.cycle_budget) {
            EXPECT_GE(sol.cycles * 2, l.spec.cycle_budget) << sol.cycles << " cycles";
            // The text works the count through to what the solution takes: a code generator
            // change that moves it fails here instead of leaving a student a wrong sum.
            EXPECT_TRUE(bold_total(l.text, sol.cycles)) << "lesson.md should add the solution's cycles up to **" << sol.cycles << " cycles**";
        }
    }
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
    EXPECT_EQ(errors[4].message, "expect: 'x' is not a number");
}

TEST(LessonSet, AMissingFolderIsAnError) {
    const LessonSet set = load_lessons(kLessons + "/no-such-folder");
    EXPECT_TRUE(set.lessons.empty());
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_NE(set.errors[0].find("no lessons folder"), std::string::npos);
}
