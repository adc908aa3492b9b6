#include "ui/style.h"

#include "ui/glyph_ranges.h"

#include <cstdio>
#include <imgui.h>
#include <string>

namespace wlui {

static bool file_exists(const std::string& path) {
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
        std::fclose(f);
        return true;
    }
    return false;
}

static Fonts g_fonts;   // owned by ImGui's atlas; rebuilt with it
const Fonts& fonts() { return g_fonts; }

static const ImWchar* kAllRanges = kGlyphRanges;   // ImWchar is uint16_t in this build (no IMGUI_USE_WCHAR32)
static const ImWchar* kTextRanges = kHeadingGlyphRanges;

static ImFont* load_font(const std::string& path, float pixels, const ImWchar* ranges = kAllRanges) {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    ImGuiIO& io = ImGui::GetIO();
    if (file_exists(path)) {
        if (ImFont* f = io.Fonts->AddFontFromFileTTF(path.c_str(), pixels, &cfg, ranges)) return f;
    }
    return nullptr;
}

void apply_style(const char* font_dir, float pixel_scale, float font_size) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    // Rasterised at device pixels, laid out in window units: sharp on high-DPI screens.
    g_fonts.ui = load_font(std::string(font_dir) + "/DejaVuSans.ttf", font_size * pixel_scale);
    if (!g_fonts.ui) {
        ImFontConfig def;
        def.SizePixels = 13.0f * pixel_scale;
        g_fonts.ui = io.Fonts->AddFontDefault(&def);
    }
    g_fonts.mono = load_font(std::string(font_dir) + "/DejaVuSansMono.ttf", font_size * pixel_scale);
    if (!g_fonts.mono) g_fonts.mono = g_fonts.ui;
    g_fonts.heading = load_font(std::string(font_dir) + "/DejaVuSans.ttf", 1.3f * font_size * pixel_scale, kTextRanges);
    if (!g_fonts.heading) g_fonts.heading = g_fonts.ui;
    io.FontGlobalScale = 1.0f / pixel_scale;

    ImGui::StyleColorsDark();
    ImGuiStyle& s = ImGui::GetStyle();
    s.WindowRounding = 6.0f;
    s.FrameRounding = 4.0f;
    s.PopupRounding = 4.0f;
    s.GrabRounding = 4.0f;
    s.WindowPadding = ImVec2(10, 10);
    s.FramePadding = ImVec2(8, 4);
    s.ItemSpacing = ImVec2(8, 6);
    ImVec4* c = s.Colors;
    c[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.10f, 0.13f, 1.00f);
    c[ImGuiCol_MenuBarBg] = ImVec4(0.12f, 0.14f, 0.18f, 1.00f);
    c[ImGuiCol_PopupBg] = ImVec4(0.11f, 0.12f, 0.16f, 0.98f);
    c[ImGuiCol_Header] = ImVec4(0.20f, 0.36f, 0.52f, 0.60f);
    c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.46f, 0.66f, 0.80f);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.16f, 0.28f, 0.42f, 1.00f);
    c[ImGuiCol_Button] = ImVec4(0.20f, 0.34f, 0.48f, 0.70f);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.26f, 0.46f, 0.66f, 1.00f);
}

}  // namespace wlui
