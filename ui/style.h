// style.h: WaferLab's look — fonts and colours, the same natively and in the browser.
#pragma once

struct ImFont;

namespace wlui {

struct Fonts {
    ImFont* ui = nullptr;     // DejaVu Sans (the default font)
    ImFont* mono = nullptr;   // DejaVu Sans Mono, for code and numbers; falls back to ui
};
const Fonts& fonts();

// Loads the UI font rasterised at `pixel_scale` (framebuffer pixels per window unit),
// so text stays sharp on high-DPI screens, and applies the colour theme.
// `font_dir` holds DejaVuSans.ttf and DejaVuSansMono.ttf; without it ImGui's built-in font is used.
void apply_style(const char* font_dir, float pixel_scale, float font_size = 15.0f);

}  // namespace wlui
