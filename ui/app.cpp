#include "ui/app.h"

#include "engine/core/version.h"
#include "engine/gpu/compare.h"
#include "ui/pe_report.h"

#include <imgui.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

static constexpr int kMeshSizes[] = {1, 2, 4, 8, 16, 32, 64};

// The current window's screen rectangle (where the tour points).
static void window_rect(ImVec2* a, ImVec2* b) {
    *a = ImGui::GetWindowPos();
    *b = ImVec2(a->x + ImGui::GetWindowWidth(), a->y + ImGui::GetWindowHeight());
}

App::App(const AppOptions& opt) : asset_dir_(opt.asset_dir) {
    empty_mesh_ = wl::Mesh{opt.mesh_w, opt.mesh_h};
    compare_.models_dir = models_dir();
    start(opt.example);   // the saved workspace, or the requested example (app_files.cpp)
    if (!opt.example.empty() && example_ == opt.example) {
        if (opt.run_cycles == UINT64_MAX) runner_.run_to_end();
        else if (opt.run_cycles) runner_.step(opt.run_cycles);
        else if (opt.play_speed > 0) runner_.set_speed(opt.play_speed), runner_.play();
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
    canvas_.select(std::nullopt);
    compile_and_load();
}

wl::Mesh App::mesh() const { return runner_.run() ? runner_.run()->machine().mesh() : empty_mesh_; }

void App::compile_and_load() {
    const wl::lang::CompileResult& r = doc_.compile();
    if (!r.ok() || r.grid_w == 0) return;   // the last good build stays loaded; the editor shows why
    const wl::Mesh before = mesh();
    runner_.load(std::make_shared<const wl::lang::CompileResult>(r));
    if (mesh().w != before.w || mesh().h != before.h) {   // the canvas now shows the kernel's grid
        canvas_.select(std::nullopt);
        canvas_.fit();
    }
}

void App::reveal_source(int line, int col) {
    show_editor_ = true;
    editor_.reveal({std::max(0, line - 1), std::max(0, col - 1)});
    editor_.focus();
}

void App::function_key(int n, bool shift) {
    switch (n) {
    case 1: help_.toggle(); break;
    case 5:
        if (shift) runner_.reset();
        else {
            if (!runner_.loaded() || !doc_.compiled()) compile_and_load();
            runner_.play();
        }
        break;
    case 6: runner_.run_to_end(); break;
    case 9: runner_.step_back(shift ? step_n_ : 1); break;
    case 10: runner_.step(shift ? step_n_ : 1); break;
    default: break;
    }
}

void App::frame() {
    ++frame_;
    shortcuts();
    // The emulation's share of the frame: 12 ms, so the UI keeps 60 fps on a slow machine.
    const ImGuiIO& io = ImGui::GetIO();
    const auto t0 = std::chrono::steady_clock::now();
    runner_.tick(io.DeltaTime, kSliceBudgetMs);
    tick_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

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
    run_toolbar();
    const float status_h = ImGui::GetFrameHeight();
    ImGui::BeginChild("canvas", ImVec2(0, -status_h), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    window_rect(&places_.canvas_min, &places_.canvas_max);
    canvas_.draw(mesh(), runner_.run() ? &runner_.run()->machine() : nullptr);
    ImGui::EndChild();
    status_bar();
    ImGui::End();

    doc_.refresh();
    if (png_capture_frame()) return files_frame();   // Export PNG reads back a frame of the canvas alone
    places_.editor_min = places_.editor_max = places_.log_min = places_.log_max = ImVec2(0, 0);
    if (show_editor_) editor_window();
    if (show_log_) log_window();
    help_.draw(places_);
    if (show_compare_) compare_.draw(&show_compare_);
    if (canvas_.selected() && canvas_.selected() != inspected_) show_inspector_ = true;
    inspected_ = canvas_.selected();
    if (show_inspector_) {
        const auto pe = canvas_.selected();
        if (auto loc = inspector_.draw(&show_inspector_, runner_.run(), pe ? pe->x : -1, pe ? pe->y : -1, compiled_source()))
            reveal_source(loc->line, loc->col);
    }
    if (show_stats_) stats_.draw(&show_stats_, runner_.run(), runner_.timeline());
    if (show_about_) about_window();
    discard_popup();
    files_frame();
    if (show_demo_) ImGui::ShowDemoWindow(&show_demo_);
}

void App::shortcuts() {
    ImGuiIO& io = ImGui::GetIO();
    if (io.KeyCtrl && (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false) ||
                       ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter), false)) && !editor_.focused())
        compile_and_load();
    if (io.WantTextInput || editor_.focused()) return;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false)) runner_.toggle();
    for (ImWchar c : io.InputQueueCharacters) {
        if (c == '+' || c == '=') canvas_.zoom_by(1.25f);
        if (c == '-') canvas_.zoom_by(0.8f);
        if (c == '0') canvas_.fit();
    }
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) canvas_.select(std::nullopt);
}

void App::menu_bar() {
    if (!ImGui::BeginMenuBar()) return;
    const bool file = ImGui::BeginMenu("File");
    places_.file_menu_min = ImGui::GetItemRectMin(), places_.file_menu_max = ImGui::GetItemRectMax();
    places_.file_open_min = places_.file_open_max = ImVec2(0, 0);
    if (file) {
        file_menu();
#ifndef __EMSCRIPTEN__
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
#endif
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        if (ImGui::MenuItem("Zoom in", "+")) canvas_.zoom_by(1.25f);
        if (ImGui::MenuItem("Zoom out", "-")) canvas_.zoom_by(0.8f);
        if (ImGui::MenuItem("Fit mesh", "0")) canvas_.fit();
        font_menu();
        ImGui::Separator();
        ImGui::MenuItem("Kernel editor", nullptr, &show_editor_);
        ImGui::MenuItem("Output and log", nullptr, &show_log_);
        ImGui::MenuItem("PE inspector", nullptr, &show_inspector_);
        ImGui::MenuItem("Stats", nullptr, &show_stats_);
        ImGui::MenuItem("Wafer vs GPU", nullptr, &show_compare_);
        ImGui::MenuItem("Dear ImGui demo", nullptr, &show_demo_);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Examples")) {
        for (const std::string& n : example_names()) {
            if (ImGui::MenuItem(n.c_str(), nullptr, example_ == n)) {
                if (doc_.buffer().modified()) pending_example_ = n;
                else load_example(n), runner_.play();   // one click: it loads and runs
            }
        }
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Run")) {
        if (ImGui::MenuItem("Compile and load", "Ctrl+Enter")) compile_and_load();
        ImGui::Separator();
        const bool can = runner_.loaded() && !runner_.done();
        if (ImGui::MenuItem("Run", "F5", false, can)) function_key(5, false);
        if (ImGui::MenuItem("Pause", "Space", false, runner_.busy())) runner_.pause();
        if (ImGui::MenuItem("Step 1 cycle", "F10", false, can)) runner_.step(1);
        if (ImGui::MenuItem("Step N cycles", "Shift+F10", false, can)) runner_.step(step_n_);
        if (ImGui::MenuItem("Run to completion", "F6", false, can)) runner_.run_to_end();
        ImGui::Separator();
        if (ImGui::MenuItem("Step back 1 cycle", "F9", false, runner_.cycle() > 0)) runner_.step_back(1);
        if (ImGui::MenuItem("Reset to cycle 0", "Shift+F5", false, runner_.loaded())) runner_.reset();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Mesh")) {
        for (int n : kMeshSizes) {
            char label[32];
            std::snprintf(label, sizeof label, "%d x %d", n, n);
            if (ImGui::MenuItem(label, nullptr, !runner_.loaded() && mesh().w == n && mesh().h == n)) call("set_mesh", {{"w", n}, {"h", n}});
        }
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("What am I looking at?", "F1")) help_.open();
        if (ImGui::MenuItem("Take the tour")) start_tour();
        if (ImGui::MenuItem("About WaferLab")) show_about_ = true;
        ImGui::EndMenu();
    }
    ImGui::EndMenuBar();
}

void App::status_bar() {
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(8, 0));
    ImGui::AlignTextToFramePadding();
    ImGui::Text("  mesh %d x %d   zoom %.2fx", mesh().w, mesh().h, canvas_.zoom());
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
        window_rect(&places_.editor_min, &places_.editor_max);
        if (ImGui::Button("Compile and load")) compile_and_load();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+Enter: compile; when it succeeds, the kernel is loaded at cycle 0");
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
        section_tabs();
        // The diagnostics list takes what it needs below the editor, up to a third.
        const size_t n = doc_.diagnostics().size();
        const float list_h = n ? std::min(float(n) + 0.5f, 6.0f) * ImGui::GetTextLineHeightWithSpacing() : 0.0f;
        CodeEditor::Result er = editor_.draw("##source", doc_.buffer(), doc_.spans(), doc_.markers(),
                                             ImVec2(0, n ? -list_h - ImGui::GetStyle().ItemSpacing.y : 0.0f));
        if (er.changed) doc_.refresh();
        if (er.compile_requested) compile_and_load();
        if (n) {
            ImGui::BeginChild("##diagnostics", ImVec2(0, 0), false);
            for (size_t i = 0; i < n; ++i) {
                const auto& d = doc_.diagnostics()[i];
                ImGui::PushID(int(i));
                ImVec4 col = d.severity == wl::lang::Severity::Error ? ImVec4(1.0f, 0.45f, 0.45f, 1.0f) : ImVec4(0.95f, 0.75f, 0.3f, 1.0f);
                char label[64];
                std::snprintf(label, sizeof label, "%d:%d", d.line, d.col);
                ImGui::PushStyleColor(ImGuiCol_Text, col);
                if (ImGui::Selectable(label, false, 0, ImVec2(ImGui::CalcTextSize("0000:000").x, 0))) reveal_source(d.line, d.col);
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

// One tab per top-level part of the file. The tab follows the cursor; clicking
// a tab moves the cursor to its part (one file, so nothing is ever out of sync).
void App::section_tabs() {
    const auto& secs = doc_.sections();
    if (secs.size() < 2 || !ImGui::BeginTabBar("##sections", ImGuiTabBarFlags_FittingPolicyScroll)) return;
    const int here = std::max(0, doc_.section_at(doc_.buffer().cursor().line));   // the preamble goes with the first part
    const bool follow = here != tab_synced_;   // the cursor moved to another part: select its tab
    if (follow) tab_synced_ = here, tab_quiet_ = 2;   // the tab bar applies a selection a frame later
    for (int i = 0; i < int(secs.size()); ++i) {
        ImGui::PushID(i);
        if (ImGui::BeginTabItem(secs[size_t(i)].label.c_str(), nullptr, follow && i == here ? ImGuiTabItemFlags_SetSelected : 0)) {
            if (i != here && tab_quiet_ == 0) reveal_source(secs[size_t(i)].line + 1, 1);
            ImGui::EndTabItem();
        }
        ImGui::PopID();
    }
    if (tab_quiet_ > 0) --tab_quiet_;
    ImGui::EndTabBar();
}

void App::discard_popup() {
    if (!pending_example_.empty() && !ImGui::IsPopupOpen("Discard unsaved edits?")) ImGui::OpenPopup("Discard unsaved edits?");
    if (ImGui::BeginPopupModal("Discard unsaved edits?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::Text("%s has unsaved edits. Load the example '%s' and lose them?", doc_.name().c_str(), pending_example_.c_str());
        if (ImGui::Button("Discard and load")) {
            load_example(pending_example_);
            runner_.play();
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

// [SECTION] run controls

void App::start_tour() {
    if (!runner_.loaded()) {
        if (doc_.buffer().modified()) show_editor_ = true;   // their own kernel stays; the tour works on it
        else load_example("hello");
    }
    show_editor_ = show_log_ = true;
    help_.start_tour();
}

static const char* mode_name(const RunController& rc) {
    if (!rc.loaded()) return "no kernel loaded";
    if (rc.run() && !rc.run()->ok()) return "stopped by an error";
    if (rc.done()) return "finished";
    return rc.busy() ? "running" : "paused";
}

void App::run_toolbar() {
    places_.toolbar_min = ImGui::GetCursorScreenPos();
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(8, 3));
    ImGui::SetCursorPosX(ImGui::GetStyle().ItemSpacing.x);
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + 3);
    const bool loaded = runner_.loaded(), can = loaded && !runner_.done();
    auto button = [](const char* label, bool enabled, const char* tip) {
        ImGui::BeginDisabled(!enabled);
        bool hit = ImGui::Button(label);
        ImGui::EndDisabled();
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tip);
        ImGui::SameLine();
        return hit;
    };
    if (runner_.mode() == RunController::Mode::Playing) {
        if (button("Pause", true, "Space")) runner_.pause();
    } else if (button("Run", can || !loaded, "F5: run at the chosen speed (compiles first if needed)")) {
        function_key(5, false);
    }
    if (button("Step", can, "F10: one cycle")) runner_.step(1);
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000000").x);
    int n = int(step_n_);
    if (ImGui::DragInt("##stepn", &n, 1.0f, 1, 1000000, "%d")) step_n_ = uint64_t(std::max(1, n));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("N for Step N (drag or double-click to type)");
    ImGui::SameLine();
    if (button("Step N", can, "Shift+F10: N cycles")) runner_.step(step_n_);
    if (button("To end", can, "F6: run to completion as fast as the frame budget allows")) runner_.run_to_end();
    if (button("Back", loaded && runner_.cycle() > 0, "F9: one cycle back (Shift+F9: N); restores a snapshot and replays")) runner_.step_back(1);
    if (button("Reset", loaded, "Shift+F5: back to cycle 0")) runner_.reset();

    // Speed: cycles per second, on a log scale from 1 to 1e6.
    float lg = float(std::log10(runner_.speed()));
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("000000000000000").x);
    char speed[48];
    std::snprintf(speed, sizeof speed, "%.0f cycles/s", runner_.speed());
    if (ImGui::SliderFloat("##speed", &lg, 0.0f, 6.0f, speed)) runner_.set_speed(std::round(std::pow(10.0, double(lg)) * 10) / 10);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Run speed in emulated cycles per second (To end ignores it)");
    ImGui::SameLine();

    // Rewind: a scrubber over the cycles reached so far.
    if (loaded) {
        uint64_t reached = runner_.timeline().empty() ? runner_.cycle() : std::max(runner_.cycle(), runner_.timeline().back().cycle);
        int c = int(std::min<uint64_t>(runner_.cycle(), INT32_MAX));
        ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("stopped by an error   ").x));
        char fmt[64];
        std::snprintf(fmt, sizeof fmt, "cycle %d", c);
        if (ImGui::SliderInt("##cycle", &c, 0, int(std::min<uint64_t>(std::max<uint64_t>(reached, 1), INT32_MAX)), fmt))
            runner_.rewind_to(uint64_t(c));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Drag to rewind or replay to any cycle reached so far");
        ImGui::SameLine();
    }
    const bool bad = runner_.run() && !runner_.run()->ok();
    ImGui::TextColored(bad ? ImVec4(1.0f, 0.45f, 0.45f, 1.0f) : ImVec4(0.7f, 0.75f, 0.8f, 1.0f), "%s", mode_name(runner_));
    ImGui::PopStyleVar();
    places_.toolbar_max = ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowWidth(), ImGui::GetCursorScreenPos().y);
    ImGui::Separator();
}

void App::log_window() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowSize(ImVec2(520, 200), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 540, vp->WorkPos.y + vp->WorkSize.y - 240), ImGuiCond_FirstUseEver);
    if (ImGui::Begin("Output and log", &show_log_)) {
        window_rect(&places_.log_min, &places_.log_max);
        const wl::lang::KernelRun* run = runner_.run();
        if (!run) ImGui::TextDisabled("Load an example (Examples menu) or compile a kernel (Ctrl+Enter), then Run (F5).");
        else {
            ImGui::TextDisabled("%s: %d PEs loaded, cycle %llu", run->kernel().placements.empty() ? "kernel" : doc_.name().c_str(),
                                run->pes_loaded(), (unsigned long long)run->cycle());
            for (size_t i = 0; i < run->output().size(); ++i) {
                const wl::lang::OutputLine& o = run->output()[i];
                ImGui::PushID(int(i));
                if (ImGui::Selectable(o.text.c_str())) reveal_source(o.line, o.col);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("printed by line %d: click to show it", o.line);
                ImGui::PopID();
            }
            if (!run->ok()) {
                const wl::Fault& f = run->fault();
                ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.45f, 1.0f));
                ImGui::PushTextWrapPos(0.0f);
                if (ImGui::Selectable(run->error().c_str())) {
                    if (f.loc.line > 0) reveal_source(int(f.loc.line), int(f.loc.col));
                    if (mesh().contains(f.x, f.y)) canvas_.select(PeCoord{f.x, f.y});
                }
                ImGui::PopTextWrapPos();
                ImGui::PopStyleColor();
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("click: show the line in the editor and select the PE");
            } else if (run->done()) {
                ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1.0f), "finished at cycle %llu", (unsigned long long)run->cycle());
            }
            if (runner_.busy() && ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
        }
    }
    ImGui::End();
}

std::string App::summary() const {
    const wl::lang::KernelRun* run = runner_.run();
    std::string s = "frame " + std::to_string(frame_) + ", cycle " + std::to_string(runner_.cycle()) + ", " + mode_name(runner_);
    if (run && !run->ok()) s += ": " + run->error();
    return s;
}

json App::error_json() const {
    const wl::lang::KernelRun* run = runner_.run();
    if (!run || run->ok()) return nullptr;
    const wl::Fault& f = run->fault();
    json j = {{"message", run->error()}, {"kind", wl::fault_kind_name(f.kind)}, {"cycle", f.cycle}};
    j["pe"] = f.x >= 0 ? json{{"x", f.x}, {"y", f.y}} : json(nullptr);
    j["colour"] = f.colour >= 0 ? json(f.colour) : json(nullptr);
    j["task"] = f.task >= 0 ? json(f.task) : json(nullptr);
    j["line"] = f.loc.line > 0 ? json(f.loc.line) : json(nullptr);
    j["col"] = f.loc.line > 0 ? json(f.loc.col) : json(nullptr);
    j["where"] = f.where;
    return j;
}

json App::state() const {
    json j = {
        {"version", wl::version()},
        {"frame", frame_},
        {"mesh", {{"w", mesh().w}, {"h", mesh().h}}},
        {"view", {{"zoom", canvas_.zoom()}}},
        {"canvas", canvas_.state()},
        {"about_open", show_about_},
        {"help", {{"open", help_.is_open()}, {"tour_step", help_.touring() ? json(help_.tour_step()) : json(nullptr)}}},
        {"editor", {{"open", show_editor_}, {"focused", editor_.focused()}, {"file", doc_.name()},
                    {"lines", doc_.buffer().line_count()}, {"modified", doc_.buffer().modified()},
                    {"cursor", {{"line", doc_.buffer().cursor().line + 1}, {"col", doc_.buffer().cursor().col + 1}}}}},
        {"example", example_.empty() ? json(nullptr) : json(example_)},
        {"examples", example_names()},
        {"diagnostics", doc_.diagnostics_json()},
        {"compiled", doc_.compiled() && doc_.result().ok()},
        {"loaded", runner_.loaded()},
        {"cycle", runner_.cycle()},
        {"running", runner_.busy()},
        {"done", runner_.done()},
        {"error", error_json()},
        {"output", json::array()},
        {"speed", runner_.speed()},
        {"frame_ms", {{"emulation", tick_ms_}, {"longest_slice", runner_.last_slice_ms()}}},
    };
    if (const wl::lang::KernelRun* run = runner_.run())
        for (const wl::lang::OutputLine& o : run->output()) j["output"].push_back(o.text);
    if (auto s = canvas_.selected()) j["selected_pe"] = {{"x", s->x}, {"y", s->y}};
    else j["selected_pe"] = nullptr;
    if (auto h = canvas_.hovered()) j["hovered_pe"] = {{"x", h->x}, {"y", h->y}};
    else j["hovered_pe"] = nullptr;
    // Where the parts were on screen last frame (null: not shown), so scripts click by place, not by pixel.
    auto rect = [](ImVec2 a, ImVec2 b) -> json {
        if (b.x <= a.x || b.y <= a.y) return nullptr;
        return {{"x", a.x}, {"y", a.y}, {"w", b.x - a.x}, {"h", b.y - a.y}};
    };
    const Help::Places& p = places_;
    j["places"] = {{"canvas", rect(p.canvas_min, p.canvas_max)}, {"toolbar", rect(p.toolbar_min, p.toolbar_max)},
                   {"editor", rect(p.editor_min, p.editor_max)}, {"log", rect(p.log_min, p.log_max)},
                   {"file_menu", rect(p.file_menu_min, p.file_menu_max)}, {"file_open", rect(p.file_open_min, p.file_open_max)}};
    files_state(j);
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
        if (auto r = files_call(method, args)) return *r;
        if (method == "set_mesh") {   // an empty mesh: a loaded kernel's machine has its layout's size, so it goes
            const int w = int_arg("w", 1, 256), h = int_arg("h", 1, 256);
            runner_.unload();
            empty_mesh_ = wl::Mesh{w, h};
            canvas_.select(std::nullopt);
            canvas_.fit();
            return state();
        }
        if (method == "canvas") {
            canvas_.configure(args);
            return state();
        }
        if (method == "select_pe") {
            if (args.is_null() || (args.contains("x") && args["x"].is_null())) {
                canvas_.select(std::nullopt);
            } else {
                int x = int_arg("x", 0, mesh().w - 1), y = int_arg("y", 0, mesh().h - 1);
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
            compile_and_load();
            return state();
        }
        // Run controls: each sets a target; the frames get there (poll state().running).
        if (method == "run") {
            if (!runner_.loaded()) throw std::invalid_argument("no kernel is loaded: load_example() or compile() first");
            if (args.is_object() && args.contains("cycles") && !args["cycles"].is_null()) {
                if (!args["cycles"].is_number_unsigned() || args["cycles"].get<uint64_t>() == 0)
                    throw std::invalid_argument("'cycles' must be a positive integer (omit it to run to completion)");
                runner_.step(args["cycles"].get<uint64_t>());
            } else {
                runner_.run_to_end();
            }
            return state();
        }
        if (method == "play") {
            if (args.is_object() && args.contains("speed")) {
                if (!args["speed"].is_number() || args["speed"].get<double>() <= 0) throw std::invalid_argument("'speed' must be a positive number");
                runner_.set_speed(args["speed"].get<double>());
            }
            runner_.play();
            return state();
        }
        if (method == "pause") {
            runner_.pause();
            return state();
        }
        if (method == "reset") {
            runner_.reset();
            return state();
        }
        if (method == "rewind") {
            if (!args.is_object() || !args.contains("cycle") || !args["cycle"].is_number_unsigned())
                throw std::invalid_argument("'cycle' must be a non-negative integer");
            runner_.rewind_to(args["cycle"].get<uint64_t>());
            return state();
        }
        if (method == "inspect") {
            const wl::lang::KernelRun* run = runner_.run();
            if (!run) throw std::invalid_argument("no kernel is loaded: load_example() or compile() first");
            const wl::Mesh m = run->machine().mesh();
            return pe_json(*run, int_arg("x", 0, m.w - 1), int_arg("y", 0, m.h - 1), compiled_source());
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
        if (method == "help") {
            if (args.value("tour", false)) start_tour();
            else if (args.value("open", true) != help_.is_open()) help_.toggle();
            return state();
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
