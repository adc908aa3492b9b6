// layout_test.cpp: the default layouts leave the mesh a clear area at desktop
// and phone sizes, and free_area() finds the largest uncovered part of the canvas.
#include "ui/layout.h"

#include <gtest/gtest.h>

using namespace wlui;

namespace {

void expect_tiled(const Box& canvas) {
    const Layout l = Layout::tile(canvas);
    EXPECT_FALSE(l.stacked);
    for (const Box* b : {&l.editor, &l.inspector, &l.log}) EXPECT_TRUE(canvas.contains(*b));
    EXPECT_FALSE(l.editor.overlaps(l.inspector));
    EXPECT_FALSE(l.editor.overlaps(l.log));
    EXPECT_FALSE(l.inspector.overlaps(l.log));
    // The mesh gets the middle: at least a third of the width, all of the height.
    const Box free = free_area(canvas, {l.editor, l.inspector, l.log});
    EXPECT_GE(free.w, canvas.w / 3) << canvas.w;
    EXPECT_EQ(free.h, canvas.h);
    EXPECT_EQ(free.x, l.editor.right());
    EXPECT_EQ(free.right(), l.inspector.x);
    // With the Lessons panel open: more of the column for its text, the log below it, the mesh as before.
    for (const Box* b : {&l.lessons, &l.lessons_log}) EXPECT_TRUE(canvas.contains(*b));
    EXPECT_FALSE(l.lessons.overlaps(l.lessons_log));
    EXPECT_FALSE(l.editor.overlaps(l.lessons));
    EXPECT_GT(l.lessons.h, l.inspector.h);
    EXPECT_EQ(l.lessons.bottom(), l.lessons_log.y);
    EXPECT_EQ(free_area(canvas, {l.editor, l.lessons, l.lessons_log}).right(), l.lessons.x);
}

}  // namespace

TEST(Layout, DesktopSizesTileSideBySide) {
    expect_tiled({0, 50, 1280, 650});    // 1280 x 720 less the menu, toolbar and status bar
    expect_tiled({0, 50, 1920, 1010});   // 1920 x 1080
}

TEST(Layout, APhoneStacksTheMeshFirst) {
    const Box canvas{0, 110, 390, 710};   // 390 x 844 with a toolbar of three rows
    const Layout l = Layout::tile(canvas);
    EXPECT_TRUE(l.stacked);
    EXPECT_TRUE(canvas.contains(l.log));
    // The log sits below the mesh, which keeps the top of the canvas whole.
    const Box free = free_area(canvas, {l.log, l.inspector});
    EXPECT_EQ(free.y, canvas.y);
    EXPECT_EQ(free.w, canvas.w);
    EXPECT_GE(free.h, canvas.h / 2);
    EXPECT_EQ(free.bottom(), l.log.y);
}

TEST(Layout, FreeAreaIsTheLargestUncoveredBox) {
    const Box canvas{0, 0, 100, 100};
    EXPECT_EQ(free_area(canvas, {}).area(), canvas.area());
    // A window over the left 30 and one over the bottom-right corner.
    const Box f = free_area(canvas, {{-10, -10, 40, 200}, {70, 60, 50, 50}});
    EXPECT_FLOAT_EQ(f.x, 30);
    EXPECT_FLOAT_EQ(f.w, 70);
    EXPECT_FLOAT_EQ(f.h, 60);
    EXPECT_FLOAT_EQ(f.y, 0);
    // Covered entirely: nothing is free.
    EXPECT_EQ(free_area(canvas, {{0, 0, 100, 100}}).area(), 0);
    // Windows beside the canvas do not count.
    EXPECT_EQ(free_area(canvas, {{200, 0, 50, 50}}).area(), canvas.area());
}

TEST(Layout, EmbedKeepsTheEditorBesideOrBelowTheMesh) {
    const Layout wide = Layout::embed({0, 40, 800, 400});   // beside: the left half
    EXPECT_FALSE(wide.stacked);
    EXPECT_FLOAT_EQ(wide.editor.w, 400);
    EXPECT_FLOAT_EQ(wide.editor.h, 400);
    const Layout narrow = Layout::embed({0, 40, 320, 400});   // below: the bottom half, full width
    EXPECT_FALSE(narrow.stacked);
    EXPECT_FLOAT_EQ(narrow.editor.w, 320);
    EXPECT_FLOAT_EQ(narrow.editor.y, 240);
    EXPECT_FLOAT_EQ(free_area({0, 40, 320, 400}, {narrow.editor}).h, 200);   // the mesh keeps the top half
}

// The Lessons panel: a verdict of several wrapped lines gets all of its height while the lesson's
// text keeps a few lines (capped at 60% of the panel, lesson 15's starter verdict was cut through
// its last visible line: `load_w()` read as `load w()`); past that the text keeps its minimum.
TEST(Layout, LessonControlsGetTheirHeightWhileTheTextKeepsAFewLines) {
    const float avail = 300, spacing = 6, min_text = 90;
    // Buttons (two rows) and a verdict of seven lines: 200 of the 300, more than the old 60%.
    const float text = lesson_text_height(avail, 200, min_text, spacing);
    EXPECT_EQ(text + spacing + 200, avail) << "the controls are whole";
    EXPECT_GE(text, min_text);
    // No verdict yet: the text takes the rest.
    EXPECT_EQ(lesson_text_height(avail, 60, min_text, spacing), avail - 60 - spacing);
    // Controls taller than the panel allows: the text keeps its few lines, the controls scroll.
    EXPECT_EQ(lesson_text_height(avail, 400, min_text, spacing), min_text);
    // A panel smaller than the minimum: the text takes it all (nothing negative).
    EXPECT_EQ(lesson_text_height(80, 400, min_text, spacing), 80);
}
