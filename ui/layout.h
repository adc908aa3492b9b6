// layout.h: where the app's windows go, and what of the canvas they leave free.
//
// Wide screens tile: the editor on the left, the mesh in the middle, the PE
// inspector over the log on the right, side by side so none covers the mesh.
// Narrow screens (phones) stack: the mesh on top, the log and the inspector
// below it, and the editor a tap away over the mesh (it starts closed).
// Fit-to-window uses free_area(): the largest part of the canvas no window covers.
// No ImGui here: tests/ui/layout_test.cpp checks the geometry directly.
#pragma once
#include <vector>

namespace wlui {

struct Box {
    float x = 0, y = 0, w = 0, h = 0;
    float right() const { return x + w; }
    float bottom() const { return y + h; }
    float area() const { return w > 0 && h > 0 ? w * h : 0; }
    bool overlaps(const Box& o) const { return x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom(); }
    bool contains(const Box& o) const { return o.x >= x && o.y >= y && o.right() <= right() && o.bottom() <= bottom(); }
};

struct Layout {
    static constexpr float kStackBelow = 700;   // canvas widths under this stack (a phone held upright)
    bool stacked = false;
    Box editor, inspector, log;                 // the default places of the three docked windows
    // While the Lessons panel is open it takes more of the right column, for reading, and the log
    // the rest: its prints are a few lines.
    Box lessons, lessons_log;

    // The default layout over `canvas` (the area under the toolbar, above the status bar).
    static Layout tile(const Box& canvas);
    // An embed's (?embed=1&editor=1): the editor beside the mesh when there is room, else below it.
    static constexpr float kEmbedSideBySide = 560;
    static Layout embed(const Box& canvas);
};

// The largest box inside `canvas` that overlaps none of `covers` (the whole canvas if none do).
Box free_area(const Box& canvas, const std::vector<Box>& covers);

// The Lessons panel's split: the lesson's text above (it scrolls), its controls below (buttons,
// the verdict, the hints). The controls get all of their height (`controls`, as drawn last frame)
// while the text keeps at least `min_text`; past that the text keeps min_text and the controls
// scroll in the rest. The text's height, out of `avail` (`spacing` between the two).
float lesson_text_height(float avail, float controls, float min_text, float spacing);

}  // namespace wlui
