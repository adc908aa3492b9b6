#include "ui/style.h"

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

void apply_style(const char* font_dir, float pixel_scale, float font_size) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    std::string sans = std::string(font_dir) + "/DejaVuSans.ttf";
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    if (file_exists(sans) && io.Fonts->AddFontFromFileTTF(sans.c_str(), font_size * pixel_scale, &cfg)) {
        io.FontGlobalScale = 1.0f / pixel_scale;   // rasterised at device pixels, laid out in window units
    } else {
        ImFontConfig def;
        def.SizePixels = 13.0f * pixel_scale;
        io.Fonts->AddFontDefault(&def);
        io.FontGlobalScale = 1.0f / pixel_scale;
    }

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
