#include "ui/app.h"

#include "engine/core/version.h"

#include <imgui.h>
#include <cstdio>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

static constexpr int kMeshSizes[] = {1, 2, 4, 8, 16, 32, 64};

App::App(const AppOptions& opt) { mesh_ = wl::Mesh{opt.mesh_w, opt.mesh_h}; }

void App::frame() {
    ++frame_;
    shortcuts();

    // One full-window host window: menu bar on top, status bar at the bottom, canvas between.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::Begin("WaferLab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_MenuBar |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings);
    ImGui::PopStyleVar(3);
    menu_bar();
    const float status_h = ImGui::GetFrameHeight();
    ImGui::BeginChild("canvas", ImVec2(0, -status_h), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    canvas_.draw(mesh_);
    ImGui::EndChild();
    status_bar();
    ImGui::End();

    if (show_editor_) editor_window();
    if (show_about_) about_window();
    if (show_demo_) ImGui::ShowDemoWindow(&show_demo_);
}

void App::shortcuts() {
    ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || editor_.focused()) return;
    for (ImWchar c : io.InputQueueCharacters) {
        if (c == '+' || c == '=') canvas_.zoom_by(1.25f);
        if (c == '-') canvas_.zoom_by(0.8f);
        if (c == '0') canvas_.fit();
    }
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) canvas_.select(std::nullopt);
}

void App::menu_bar() {
    if (!ImGui::BeginMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
#ifndef __EMSCRIPTEN__
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
#else
        ImGui::MenuItem("Nothing to save yet", nullptr, false, false);
#endif
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        if (ImGui::MenuItem("Zoom in", "+")) canvas_.zoom_by(1.25f);
        if (ImGui::MenuItem("Zoom out", "-")) canvas_.zoom_by(0.8f);
        if (ImGui::MenuItem("Fit mesh", "0")) canvas_.fit();
        ImGui::Separator();
        ImGui::MenuItem("Kernel editor", nullptr, &show_editor_);
        ImGui::MenuItem("Dear ImGui demo", nullptr, &show_demo_);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Mesh")) {
        for (int n : kMeshSizes) {
            char label[32];
            std::snprintf(label, sizeof label, "%d x %d", n, n);
            if (ImGui::MenuItem(label, nullptr, mesh_.w == n && mesh_.h == n)) call("set_mesh", {{"w", n}, {"h", n}});
        }
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("About WaferLab")) show_about_ = true;
        ImGui::EndMenu();
    }
    ImGui::EndMenuBar();
}

void App::status_bar() {
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(8, 0));
    ImGui::AlignTextToFramePadding();
    ImGui::Text("  mesh %d x %d   zoom %.2fx", mesh_.w, mesh_.h, canvas_.zoom());
    if (auto h = canvas_.hovered()) {
        ImGui::SameLine();
        ImGui::Text("   PE (%d, %d)", h->x, h->y);
    }
    if (auto s = canvas_.selected()) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.25f, 1.0f), "   selected (%d, %d)", s->x, s->y);
    }
    ImGui::SameLine(ImGui::GetWindowWidth() - 110.0f * ImGui::GetIO().FontGlobalScale * ImGui::GetFontSize() / 15.0f);
    ImGui::Text("%.0f fps", ImGui::GetIO().Framerate);
    ImGui::PopStyleVar();
}

void App::editor_window() {
    ImGui::SetNextWindowSize(ImVec2(560, 420), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowPos(ImVec2(40, 60), ImGuiCond_FirstUseEver);
    std::string title = std::string("Kernel") + (source_.modified() ? " *" : "") + "###kernel";
    if (ImGui::Begin(title.c_str(), &show_editor_)) {
        // Syntax spans and diagnostics arrive with the kernel language.
        editor_.draw("##source", source_, {}, {});
    }
    ImGui::End();
}

void App::about_window() {
    ImGui::SetNextWindowSize(ImVec2(460, 0), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    if (ImGui::Begin("About WaferLab", &show_about_, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
        ImGui::Text("WaferLab %s", wl::version());
        ImGui::Separator();
        ImGui::TextWrapped(
            "An emulator of a wafer-scale AI processor you can learn from: a 2D mesh of processing "
            "elements, each with 48 KiB of SRAM and a router; 32-bit wavelets hop between neighbours "
            "on 24 coloured channels, and data arrivals trigger tasks.");
        ImGui::Spacing();
        ImGui::TextDisabled("Drag to pan, wheel to zoom, click a PE to select it.");
        ImGui::TextDisabled("Built with Dear ImGui %s and SDL2.", IMGUI_VERSION);
    }
    ImGui::End();
}

json App::state() const {
    json j = {
        {"version", wl::version()},
        {"frame", frame_},
        {"mesh", {{"w", mesh_.w}, {"h", mesh_.h}}},
        {"view", {{"zoom", canvas_.zoom()}}},
        {"about_open", show_about_},
        {"editor", {{"open", show_editor_}, {"focused", editor_.focused()}, {"lines", source_.line_count()},
                    {"modified", source_.modified()}, {"cursor", {{"line", source_.cursor().line + 1}, {"col", source_.cursor().col + 1}}}}},
    };
    if (auto s = canvas_.selected()) j["selected_pe"] = {{"x", s->x}, {"y", s->y}};
    else j["selected_pe"] = nullptr;
    if (auto h = canvas_.hovered()) j["hovered_pe"] = {{"x", h->x}, {"y", h->y}};
    else j["hovered_pe"] = nullptr;
    return j;
}

json App::call(const std::string& method, const json& args) {
    auto int_arg = [&](const char* key, int lo, int hi) -> int {
        if (!args.contains(key) || !args[key].is_number_integer())
            throw std::invalid_argument(std::string("'") + key + "' must be an integer");
        int v = args[key].get<int>();
        if (v < lo || v > hi)
            throw std::invalid_argument(std::string("'") + key + "' must be in " + std::to_string(lo) + ".." + std::to_string(hi));
        return v;
    };
    try {
        if (method == "state") return state();
        if (method == "set_mesh") {
            mesh_ = wl::Mesh{int_arg("w", 1, 256), int_arg("h", 1, 256)};
            canvas_.select(std::nullopt);
            canvas_.fit();
            return state();
        }
        if (method == "select_pe") {
            if (args.is_null() || (args.contains("x") && args["x"].is_null())) {
                canvas_.select(std::nullopt);
            } else {
                int x = int_arg("x", 0, mesh_.w - 1), y = int_arg("y", 0, mesh_.h - 1);
                canvas_.select(PeCoord{x, y});
            }
            return state();
        }
        if (method == "editor") {
            show_editor_ = args.value("open", true);
            if (args.value("focus", false)) editor_.focus();
            return state();
        }
        if (method == "get_source") return {{"text", source_.text()}};
        if (method == "about") {
            show_about_ = args.value("open", true);
            return state();
        }
        return {{"error", "unknown method '" + method + "'"}};
    } catch (const std::exception& e) {
        return {{"error", method + ": " + e.what()}};
    }
}

}  // namespace wlui
