// timeline_view.h: a forward's launches drawn as the picture of a pipeline (engine/model/
// launch_timeline.h): a row per op, the emulated cycles across, a bar per launch in its chunk's
// colour, a batch's in its sequence's (launch_colour, as the canvas lights it), with the chunk's
// number where it fits. A cursor
// marks a cycle: click or drag on the chart to move it, Play runs it along; while it is set the
// Model window lights the ops in flight there on the canvas (timeline_overlay).
//
//   TimelineView v;
//   v.set(report.timeline);     // a new forward: no cursor, stopped
//   v.tick(dt);                 // every frame: Play moves the cursor
//   v.draw(400, rect);          // in the Model window
//   if (v.cursor()) canvas_overlay = timeline_overlay(plan, v.spans(), *v.cursor());
#pragma once
#include "engine/model/launch_timeline.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wlui {

class TimelineView {
public:
    void set(std::vector<wl::model::LaunchSpan> t);
    const std::vector<wl::model::LaunchSpan>& spans() const { return spans_; }
    bool empty() const { return spans_.empty(); }
    uint64_t end() const { return end_; }

    std::optional<uint64_t> cursor() const { return cursor_; }
    void set_cursor(std::optional<uint64_t> c);   // clamped to [0, end); none: the canvas shows the placement again
    bool playing() const { return playing_; }
    void play(bool on);                           // from the start when the cursor is at the end or unset
    void set_play_seconds(double s);              // the whole timeline's time at Play (0.5 .. 600 s)
    double play_seconds() const { return play_seconds_; }
    void tick(double dt_s);                       // Play: the cursor moves on, and stops at the end

    // The chart, a text line a row up to max_height px, the width of the window; then the Play/Clear
    // row and what is at the cursor. `layout` gets the chart's screen rectangle (x, y, w, h).
    void draw(float max_height, float layout[4]);

private:
    std::vector<wl::model::LaunchSpan> spans_;
    std::vector<std::string> rows_;
    std::vector<int> row_of_;   // per span, its row
    bool by_sequence_ = false;  // a batch's: bars coloured by sequence (launch_colour)
    uint64_t end_ = 0;
    std::optional<uint64_t> cursor_;
    bool playing_ = false;
    double play_seconds_ = 12.0, owed_ = 0;
};

}  // namespace wlui
