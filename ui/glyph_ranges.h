// glyph_ranges.h: the Unicode ranges the app's fonts are built with (style.cpp), as plain data,
// so a test can check that every character the lessons and the UI show has a glyph
// (tests/ui/glyph_ranges_test.cpp): a character outside them is drawn as '?'.
#pragma once
#include <cstdint>

namespace wlui {

// Pairs of first and last code point, ending in 0 (Dear ImGui's ImWchar ranges).
// Latin, Greek (for maths), the modifier letters (Wᵀ), punctuation, arrows and maths, box
// drawing, and the lessons' check marks.
inline constexpr uint16_t kGlyphRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x1D2C, 0x1D6A, 0x2000, 0x22FF,
                                            0x2500, 0x25FF, 0x2713, 0x2717, 0};
// A heading's: text and punctuation (fewer glyphs in the atlas at the larger size).
inline constexpr uint16_t kHeadingGlyphRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x1D2C, 0x1D6A, 0x2000, 0x206F, 0};

inline bool has_glyph(uint32_t cp, const uint16_t* ranges = kGlyphRanges) {
    for (const uint16_t* r = ranges; r[0]; r += 2)
        if (cp >= r[0] && cp <= r[1]) return true;
    return false;
}

}  // namespace wlui
