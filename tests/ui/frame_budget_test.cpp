// frame_budget_test.cpp: training's share of a frame follows what the frame measures.
#include "ui/frame_budget.h"

#include <gtest/gtest.h>

#include <cmath>

using wlui::FrameBudget;

namespace {
// Runs frames where drawing takes draw_ms of the main thread and the GPU makes a frame last at
// least gpu_ms; the work takes what it is given. Returns the last budget.
double settle(FrameBudget& b, double draw_ms, double gpu_ms, int frames = 60) {
    double budget = 0;
    for (int k = 0; k < frames; ++k) {
        const double busy = draw_ms + budget;
        budget = b.next_ms(busy, std::max(busy, gpu_ms));
        b.spent(budget);
    }
    return budget;
}
}  // namespace

TEST(FrameBudget, StartsAtTheMinimumUntilAFrameIsMeasured) {
    FrameBudget b;
    EXPECT_EQ(b.next_ms(5, 16), FrameBudget::kMinMs);   // no work reported yet
    EXPECT_EQ(b.draw_ms(), -1);
}

TEST(FrameBudget, AFastGpuKeepsAHighFrameRateAndGivesTheWorkItsShare) {
    FrameBudget b;
    const double budget = settle(b, 3, 0);
    EXPECT_NEAR(budget, FrameBudget::kShare * 3, 0.5);
    EXPECT_GT(1000.0 / (3 + budget), 40);   // frames per second
}

TEST(FrameBudget, ASlowGpuIsOverlappedUpToTheFramePeriod) {
    FrameBudget b;   // software drawing: 80 ms a frame in the GPU process, 4 ms on the main thread
    const double budget = settle(b, 4, 80, 200);   // the wait shrinks as the work grows into it: a ramp of seconds
    EXPECT_GT(budget, 70 - 1);   // fills the wait, up to kMaxMs
    EXPECT_LE(budget, FrameBudget::kMaxMs);
    EXPECT_GE(1000.0 / std::max(4 + budget, 80.0), 10);   // the floor
}

TEST(FrameBudget, SlowDrawingOnTheMainThreadLeavesTheMinimum) {
    FrameBudget b;   // the main thread itself draws for 90 ms: no room below the period
    EXPECT_EQ(settle(b, 90, 0), FrameBudget::kMinMs);
}

TEST(FrameBudget, AWaitAfterTheMainThreadCountsAgainstThePeriod) {
    // Headless Chromium with SwiftShader, as measured training gpt-nano: the GPU process draws after
    // the main thread's frame (not beside the work), and frames start on the display's 60 Hz beat.
    FrameBudget b;
    const double beat = 1000.0 / 60, draw = 14, gpu = 12;
    double budget = 0, interval = 0;
    for (int k = 0; k < 60; ++k) {
        const double busy = draw + budget;
        interval = std::ceil((busy + gpu) / beat) * beat;
        budget = b.next_ms(busy, interval);
        b.spent(budget);
    }
    EXPECT_NEAR(b.wait_ms(), interval - draw - budget, 1);
    EXPECT_LE(interval, FrameBudget::kPeriodMs + 1);   // 12 frames/s, above the floor of 10
    EXPECT_GE(budget, FrameBudget::kPeriodMs - beat - draw - gpu);   // and at most a beat given up for it
}

TEST(FrameBudget, AWaitPastThePeriodAloneDoesNotStarveTheWork) {
    // SwiftShader starved of CPU (a loaded machine): 140 ms of drawing after each frame's main
    // thread. No budget brings the frame under the period, so the work fills its frame.
    FrameBudget b;
    const double draw = 3, gpu = 140;
    double budget = 0;
    for (int k = 0; k < 60; ++k) {
        const double busy = draw + budget;
        budget = b.next_ms(busy, busy + gpu);
        b.spent(budget);
    }
    EXPECT_EQ(budget, FrameBudget::kMaxMs);
}
