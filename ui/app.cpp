#include "ui/app.h"

#include "engine/core/version.h"
#include "engine/gpu/compare.h"

#include <imgui.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

static constexpr int kMeshSizes[] = {1, 2, 4, 8, 16, 32, 64};

App::App(const AppOptions& opt) : asset_dir_(opt.asset_dir) {
    mesh_ = wl::Mesh{opt.mesh_w, opt.mesh_h};
    compare_.models_dir = models_dir();
    if (!opt.example.empty()) {
        try {
            load_example(opt.example);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "waferlab: %s; starting without it\n", e.what());
        }
    }
}

std::vector<std::string> App::example_names() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(asset_dir_ + "/examples", ec))
        if (e.path().extension() == ".wk") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

void App::load_example(const std::string& name) {
    const auto names = example_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
        throw std::invalid_argument("no example named '" + name + "'");
    std::ifstream in(asset_dir_ + "/examples/" + name + ".wk", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in) throw std::runtime_error("could not read examples/" + name + ".wk");
    doc_.open(name + ".wk", ss.str());
    example_ = name;
    show_editor_ = true;
    // The canvas shows the kernel's grid.
    if (doc_.result().grid_w > 0) {
        mesh_ = wl::Mesh{doc_.result().grid_w, doc_.result().grid_h};
        canvas_.select(std::nullopt);
        canvas_.fit();
    }
}

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

    doc_.refresh();
    if (show_editor_) editor_window();
    if (show_compare_) compare_.draw(&show_compare_);
    if (show_about_) about_window();
    discard_popup();
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
        ImGui::MenuItem("Wafer vs GPU", nullptr, &show_compare_);
        ImGui::MenuItem("Dear ImGui demo", nullptr, &show_demo_);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Examples")) {
        for (const std::string& n : example_names()) {
            if (ImGui::MenuItem(n.c_str(), nullptr, example_ == n)) {
                if (doc_.buffer().modified()) pending_example_ = n;
                else load_example(n);
            }
        }
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
    std::string title = doc_.name() + (doc_.buffer().modified() ? " *" : "") + "###kernel";
    if (ImGui::Begin(title.c_str(), &show_editor_)) {
        if (ImGui::Button("Compile")) doc_.compile();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+Enter");
        ImGui::SameLine();
        const auto& r = doc_.result();
        if (!r.ok()) {
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.45f, 1.0f), "%d error%s", r.errors, r.errors == 1 ? "" : "s");
        } else if (doc_.compiled()) {
            ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1.0f), "compiled: %zu program image%s on a %d x %d grid",
                               r.placements.size(), r.placements.size() == 1 ? "" : "s", r.grid_w, r.grid_h);
        } else {
            ImGui::TextDisabled("no errors");
        }
        // The diagnostics list takes what it needs below the editor, up to a third.
        const size_t n = doc_.diagnostics().size();
        const float list_h = n ? std::min(float(n) + 0.5f, 6.0f) * ImGui::GetTextLineHeightWithSpacing() : 0.0f;
        CodeEditor::Result er = editor_.draw("##source", doc_.buffer(), doc_.spans(), doc_.markers(),
                                             ImVec2(0, n ? -list_h - ImGui::GetStyle().ItemSpacing.y : 0.0f));
        if (er.changed) doc_.refresh();
        if (er.compile_requested) doc_.compile();
        if (n) {
            ImGui::BeginChild("##diagnostics", ImVec2(0, 0), false);
            for (size_t i = 0; i < n; ++i) {
                const auto& d = doc_.diagnostics()[i];
                ImGui::PushID(int(i));
                ImVec4 col = d.severity == wl::lang::Severity::Error ? ImVec4(1.0f, 0.45f, 0.45f, 1.0f) : ImVec4(0.95f, 0.75f, 0.3f, 1.0f);
                char label[64];
                std::snprintf(label, sizeof label, "%d:%d", d.line, d.col);
                ImGui::PushStyleColor(ImGuiCol_Text, col);
                if (ImGui::Selectable(label, false, 0, ImVec2(ImGui::CalcTextSize("0000:000").x, 0))) {
                    editor_.reveal({d.line - 1, std::max(0, d.col - 1)});
                    editor_.focus();
                }
                ImGui::PopStyleColor();
                ImGui::SameLine();
                ImGui::TextUnformatted(d.message.c_str());
                ImGui::PopID();
            }
            ImGui::EndChild();
        }
    }
    ImGui::End();
}

void App::discard_popup() {
    if (!pending_example_.empty() && !ImGui::IsPopupOpen("Discard unsaved edits?")) ImGui::OpenPopup("Discard unsaved edits?");
    if (ImGui::BeginPopupModal("Discard unsaved edits?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::Text("%s has unsaved edits. Load the example '%s' and lose them?", doc_.name().c_str(), pending_example_.c_str());
        if (ImGui::Button("Discard and load")) {
            load_example(pending_example_);
            pending_example_.clear();
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Keep my edits") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            pending_example_.clear();
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
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
        {"editor", {{"open", show_editor_}, {"focused", editor_.focused()}, {"file", doc_.name()},
                    {"lines", doc_.buffer().line_count()}, {"modified", doc_.buffer().modified()},
                    {"cursor", {{"line", doc_.buffer().cursor().line + 1}, {"col", doc_.buffer().cursor().col + 1}}}}},
        {"example", example_.empty() ? json(nullptr) : json(example_)},
        {"examples", example_names()},
        {"diagnostics", doc_.diagnostics_json()},
        {"compiled", doc_.compiled() && doc_.result().ok()},
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
        if (method == "get_source") return {{"file", doc_.name()}, {"text", doc_.buffer().text()}};
        if (method == "load_example") {
            if (!args.contains("name") || !args["name"].is_string()) throw std::invalid_argument("'name' must be a string");
            if (doc_.buffer().modified() && !args.value("discard", false))
                throw std::invalid_argument(doc_.name() + " has unsaved edits; pass discard=true to replace them");
            load_example(args["name"].get<std::string>());
            return state();
        }
        if (method == "set_source") {
            if (!args.contains("text") || !args["text"].is_string()) throw std::invalid_argument("'text' must be a string");
            if (args.contains("file") && args["file"].is_string()) {
                doc_.open(args["file"].get<std::string>(), "");
                example_.clear();
            }
            // An edit like any other: undoable, and it marks the kernel modified.
            doc_.buffer().select_all();
            doc_.buffer().insert(args["text"].get<std::string>());
            doc_.refresh();
            show_editor_ = true;
            return state();
        }
        if (method == "compile") {
            doc_.compile();
            return state();
        }
        if (method == "compare") {
            json out = wl::gpu::compare_call(args, models_dir());   // never throws; errors come back as {"error"}
            if (args.value("show", false)) {
                show_compare_ = true;
                compare_.set(args.value("config", "gpt-nano"), args.value("gpu", "a100"), args.value("profile", "tuned-bf16"),
                             args.value("batch", 0), args.value("gpus", 1));
            }
            return out;
        }
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
