// frame_budget.h: how long a frame may spend on long work (training on the mesh) and keep the
// page above its frame-rate floor, measured each frame rather than guessed. The work runs after
// the frame's drawing has gone to the GPU, so the two overlap. Per frame:
//
//   draw = the main thread's time for the frame, less the work     (ImGui, the GL calls)
//   wait = the interval between frames, less the main thread's time (the GPU, the display's beat)
//   free = the interval between frames, less draw                  (what the work may fill)
//   beside = period - draw - wait                                  (the work beside the wait, in the period)
//   budget = min(beside >= kMinMs ? beside : period - draw, max(kShare * draw, free)), clamped to [kMinMs, kMaxMs]
//
// With a fast GPU the interval is the main thread's own time: the budget settles at kShare * draw,
// so the page keeps a high frame rate and the work gets kShare / (kShare + 1) of the time. Without
// a GPU (SwiftShader draws on the CPU, in the browser's GPU process, tens of ms a frame) the next
// frame waits for the drawing anyway; that wait shows up in `free`, and the work fills it, up to
// frames of `period` (12 fps; kFloorMs, 10 fps, is the floor). The wait counts against the period: a
// browser starts frames on the display's beat (16.7 ms at 60 Hz), so a frame whose main thread
// ends just past a beat waits for the next, and SwiftShader's drawing may not overlap the work.
// Measured in headless Chromium (gpt-nano training): without it, frames took 101 ms on average
// against an 83 ms period, 27 ms of it waiting. A wait that alone fills the period (SwiftShader
// starved of CPU on a loaded machine: 115-145 ms with 2-7 ms of drawing) cannot be met by
// shrinking the work, so then the wait is left out and the work fills the period less the drawing,
// rather than starve at kMinMs.
//
//   FrameBudget b;
//   every frame, after drawing: work(b.next_ms(last_frame_busy_ms, interval_ms)); b.spent(work_ms);
#pragma once
#include <algorithm>

namespace wlui {

class FrameBudget {
public:
    static constexpr double kPeriodMs = 1000.0 / 12;   // the longest frame the work may cause
    static constexpr double kFloorMs = 1000.0 / 10;    // the frame-rate floor (10 frames/s): a unit of work may end past
                                                       // the budget, never past this (TrainSession::tick's forecast)
    static constexpr double kShare = 6;                 // with time to spare, work 6 parts to 1 of drawing
    static constexpr double kMinMs = 12, kMaxMs = 70;

    // The work's budget this frame. busy_ms: the main thread's time in the last frame, the work
    // included; interval_ms: the time since the last call.
    double next_ms(double busy_ms, double interval_ms) {
        if (last_work_ms_ >= 0 && busy_ms > 0 && interval_ms > 0) {
            draw_ms_ = smooth(draw_ms_, std::max(0.0, busy_ms - last_work_ms_));
            free_ms_ = smooth(free_ms_, std::max(0.0, interval_ms - draw_ms_));
            wait_ms_ = smooth(wait_ms_, std::max(0.0, interval_ms - busy_ms));
        }
        last_work_ms_ = -1;
        if (draw_ms_ < 0) return budget_ms_ = kMinMs;   // nothing measured yet
        const double beside = kPeriodMs - draw_ms_ - std::max(0.0, wait_ms_);
        const double cap = beside >= kMinMs ? beside : kPeriodMs - draw_ms_;
        return budget_ms_ = std::clamp(std::min(cap, std::max(kShare * draw_ms_, free_ms_)), kMinMs, kMaxMs);
    }
    // What the work took this frame.
    void spent(double work_ms) { last_work_ms_ = work_ms; }
    double budget_ms() const { return budget_ms_; }   // the last budget given
    double draw_ms() const { return draw_ms_; }       // smoothed; -1 until measured
    double wait_ms() const { return wait_ms_; }       // smoothed; -1 until measured

private:
    static double smooth(double avg, double x) { return avg < 0 ? x : avg + 0.25 * (x - avg); }
    double last_work_ms_ = -1;   // this frame's work; -1: not reported
    double draw_ms_ = -1, free_ms_ = -1, wait_ms_ = -1, budget_ms_ = kMinMs;
};

}  // namespace wlui
