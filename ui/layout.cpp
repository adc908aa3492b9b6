#include "ui/layout.h"

#include <algorithm>

namespace wlui {

Layout Layout::tile(const Box& c) {
    Layout l;
    l.stacked = c.w < kStackBelow;
    if (l.stacked) {
        // Mesh first: it keeps the top 60%; the log and the inspector share the rest (the newer on top).
        const float top = c.h * 0.6f;
        l.log = l.inspector = l.lessons = l.lessons_log = {c.x, c.y + top, c.w, c.h - top};
        l.editor = c;
        return l;
    }
    const float ew = std::clamp(c.w * 0.36f, 360.0f, 640.0f);   // room for an 80-column line at 1920
    const float rw = std::clamp(c.w * 0.25f, 300.0f, 460.0f);
    const float ih = c.h * 0.6f;
    l.editor = {c.x, c.y, ew, c.h};
    l.inspector = {c.right() - rw, c.y, rw, ih};
    l.log = {c.right() - rw, c.y + ih, rw, c.h - ih};
    const float lh = c.h * 0.72f;   // at 1366x768, a lesson's text gets about 320 px
    l.lessons = {c.right() - rw, c.y, rw, lh};
    l.lessons_log = {c.right() - rw, c.y + lh, rw, c.h - lh};
    return l;
}

Layout Layout::embed(const Box& c) {
    Layout l = tile(c);
    l.stacked = false;   // the editor is asked for: it stays open, beside or below the mesh
    if (c.w >= kEmbedSideBySide) l.editor = {c.x, c.y, c.w * 0.5f, c.h};
    else l.editor = {c.x, c.y + c.h * 0.5f, c.w, c.h * 0.5f};
    return l;
}

Box free_area(const Box& canvas, const std::vector<Box>& covers) {
    // The best box has each edge on the canvas's edge or on a cover's: try every such pair.
    std::vector<float> xs{canvas.x, canvas.right()}, ys{canvas.y, canvas.bottom()};
    for (const Box& b : covers) {
        for (float v : {b.x, b.right()}) xs.push_back(std::clamp(v, canvas.x, canvas.right()));
        for (float v : {b.y, b.bottom()}) ys.push_back(std::clamp(v, canvas.y, canvas.bottom()));
    }
    std::sort(xs.begin(), xs.end());
    std::sort(ys.begin(), ys.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
    Box best;
    for (size_t x0 = 0; x0 < xs.size(); ++x0)
        for (size_t x1 = x0 + 1; x1 < xs.size(); ++x1)
            for (size_t y0 = 0; y0 < ys.size(); ++y0)
                for (size_t y1 = y0 + 1; y1 < ys.size(); ++y1) {
                    const Box b{xs[x0], ys[y0], xs[x1] - xs[x0], ys[y1] - ys[y0]};
                    if (b.area() <= best.area()) continue;
                    if (std::none_of(covers.begin(), covers.end(), [&](const Box& c) { return c.overlaps(b); })) best = b;
                }
    return best;
}

float lesson_text_height(float avail, float controls, float min_text, float spacing) {
    return std::max(std::min(min_text, avail), avail - controls - spacing);
}

}  // namespace wlui
