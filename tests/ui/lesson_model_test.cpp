// lesson_model_test.cpp: the Lessons panel's model, driven as the panel and the JS hook do.
#include "ui/lesson_model.h"

#include <gtest/gtest.h>

using wlui::LessonModel;

namespace {

LessonModel loaded() {
    LessonModel m;
    m.load(std::string(WAFERLAB_SOURCE_DIR) + "/lessons");
    EXPECT_TRUE(m.errors().empty()) << m.errors()[0];
    return m;
}

}  // namespace

TEST(LessonModel, OpensLessonsAndWalksToTheNext) {
    LessonModel m = loaded();
    EXPECT_EQ(m.current(), nullptr);
    EXPECT_FALSE(m.open(99));
    ASSERT_TRUE(m.open(1));
    EXPECT_EQ(m.current()->number, 1);
    EXPECT_EQ(m.file_name(), "lesson01.wk");
    EXPECT_EQ(m.next_number(), 2);
    ASSERT_TRUE(m.open(int(m.lessons().size())));
    EXPECT_EQ(m.next_number(), 0);
}

TEST(LessonModel, HintsComeOneAtATimeAndResetOnOpen) {
    LessonModel m = loaded();
    EXPECT_FALSE(m.reveal_hint());   // no lesson open
    ASSERT_TRUE(m.open(1));
    const int n = int(m.current()->spec.hints.size());
    ASSERT_GE(n, 2);
    for (int i = 1; i <= n; ++i) {
        EXPECT_TRUE(m.reveal_hint());
        EXPECT_EQ(m.hints_shown(), i);
    }
    EXPECT_FALSE(m.reveal_hint());
    EXPECT_EQ(m.hints_shown(), n);
    m.open(2);
    EXPECT_EQ(m.hints_shown(), 0);
}

TEST(LessonModel, TheSolutionNeedsAConfirmation) {
    LessonModel m = loaded();
    ASSERT_TRUE(m.open(3));
    EXPECT_FALSE(m.confirm_solution().has_value());   // not asked yet
    m.ask_solution();
    EXPECT_TRUE(m.confirming_solution());
    m.cancel_solution();
    EXPECT_FALSE(m.confirm_solution().has_value());
    m.ask_solution();
    const auto text = m.confirm_solution();
    ASSERT_TRUE(text.has_value());
    EXPECT_EQ(*text, m.current()->solution);
    EXPECT_TRUE(m.solution_shown());
    EXPECT_FALSE(m.confirming_solution());
}

TEST(LessonModel, APassMarksTheLessonDoneAndAFailDoesNot) {
    LessonModel m = loaded();
    ASSERT_TRUE(m.open(1));
    const auto* bad = m.check(m.current()->starter);
    ASSERT_NE(bad, nullptr);
    EXPECT_FALSE(bad->passed);
    EXPECT_FALSE(m.done(1));
    EXPECT_TRUE(m.check(m.current()->solution)->passed);
    EXPECT_TRUE(m.done(1));
    EXPECT_EQ(m.done_list(), std::vector<int>{1});
    m.open(2);
    EXPECT_EQ(m.verdict(), nullptr);   // a new lesson starts without a verdict
    EXPECT_TRUE(m.done(1));
}

TEST(LessonModel, SavedProgressDropsUnknownLessons) {
    LessonModel m = loaded();
    m.set_done({2, 5, 400, -1});
    EXPECT_EQ(m.done_list(), (std::vector<int>{2, 5}));
}

// The panel's Check on a training lesson: a step per advance, its progress in words, the verdict
// at the end, and open() dropping a check in progress.
TEST(LessonModel, ATrainingCheckRunsAStepAtATime) {
    LessonModel m = loaded();
    int train = 0;
    for (const auto& l : m.lessons())
        if (l.spec.trains()) train = l.number;
    ASSERT_NE(train, 0);
    ASSERT_TRUE(m.open(train));
    const int steps = m.current()->spec.train.steps;
    m.begin_check(m.current()->starter);
    ASSERT_TRUE(m.checking());
    EXPECT_EQ(m.verdict(), nullptr);
    EXPECT_EQ(m.check_progress(), "Training " + std::to_string(steps) + " steps on the mesh");
    m.advance_check();
    EXPECT_NE(m.check_progress().find("Training step 1 of " + std::to_string(steps) + ", batch loss "), std::string::npos)
        << m.check_progress();
    EXPECT_FLOAT_EQ(m.check_fraction(), 1.0f / float(steps));
    int advances = 1;
    while (m.checking()) m.advance_check(), ++advances;
    EXPECT_EQ(advances, steps);
    ASSERT_NE(m.verdict(), nullptr);
    EXPECT_FALSE(m.verdict()->passed);
    EXPECT_FALSE(m.done(train));
    m.begin_check(m.current()->solution);
    m.advance_check();
    ASSERT_TRUE(m.open(1));
    EXPECT_FALSE(m.checking());
    EXPECT_EQ(m.verdict(), nullptr);
    // A lesson without training has its verdict at once.
    m.begin_check(m.current()->solution);
    EXPECT_FALSE(m.checking());
    ASSERT_NE(m.verdict(), nullptr);
    EXPECT_TRUE(m.verdict()->passed);
}

// The student's kernel for each lesson is kept when they leave it and brought back when they
// return; the starter's own text keeps nothing.
TEST(LessonModel, KeepsEachLessonsWork) {
    LessonModel m = loaded();
    const uint64_t v0 = m.work_version();
    EXPECT_EQ(m.work(13), nullptr);
    m.keep_work(13, "// my cross-entropy\n");
    ASSERT_NE(m.work(13), nullptr);
    EXPECT_EQ(*m.work(13), "// my cross-entropy\n");
    EXPECT_GT(m.work_version(), v0);
    const uint64_t v1 = m.work_version();
    m.keep_work(13, "// my cross-entropy\n");   // the same text: nothing changes
    EXPECT_EQ(m.work_version(), v1);
    m.keep_work(99, "no such lesson");
    EXPECT_EQ(m.work(99), nullptr);
    m.keep_work(13, m.find(13)->starter);       // back to the starter: nothing to keep
    EXPECT_EQ(m.work(13), nullptr);
    m.set_work({{12, "x"}, {99, "y"}});
    EXPECT_EQ(m.all_work().size(), 1u);          // an unknown lesson's is dropped
    EXPECT_EQ(LessonModel::number_of_file("lesson13.wk"), 13);
    EXPECT_EQ(LessonModel::number_of_file("lesson3.wk"), 0);
    EXPECT_EQ(LessonModel::number_of_file("lesson13.wk.bak"), 0);
    EXPECT_EQ(LessonModel::number_of_file("gemv.wk"), 0);
}
