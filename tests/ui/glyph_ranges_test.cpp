// glyph_ranges_test.cpp: every character the lessons show has a glyph in the app's fonts
// (a character outside ui/glyph_ranges.h is drawn as '?': lesson 12's "Wᵀ" was).
#include "ui/glyph_ranges.h"

#include "engine/lessons/lesson.h"

#include <gtest/gtest.h>

namespace {

// The code points of UTF-8 text (an invalid byte gives U+FFFD, which has no glyph: it fails too).
std::vector<uint32_t> code_points(const std::string& s) {
    std::vector<uint32_t> out;
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + size_t(n) > s.size()) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        uint32_t cp = n == 1 ? c : c & (0x7F >> n);
        for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + size_t(k)]) & 0x3F);
        out.push_back(cp);
        i += size_t(n);
    }
    return out;
}

}  // namespace

TEST(GlyphRanges, EveryLessonCharacterHasAGlyph) {
    const wl::lessons::LessonSet set = wl::lessons::load_lessons(std::string(WAFERLAB_SOURCE_DIR) + "/lessons");
    ASSERT_FALSE(set.lessons.empty());
    for (const wl::lessons::Lesson& l : set.lessons) {
        std::string all = l.text;
        for (const std::string& h : l.spec.hints) all += h;
        for (uint32_t cp : code_points(all)) {
            if (cp == '\n' || cp == '\t') continue;
            EXPECT_TRUE(wlui::has_glyph(cp)) << "lesson " << l.number << " has U+" << std::hex << cp << ", which the fonts lack";
        }
        for (uint32_t cp : code_points(l.title)) EXPECT_TRUE(wlui::has_glyph(cp, wlui::kHeadingGlyphRanges)) << l.title;
    }
    EXPECT_TRUE(wlui::has_glyph(0x1D40));    // ᵀ
    EXPECT_FALSE(wlui::has_glyph(0x1F600));  // an emoji: not in the fonts
}
