// style.h: WaferLab's look — fonts and colours, the same natively and in the browser.
#pragma once

#include <imgui.h>

#include <optional>

struct ImFont;

namespace wlui {

struct Fonts {
    ImFont* ui = nullptr;     // DejaVu Sans (the default font)
    ImFont* mono = nullptr;   // DejaVu Sans Mono, for code and numbers; falls back to ui
    ImFont* heading = nullptr;   // DejaVu Sans at 1.3x, for a lesson's title; falls back to ui
};
const Fonts& fonts();

// Loads the UI font rasterised at `pixel_scale` (framebuffer pixels per window unit),
// so text stays sharp on high-DPI screens, and applies the colour theme.
// `font_dir` holds DejaVuSans.ttf and DejaVuSansMono.ttf; without it ImGui's built-in font is used.
void apply_style(const char* font_dir, float pixel_scale, float font_size = 15.0f);

// Text colours with a meaning, the same in every window.
inline const ImVec4 kErrorText(1.0f, 0.45f, 0.45f, 1.0f);    // errors, faults, refusals
inline const ImVec4 kGoodText(0.55f, 0.85f, 0.55f, 1.0f);    // compiled, finished
inline const ImVec4 kWarnText(0.95f, 0.75f, 0.3f, 1.0f);     // warnings, stalls
inline constexpr ImU32 kErrorOutline = IM_COL32(255, 70, 70, 255);   // the faulted PE on the canvas
// The mesh canvas's ground, which the frame is cleared to: the canvas, nearly the whole screen, draws
// no background of its own (software GL pays for every pixel filled: docs/performance.md, The web app).
inline constexpr ImU32 kCanvasBackground = IM_COL32(18, 21, 28, 255);

// A message in a colour, wrapped at the window's edge: an error's advice is often past the first line.
inline void wrapped_text(const ImVec4& colour, const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
}

// Long work's progress, the same in every window: a short bar, then what it is doing now. With no
// fraction (nothing runs now: "between steps") no bar is drawn, an empty one would read as "0 %",
// and its place stays blank, so the words stay put as work starts and stops.
inline void progress_line(std::optional<double> fraction, const char* activity) {
    const ImVec2 bar(ImGui::GetFontSize() * 8, 0);
    if (fraction) ImGui::ProgressBar(float(*fraction), bar, "");
    else {
        ImGui::AlignTextToFramePadding();   // the words on the bar's line, as beside a bar
        ImGui::Dummy(ImVec2(bar.x, ImGui::GetFrameHeight()));
    }
    ImGui::SameLine();
    ImGui::TextUnformatted(activity);
}

}  // namespace wlui
