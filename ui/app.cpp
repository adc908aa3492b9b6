#include "ui/app.h"

#include "engine/core/version.h"
#include "engine/gpu/compare.h"
#include "engine/lang/help.h"
#include "engine/lessons/lesson_check.h"   // grouped(): 1,000,000
#include "ui/js_bridge.h"
#include "ui/kernel_header.h"
#include "ui/pe_report.h"
#include "ui/style.h"

#include <imgui.h>
#include <imgui_internal.h>   // FindWindowByName: where each window is, for state().layout
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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

App::App(const AppOptions& opt) : asset_dir_(opt.asset_dir), developer_(opt.developer), model_(opt.asset_dir + "/models") {
    empty_mesh_ = wl::Mesh{opt.mesh_w, opt.mesh_h};
    embed_ = opt.embed, embed_editor_ = opt.embed && opt.embed_editor;
    if (embed_) show_log_ = false, model_.draws_window = false;
    compare_.models_dir = models_dir();
    lessons_.load(asset_dir_ + "/lessons");
    model_.open_in_editor = [this](const std::string& file, const std::string& text) { open_text(file, text, "", true); };
    model_.pick_text_file = [] { js_bridge_pick_text_file(); };
    model_.pick_weights_file = [] { js_bridge_pick_weights_file(); };
    model_.download = [](const std::string& name, const std::string& bytes) {
        js_bridge_download(name.c_str(), "application/octet-stream", bytes.data(), bytes.size());
    };
    start(opt.example);   // the saved workspace, or the requested example (app_files.cpp)
    if (opt.lesson) lessons_start(opt.lesson);
    else if (fresh_start_ && opt.start_screen && !embed_) open_start_screen();
    if (!opt.example.empty() && example_ == opt.example) {
        if (opt.run_cycles == UINT64_MAX) runner_.run_to_end();
        else if (opt.run_cycles) runner_.step(opt.run_cycles);
        else if (opt.play_speed > 0) runner_.set_speed(opt.play_speed), runner_.play();
    }
}

// The order a beginner meets the examples in: two PEs, then one-to-many, many-to-one, a matrix
// times a vector, neighbours, everyone-to-everyone, and the two matrix products. Others follow by name.
static constexpr const char* kExampleOrder[] = {"hello", "broadcast", "reduction", "gemv", "stencil", "allreduce", "cannon", "summa"};

std::vector<std::string> App::example_names() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(asset_dir_ + "/examples", ec))
        if (e.path().extension() == ".wk") names.push_back(e.path().stem().string());
    auto rank = [](const std::string& n) {
        const auto* at = std::find(std::begin(kExampleOrder), std::end(kExampleOrder), n);
        return int(at - std::begin(kExampleOrder));
    };
    std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
        return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
    });
    return names;
}

const std::string& App::example_summary(const std::string& name) const {
    auto [it, fresh] = example_summaries_.try_emplace(name);
    if (fresh) {
        std::ifstream in(asset_dir_ + "/examples/" + name + ".wk", std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        std::string h = kernel_header(ss.str());
        if (h.rfind(name + ".wk:", 0) == 0) h.erase(0, name.size() + 4);   // "gemv.wk: y = A x ..." -> "y = A x ..."
        const size_t b = h.find_first_not_of(' ');
        h = b == std::string::npos ? "" : h.substr(b);
        size_t end = h.find(". ");   // whole sentences, at least 30 characters of them
        while (end != std::string::npos && end < 30) end = h.find(". ", end + 1);
        it->second = end == std::string::npos ? h : h.substr(0, end + 1);
    }
    return it->second;
}

void App::load_example(const std::string& name) {
    const auto names = example_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
        throw std::invalid_argument("no example named '" + name + "'");
    std::ifstream in(asset_dir_ + "/examples/" + name + ".wk", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in) throw std::runtime_error("could not read examples/" + name + ".wk");
    keep_lesson_work();
    doc_.open(name + ".wk", ss.str());
    example_ = name;
    show_editor_ = true;
    canvas_.select(std::nullopt);
    compile_and_load();
}

wl::Mesh App::mesh() const {
    if (const wl::Machine* m = lessons_.check_machine()) return m->mesh();
    if (model_.on_canvas()) return model_.mesh();
    return runner_.run() ? runner_.run()->machine().mesh() : empty_mesh_;
}

void App::compile_and_load() {
    const wl::lang::CompileResult& r = doc_.compile();
    if (!r.ok() || r.grid_w == 0) {
        // The last good build of this file stays loaded (gate_ keeps it from running); another
        // file's goes, or the mesh would show lesson 2's PE while lesson 3's kernel is in the editor.
        if (runner_.loaded() && loaded_file_ != doc_.name()) {
            runner_.unload();
            gate_.unloaded();
            canvas_.select(std::nullopt);
            refit_ = true;
        }
        return;
    }
    const wl::Mesh before = mesh();
    runner_.load(std::make_shared<const wl::lang::CompileResult>(r));
    loaded_file_ = doc_.name();
    gate_.loaded(doc_.buffer().version());
    canvas_.set_colour_names(r.colour_names);
    // The canvas now shows the kernel's grid, fitted once this frame's windows are where they go.
    if (mesh().w != before.w || mesh().h != before.h) {
        canvas_.select(std::nullopt);
        refit_ = true;
    }
}

void App::set_optimise(bool on) {
    if (on == doc_.optimise()) return;
    doc_.set_optimise(on);
    if (runner_.loaded() && gate_.matches(doc_.buffer().version())) compile_and_load();   // not an edited text's errors
}

void App::reveal_source(int line, int col) {
    show_editor_ = true;
    editor_.reveal({std::max(0, line - 1), std::max(0, col - 1)});
    editor_.focus();
}

void App::function_key(int n, bool shift) {
    switch (n) {
    case 1: help_.toggle(); break;
    case 3:   // find next in the editor (the find bar's text), or open the bar
        if (editor_.find_open() && !editor_.find_text().empty()) editor_.find_next(doc_.buffer());
        else show_editor_ = true, editor_.open_find();
        break;
    case 5:
        if (shift) runner_.reset();
        else if (ready_to_run()) runner_.play();
        break;
    case 6: if (ready_to_run()) runner_.run_to_end(); break;
    case 9: runner_.step_back(shift ? step_n_ : 1); break;
    case 10: if (ready_to_run()) runner_.step(shift ? step_n_ : 1); break;
    default: break;
    }
}

bool App::ready_to_run() {
    switch (gate_.judge(doc_.buffer().version(), doc_.diagnostics())) {
    case RunGate::Verdict::Ready: return runner_.loaded();
    case RunGate::Verdict::Compile: compile_and_load(); return gate_.matches(doc_.buffer().version());
    case RunGate::Verdict::Blocked: return false;   // the toolbar and the log say why
    }
    return false;
}

std::string App::not_compiled() const {
    const bool empty = doc_.buffer().line_count() == 1 && doc_.buffer().line(0).empty();   // a fresh start: nothing to refuse
    if (gate_.matches(doc_.buffer().version()) || (!runner_.loaded() && empty)) return "";
    std::string why = RunGate::why(doc_.diagnostics());
    if (why.empty() && doc_.compiled() && doc_.result().grid_w == 0) why = "not compiled: the kernel has no layout";
    return why;
}

void App::mark_item(const char* name) { drawn_[name] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()}; }

void App::mark_window(const char* name) {
    const ImVec2 a = ImGui::GetWindowPos();
    drawn_[name] = {a, ImVec2(a.x + ImGui::GetWindowWidth(), a.y + ImGui::GetWindowHeight())};
}

void App::after_draw() {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const bool first = last_work_ == Clock::time_point{};   // no interval to measure yet
    const double interval = first ? 0.0 : std::chrono::duration<double, std::milli>(t0 - last_work_).count();
    last_work_ = t0;
    const double budget = work_budget_.next_ms(busy_ms_, interval);
    runner_.tick(ImGui::GetIO().DeltaTime, budget);
    still_running();
    tick_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    post_events();
    if (lessons_.checking()) lessons_.advance_check();   // a training check: one step between frames, its progress drawn
    model_.work_tick(std::max(0.0, budget - tick_ms_));
    files_.notices.training_run(model_.train_run_id());   // a training start succeeded: its refusals are stale
    work_budget_.spent(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
}

void App::frame(bool drawn) {
    if (raise_frames_ > 0) {   // the tests' stand-in for a bug (the internal method raise_in_frame)
        --raise_frames_;
        ImGui::Begin("raise_in_frame");   // left open, as a throw in the middle of a window would
        if (raise_trap_) __builtin_trap();   // as an out-of-bounds access would: no C++ exception to catch
        throw std::runtime_error("raise_in_frame: a test's exception");
    }
    if (drawn) ++frame_;
    ++quiet_frames_;
    drawn_.clear();
    hovered_word_ = {};
    hovered_diagnostic_.clear();
    shortcuts();
    // A tour stop about the running kernel keeps it playing, from the start again when it ends.
    if (help_.wants_running() && !runner_.busy()) {
        if (runner_.done()) runner_.reset();
        if (ready_to_run()) runner_.play();
    }
    if (embed_) show_editor_ = embed_editor_, show_inspector_ = show_lessons_ = false;   // the frame holds only what was asked for

    // One full-window host window: menu bar on top, status bar at the bottom, canvas between.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    // No background: the canvas fills most of it, over the frame's clear; the bars get theirs below.
    ImGui::Begin("WaferLab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | (embed_ ? 0 : ImGuiWindowFlags_MenuBar) |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBackground);
    ImGui::PopStyleVar(3);
    if (embed_) {
        embed_bar();
    } else {
        menu_bar();
        run_toolbar();
    }
    const float status_h = embed_ ? 0.0f : ImGui::GetFrameHeight();
    ImGui::BeginChild("canvas", ImVec2(0, -status_h), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    window_rect(&places_.canvas_min, &places_.canvas_max);
    mark_window("canvas");
    {
        const Box area{places_.canvas_min.x, places_.canvas_min.y, places_.canvas_max.x - places_.canvas_min.x,
                       places_.canvas_max.y - places_.canvas_min.y};
        const bool was_stacked = layout_.stacked;
        layout_ = embed_ ? Layout::embed(area) : Layout::tile(area);
        // A new screen size puts the windows back in their places (and a phone closes the editor over the mesh).
        // (The first frame keeps a saved layout: its windows go to their places only if there is none.)
        if (vp->WorkSize.x != viewport_size_.x || vp->WorkSize.y != viewport_size_.y) {
            if (frame_ == 1 || layout_.stacked != was_stacked) show_editor_ = show_editor_ && !layout_.stacked;
            relayout_ = frame_ > 1;
            refit_ = true;
            viewport_size_ = vp->WorkSize;
        }
        const Box free = free_area(area, covers_);
        canvas_.set_free_area(glm::vec2(free.x, free.y), glm::vec2(free.right(), free.bottom()));
        drawn_["free_area"] = {ImVec2(free.x, free.y), ImVec2(free.right(), free.bottom())};
    }
    if (const bool checking = lessons_.check_machine(); checking != check_on_canvas_) {   // its mesh comes and goes: fit it
        check_on_canvas_ = checking, refit_ = true;
        canvas_.select(std::nullopt);
    }
    if (const wl::Machine* m = lessons_.check_machine()) canvas_.draw(mesh(), m);   // a lesson's training check, as it runs
    else if (model_.on_canvas()) canvas_.draw(mesh(), model_.machine(), model_.canvas_overlay());
    else canvas_.draw(mesh(), runner_.run() ? &runner_.run()->machine() : nullptr);
    if (const auto dot = canvas_.wavelet()) {   // the tour's spotlight follows a wavelet in flight
        const float r = std::max(28.0f, canvas_.cell() * 0.45f);
        places_.wavelet_min = ImVec2(dot->x - r, dot->y - r), places_.wavelet_max = ImVec2(dot->x + r, dot->y + r);
    }
    ImGui::EndChild();
    if (!embed_) status_bar();
    // The window's background above and below the canvas only (toolbar, status bar): a full-screen
    // one under the canvas was a million pixels a frame that software GL filled for nothing.
    ImDrawList* under = ImGui::GetBackgroundDrawList();
    const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
    under->AddRectFilled(vp->Pos, ImVec2(vp->Pos.x + vp->Size.x, places_.canvas_min.y), bg);
    under->AddRectFilled(ImVec2(vp->Pos.x, places_.canvas_max.y), ImVec2(vp->Pos.x + vp->Size.x, vp->Pos.y + vp->Size.y), bg);
    ImGui::End();

    doc_.refresh();
    if (png_capture_frame()) return files_frame();   // Export PNG reads back a frame of the canvas alone
    places_.editor_min = places_.editor_max = places_.log_min = places_.log_max = ImVec2(0, 0);
    if (show_editor_) editor_window();
    if (show_log_) log_window();
    help_.draw(places_);
    if (show_compare_) compare_.draw(&show_compare_, loaded_kernel(), model_.shown_run());
    model_.frame(canvas_);
    if (!embed_ && !model_.on_canvas() && canvas_.selected() && canvas_.selected() != inspected_) show_inspector_ = true;
    inspected_ = canvas_.selected();
    if (show_inspector_) {
        place_window(layout_.inspector);
        const auto pe = canvas_.selected();
        if (auto loc = inspector_.draw(&show_inspector_, runner_.run(), pe ? pe->x : -1, pe ? pe->y : -1, compiled_source()))
            reveal_source(loc->line, loc->col);
    }
    if (show_stats_) stats_.draw(&show_stats_, runner_.run(), runner_.timeline());
    if (show_about_) about_window();
    lessons_frame();
    start_frame();
    discard_popup();
    files_frame();
    if (show_demo_) ImGui::ShowDemoWindow(&show_demo_);
    // The windows drawn this frame, by their ImGui names, for state().layout and the canvas's free area.
    covers_.clear();
    for (const auto& [name, title] : {std::pair{"editor", "###kernel"}, {"log", "Output and log"}, {"inspector", "PE inspector"},
                                      {"compare", "Wafer vs GPU"}, {"model", "Model"}, {"stats", "Stats"}, {"lessons", "Lessons"}, {"help", "What am I looking at?"},
                                      {"tour", "##tour"}}) {
        const ImGuiWindow* w = ImGui::FindWindowByName(title);
        if (!w || !w->Active) continue;
        drawn_[name] = {w->Pos, ImVec2(w->Pos.x + w->Size.x, w->Pos.y + w->Size.y)};
        if (std::string_view(name) != "tour") covers_.push_back({w->Pos.x, w->Pos.y, w->Size.x, w->Size.y});
    }
    // After the windows moved to their places, the mesh fits what they leave (from the next frame's draw).
    if (relayout_ || refit_) relayout_ = refit_ = false, canvas_.fit();
}

void App::recover(const char* during, const std::string& what) {
    recovered_.push_back(std::string(during) + ": " + what);
    try {   // first: whatever comes next, the kernel in the editor is stored (autosave may not have seen it yet)
        if (workspace_sig() != files_.seen_sig || files_.autosave.dirty()) write_workspace();
        else flush_state();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "waferlab: could not save the workspace: %s\n", e.what());
    }
    notice("Something went wrong while " + std::string(during) + " (" + what +
           "). Your kernel is saved and the app carries on; if it happens again, please report these words.");
}

void App::place_window(const Box& b) {
    const ImGuiCond cond = relayout_ || embed_ ? ImGuiCond_Always : ImGuiCond_FirstUseEver;   // an embed's editor stays put
    ImGui::SetNextWindowPos(ImVec2(b.x, b.y), cond);
    ImGui::SetNextWindowSize(ImVec2(b.w, b.h), cond);
    if (relayout_) ImGui::SetNextWindowCollapsed(false, ImGuiCond_Always);
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
    const bool view_open = ImGui::BeginMenu("View");
    mark_item("menu_view");
    if (view_open) {
        if (ImGui::MenuItem("Zoom in", "+")) canvas_.zoom_by(1.25f);
        if (ImGui::MenuItem("Zoom out", "-")) canvas_.zoom_by(0.8f);
        if (ImGui::MenuItem("Fit mesh", "0")) canvas_.fit();
        if (ImGui::MenuItem("Reset layout")) relayout_ = true;   // the windows to their places, then fit
        mark_item("menu_reset_layout");
        font_menu();
        ImGui::Separator();
        ImGui::MenuItem("Kernel editor", nullptr, &show_editor_);
        ImGui::MenuItem("Output and log", nullptr, &show_log_);
        ImGui::MenuItem("PE inspector", nullptr, &show_inspector_);
        ImGui::MenuItem("Stats", nullptr, &show_stats_);
        ImGui::MenuItem("Wafer vs GPU", nullptr, &show_compare_);
        mark_item("menu_compare");
        ImGui::MenuItem("Model", nullptr, &model_.open);
        mark_item("menu_model");
        if (developer_) {   // a developer's tool, not a student's (--dev, ?dev=1)
            ImGui::MenuItem("Dear ImGui demo", nullptr, &show_demo_);
            mark_item("menu_demo");
        }
        ImGui::EndMenu();
    }
    const bool examples_open = ImGui::BeginMenu("Examples");
    mark_item("menu_examples");
    if (examples_open) {
        ImGui::TextDisabled("Beginner first");
        for (const std::string& n : example_names()) {
            const bool hit = ImGui::MenuItem(n.c_str(), nullptr, example_ == n);
            mark_item(("example:" + n).c_str());
            const std::string& summary = example_summary(n);
            if (!summary.empty()) {
                ImGui::SameLine(ImGui::GetFontSize() * 7.5f);
                ImGui::TextDisabled("%s", summary.c_str());
            }
            if (hit) {
                if (lesson_replaces_work()) pending_example_ = n;   // a lesson's edits are kept instead
                else load_example(n);   // paused at cycle 0: the toolbar says how to start it
            }
        }
        ImGui::EndMenu();
    }
    lessons_menu();
    if (ImGui::BeginMenu("Run")) {
        if (ImGui::MenuItem("Compile and load", "Ctrl+Enter")) compile_and_load();
        if (ImGui::MenuItem("Optimised code", nullptr, doc_.optimise())) set_optimise(!doc_.optimise());
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("the optimising code generator: immediate operands, folded address arithmetic, loops tested at\n"
                              "the bottom. The same results in fewer instructions and cycles; the lessons count plain code's.");
        ImGui::Separator();
        const bool can = not_compiled().empty() && (!gate_.matches(doc_.buffer().version()) || !runner_.done());
        if (ImGui::MenuItem("Run", "F5", false, can)) function_key(5, false);
        if (ImGui::MenuItem("Pause", "Space", false, runner_.busy())) runner_.pause();
        if (ImGui::MenuItem("Step 1 cycle", "F10", false, can)) function_key(10, false);
        if (ImGui::MenuItem("Step N cycles", "Shift+F10", false, can)) function_key(10, true);
        if (ImGui::MenuItem("Run to completion", "F6", false, can)) function_key(6, false);
        ImGui::Separator();
        if (ImGui::MenuItem("Step back 1 cycle", "F9", false, runner_.cycle() > 0)) runner_.step_back(1);
        if (ImGui::MenuItem("Reset to cycle 0", "Shift+F5", false, runner_.loaded())) runner_.reset();
        ImGui::EndMenu();
    }
    const bool mesh_open = ImGui::BeginMenu("Mesh");
    mark_item("menu_mesh");
    if (mesh_open) {
        // A loaded kernel's layout sets the grid: the menu shows it, and the empty sizes wait until none is loaded.
        const bool kernel = runner_.loaded();
        if (kernel) {
            const wl::Mesh k = runner_.run() ? runner_.run()->machine().mesh() : mesh();   // the kernel's, whatever the canvas shows now
            char label[96];
            if (k.w == mesh().w && k.h == mesh().h) std::snprintf(label, sizeof label, "%d x %d (the kernel's grid)", k.w, k.h);
            else std::snprintf(label, sizeof label, "%d x %d (the kernel's grid; the canvas shows a %d x %d model)", k.w, k.h, mesh().w, mesh().h);
            ImGui::MenuItem(label, nullptr, true);
            mark_item("mesh:kernel");
            ImGui::Separator();
        }
        for (int n : kMeshSizes) {
            char label[32];
            std::snprintf(label, sizeof label, "%d x %d", n, n);
            if (ImGui::MenuItem(label, nullptr, !kernel && mesh().w == n && mesh().h == n, !kernel)) call("set_mesh", {{"w", n}, {"h", n}});
            if (kernel && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                ImGui::SetTooltip("the loaded kernel's layout sets its grid (grid W x H;): change it there");
            mark_item(("mesh:" + std::string(label)).c_str());
        }
        ImGui::EndMenu();
    }
    const bool help_open = ImGui::BeginMenu("Help");
    mark_item("menu_help");
    if (help_open) {
        if (ImGui::MenuItem("What am I looking at?", "F1")) help_.open();
        if (ImGui::MenuItem("Take the tour")) start_tour();
        mark_item("menu_tour");
        if (ImGui::MenuItem("Start screen", nullptr, start_.is_open())) open_start_screen();
        mark_item("menu_start");
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
    place_window(layout_.editor);
    std::string title = doc_.name() + (doc_.buffer().modified() ? " *" : "") + "###kernel";
    const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse;
    if (ImGui::Begin(title.c_str(), embed_ ? nullptr : &show_editor_, embed_ ? fixed : 0)) {
        window_rect(&places_.editor_min, &places_.editor_max);
        if (ImGui::Button("Compile and load")) compile_and_load();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+Enter: compile; when it succeeds, the kernel is loaded at cycle 0");
        ImGui::SameLine();
        const auto& r = doc_.result();
        if (!r.ok()) {
            ImGui::TextColored(kErrorText, "%d error%s", r.errors, r.errors == 1 ? "" : "s");
        } else if (doc_.compiled()) {
            ImGui::TextColored(kGoodText, "compiled: %zu program image%s on a %d x %d grid", r.images(), r.images() == 1 ? "" : "s",
                               r.grid_w, r.grid_h);
        } else {
            ImGui::TextDisabled("no errors");
        }
        // The opening comment, wrapped to the window: the editor itself does not wrap.
        if (header_version_ != doc_.buffer().version()) header_ = kernel_header(doc_.buffer().text()), header_version_ = doc_.buffer().version();
        if (!header_.empty() && ImGui::CollapsingHeader("About this kernel", ImGuiTreeNodeFlags_DefaultOpen)) {
            const float w = ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize;
            const float h = ImGui::CalcTextSize(header_.c_str(), nullptr, false, w).y + ImGui::GetStyle().WindowPadding.y;
            ImGui::BeginChild("##about", ImVec2(0, std::min(h, ImGui::GetTextLineHeightWithSpacing() * 7)), false);
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
            ImGui::TextWrapped("%s", header_.c_str());
            ImGui::PopStyleColor();
            mark_item("kernel_header");
            ImGui::EndChild();
        }
        section_tabs();
        // The diagnostics list takes what it needs below the editor, up to a third.
        const size_t n = doc_.diagnostics().size();
        const float list_h = n ? std::min(float(n) + 0.5f, 6.0f) * ImGui::GetTextLineHeightWithSpacing() : 0.0f;
        std::vector<EditorMarker> markers = doc_.markers();
        if (std::optional<EditorMarker> m = fault_marker()) markers.push_back(std::move(*m));
        CodeEditor::Result er = editor_.draw("##source", doc_.buffer(), doc_.spans(), markers,
                                             ImVec2(0, n ? -list_h - ImGui::GetStyle().ItemSpacing.y : 0.0f));
        if (er.changed) doc_.refresh();
        if (er.compile_requested) compile_and_load();
        if (er.hover) hover_help(*er.hover);
        // The edit just made may have changed the diagnostics: the list is the text's now, not the
        // n it was sized for (a key that mends the last error left n past the end, read as garbage).
        const std::vector<wl::lang::Diagnostic>& diags = doc_.diagnostics();
        if (!diags.empty()) {
            ImGui::BeginChild("##diagnostics", ImVec2(0, 0), false);
            for (size_t i = 0; i < diags.size(); ++i) {
                const auto& d = diags[i];
                ImGui::PushID(int(i));
                ImVec4 col = d.severity == wl::lang::Severity::Error ? kErrorText : kWarnText;
                char label[64];
                std::snprintf(label, sizeof label, "%d:%d", d.line, d.col);
                ImGui::PushStyleColor(ImGuiCol_Text, col);
                if (ImGui::Selectable(label, false, 0, ImVec2(ImGui::CalcTextSize("0000:000").x, 0))) reveal_source(d.line, d.col);
                ImGui::PopStyleColor();
                ImGui::SameLine();
                ImGui::TextUnformatted(d.message.c_str());
                if (ImGui::IsItemHovered()) {   // the line is cut at the window's edge: the whole message on hover
                    ImGui::BeginTooltip();
                    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
                    ImGui::TextUnformatted((std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + wl::lang::message_with_notes(d)).c_str());
                    ImGui::PopTextWrapPos();
                    ImGui::EndTooltip();
                    hovered_diagnostic_ = d.message;
                }
                if (i == 0) mark_item("diagnostic");
                ImGui::PopID();
            }
            ImGui::EndChild();
        }
    }
    ImGui::End();
}

// Hover help on a keyword, type or builtin: the engine's own words for it (help.h).
void App::hover_help(TextPos at) {
    for (const SyntaxSpan& sp : doc_.spans()) {
        if (sp.line != at.line || at.col < sp.col || at.col >= sp.col + sp.len) continue;
        if (sp.cls != Syntax::Keyword && sp.cls != Syntax::Type && sp.cls != Syntax::Builtin) return;
        const std::string word = doc_.buffer().line(sp.line).substr(size_t(sp.col), size_t(sp.len));
        const std::string help = wl::lang::word_help(word);
        if (help.empty()) return;
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
        ImGui::TextColored(ImVec4(0.78f, 0.57f, 0.92f, 1.0f), "%s", word.c_str());
        ImGui::TextUnformatted(help.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
        hovered_word_ = {word, help};
        return;
    }
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
        // The tab's ID is its place, not its label: a part renamed as it is typed ("program p") stays the
        // selected tab, where a new ID was a new tab, and the bar then selected another and moved the cursor there.
        const std::string label = secs[size_t(i)].label + "###part";
        const bool open = ImGui::BeginTabItem(label.c_str(), nullptr, follow && i == here ? ImGuiTabItemFlags_SetSelected : 0);
        mark_item(("tab:" + secs[size_t(i)].label).c_str());
        if (open) {
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
            "elements, each with %s of SRAM and a router; 32-bit wavelets hop between neighbours "
            "on %d coloured channels, and data arrivals trigger tasks.",
            format_bytes(wl::kSramBytesPerPe).c_str(), wl::kColours);
        ImGui::Spacing();
        ImGui::TextDisabled("Drag to pan, wheel to zoom, click a PE to select it.");
        ImGui::TextDisabled("Built with Dear ImGui %s and SDL2.", IMGUI_VERSION);
    }
    ImGui::End();
}

// [SECTION] the start screen

void App::open_start_screen() {
    start_.open();
    start_seen_ = start_context();
}

std::string App::start_context() const {
    char b[96];
    std::snprintf(b, sizeof b, "%d%d%d%d|%llu|", int(runner_.loaded()), int(show_lessons_), int(model_.open), int(help_.touring()),
                  (unsigned long long)doc_.buffer().version());
    return b + doc_.name();
}

void App::start_frame() {
    if (!start_.is_open()) return;
    // Anything else opened since (a share link, a script's example, a file dropped): it has done its job.
    if (start_context() != start_seen_) return start_.close();
    const StartScreen::Pick p = start_.draw(example_names(), [this](const std::string& n) -> const std::string& { return example_summary(n); });
    for (const auto& [name, r] : start_.places()) drawn_[name] = r;
    switch (p.action) {
    case StartScreen::Action::Lesson: lessons_start(1); break;
    case StartScreen::Action::Train: model_.train_now(); break;
    case StartScreen::Action::Example:
        if (lesson_replaces_work()) pending_example_ = p.example;   // asks first, as the Examples menu does
        else load_example(p.example);
        break;
    case StartScreen::Action::Tour: start_tour(); break;
    case StartScreen::Action::None: break;
    }
}

void App::log_window() {
    // Opening or closing the Lessons panel gives the log its share of the right column again.
    if (show_lessons_ != log_beside_lessons_) {
        log_beside_lessons_ = show_lessons_;
        const Box& b = show_lessons_ ? layout_.lessons_log : layout_.log;
        ImGui::SetNextWindowPos(ImVec2(b.x, b.y));
        ImGui::SetNextWindowSize(ImVec2(b.w, b.h));
    } else {
        place_window(show_lessons_ ? layout_.lessons_log : layout_.log);
    }
    if (ImGui::Begin("Output and log", &show_log_)) {
        window_rect(&places_.log_min, &places_.log_max);
        if (const std::string blocked = not_compiled(); !blocked.empty()) {
            ImGui::PushStyleColor(ImGuiCol_Text, kErrorText);
            ImGui::TextWrapped("%s. Run, Step and To end wait until it compiles%s", blocked.c_str(),
                               runner_.loaded() ? "; what is below is the last build that did." : ".");
            ImGui::PopStyleColor();
            if (ImGui::IsItemClicked() && !doc_.diagnostics().empty())
                reveal_source(doc_.diagnostics().front().line, doc_.diagnostics().front().col);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("click: show the first error in the editor");
            ImGui::Separator();
        }
        const wl::lang::KernelRun* run = runner_.run();
        if (!run) ImGui::TextDisabled("Load an example (Examples menu) or compile a kernel (Ctrl+Enter), then Run (F5).");
        else {
            ImGui::TextDisabled("%s: %d PE%s loaded, cycle %llu", run->kernel().placements.empty() ? "kernel" : doc_.name().c_str(),
                                run->pes_loaded(), run->pes_loaded() == 1 ? "" : "s", (unsigned long long)run->cycle());
            // Every line wraps at the window's edge, so nothing is cut off; a click shows where it came from.
            for (size_t i = 0; i < run->output().size(); ++i) {
                const wl::lang::OutputLine& o = run->output()[i];
                ImGui::TextWrapped("%s", o.text.c_str());
                if (ImGui::IsItemClicked()) reveal_source(o.line, o.col);
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("printed by line %d: click to show it", o.line);
            }
            if (!run->ok()) {
                const wl::Fault& f = run->fault();
                wrapped_text(kErrorText, run->error().c_str());
                mark_item("log_error");
                if (ImGui::IsItemClicked()) {
                    if (f.loc.line > 0) reveal_source(int(f.loc.line), int(f.loc.col));
                    if (mesh().contains(f.x, f.y)) canvas_.select(PeCoord{f.x, f.y});
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("click: show the line in the editor and select the PE");
            } else if (run->done()) {
                ImGui::TextColored(kGoodText, "finished at cycle %llu%s", (unsigned long long)run->cycle(),
                                   run->machine().mode() == wl::RunMode::Fast ? " (estimated)" : "");
            } else if (!still_running_.empty()) {   // after_draw keeps it current
                wrapped_text(kWarnText, still_running_.c_str());
                mark_item("log_still_running");
            }
            if (runner_.busy() && ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
        }
    }
    ImGui::End();
}

// A run past kStillRunningCycles without finishing: say so, and where each busy PE is, long before
// the watchdog (a lesson's kernel takes thousands of cycles; `while true {}` never ends). The
// machine's own report (Machine::stuck), refreshed as the run moves on.
const std::string& App::still_running() {
    const wl::lang::KernelRun* run = runner_.run();
    if (!run || run->done() || !run->ok() || run->cycle() < kStillRunningCycles) {
        still_running_.clear(), still_running_at_ = 0;
        return still_running_;
    }
    if (run->cycle() >= still_running_at_ + kStillRunningCycles / 4 || still_running_.empty()) {
        still_running_at_ = run->cycle();
        char head[160];
        std::snprintf(head, sizeof head, "Still running after %s cycles: a kernel that should have finished may be in a loop that never ends. ",
                      wl::lessons::grouped(run->cycle()).c_str());
        still_running_ = head;
        const std::vector<wl::Stuck> busy = run->machine().stuck(/*include_running=*/true);
        for (size_t i = 0; i < busy.size() && i < 4; ++i) still_running_ += (i ? "; " : "") + busy[i].what;
        if (busy.size() > 4) still_running_ += "; and " + std::to_string(busy.size() - 4) + " more";
    }
    return still_running_;
}

LoadedKernel App::loaded_kernel() const {
    LoadedKernel k;
    const wl::lang::KernelRun* run = runner_.run();
    if (!run) return k;
    k.name = doc_.name();
    k.cycle = run->cycle();
    k.finished = run->done() && run->ok();
    if (!run->ok()) k.fault = run->error();
    if (k.finished)
        k.work = wl::gpu::kernel_work(run->report(), run->kernel().grid_w, run->kernel().grid_h,
                                      run->machine().mode() == wl::RunMode::Fast);
    return k;
}

std::string App::summary() const {
    const wl::lang::KernelRun* run = runner_.run();
    std::string s = "frame " + std::to_string(frame_) + ", cycle " + std::to_string(runner_.cycle()) + ", " + run_status();
    if (run && !run->ok()) s += ": " + run->error();
    return s;
}

std::optional<EditorMarker> App::fault_marker() const {
    const wl::lang::KernelRun* run = runner_.run();
    if (!run || run->ok() || run->fault().loc.line <= 0 || !gate_.matches(doc_.buffer().version())) return std::nullopt;
    return doc_.marker_at(int(run->fault().loc.line), int(run->fault().loc.col), EditorMarker::Error, run->error());
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
        {"input_pending", input_pending_},
        {"recovered", recovered_},
        {"idle", embed_ && quiet_frames_ >= kWakeFrames},
        {"mesh", {{"w", mesh().w}, {"h", mesh().h}}},
        {"view", {{"zoom", canvas_.zoom()}}},
        {"canvas", canvas_.state()},
        {"about_open", show_about_},
        {"start_screen", {{"open", start_.is_open()}, {"page", start_.page() == StartScreen::Page::Actions ? "actions" : "examples"}}},
        {"help", {{"open", help_.is_open()}, {"tour_step", help_.touring() ? json(help_.tour_step()) : json(nullptr)},
                  {"spot", help_.touring() ? json{{"x", help_.spot_min().x}, {"y", help_.spot_min().y},
                                                   {"w", help_.spot_max().x - help_.spot_min().x}, {"h", help_.spot_max().y - help_.spot_min().y}}
                                           : json(nullptr)},
                  {"next", help_.touring() ? json{{"x", help_.next_min().x}, {"y", help_.next_min().y},
                                                   {"w", help_.next_max().x - help_.next_min().x}, {"h", help_.next_max().y - help_.next_min().y}}
                                           : json(nullptr)}}},
        {"editor", {{"open", show_editor_}, {"focused", editor_.focused()}, {"file", doc_.name()},
                    {"lines", doc_.buffer().line_count()}, {"modified", doc_.buffer().modified()},
                    {"cursor", {{"line", doc_.buffer().cursor().line + 1}, {"col", doc_.buffer().cursor().col + 1}}},
                    {"text_geometry", {{"x", editor_.geometry().x}, {"y", editor_.geometry().y},
                                       {"char_w", editor_.geometry().char_w}, {"line_h", editor_.geometry().line_h}}},
                    {"hover_help", hovered_word_.first.empty() ? json(nullptr)
                                                               : json{{"word", hovered_word_.first}, {"text", hovered_word_.second}}},
                    {"header", header_},
                    {"find", {{"open", editor_.find_open()}, {"text", editor_.find_text()}, {"missed", editor_.find_missed()}}},
                    {"hover_diagnostic", hovered_diagnostic_.empty() ? json(nullptr) : json(hovered_diagnostic_)},
                    {"selection", doc_.buffer().has_selection() ? json(doc_.buffer().selected_text()) : json(nullptr)},
                    {"fault_marker", nullptr}}},
        {"inspector_term", inspector_.hovered_term().empty() ? json(nullptr) : json(inspector_.hovered_term())},
        {"inspector_terms", json::object()},
        {"compare_window", {{"term", compare_.hovered_term().empty() ? json(nullptr) : json(compare_.hovered_term())},
                            {"terms", json::object()}, {"axis_ticks", compare_.axis_ticks()},
                            {"view", compare_.view() == CompareWindow::View::Kernel ? "kernel" : "gpt"},
                            {"kernel", compare_.kernel_state()}, {"gpt", compare_.gpt_state()}}},
        {"example", example_.empty() ? json(nullptr) : json(example_)},
        {"examples", example_names()},
        {"example_summaries", json::object()},
        {"diagnostics", doc_.diagnostics_json()},
        {"compiled", doc_.compiled() && doc_.result().ok()},
        {"not_compiled", not_compiled().empty() ? json(nullptr) : json(not_compiled())},
        {"loaded_matches_editor", gate_.matches(doc_.buffer().version())},
        {"loaded", runner_.loaded()},
        {"cycle", runner_.cycle()},
        {"run_mode", wl::run_mode_name(runner_.run_mode())},
        {"arch", {{"id", runner_.arch().id}, {"lanes", wl::lanes_name(runner_.lanes())}}},
        {"optimise", doc_.optimise()},
        {"extent", {{"cycle", runner_.extent()}, {"end", runner_.extent_is_end()}}},
        {"running", runner_.busy()},
        {"done", runner_.done()},
        {"error", error_json()},
        {"output", json::array()},
        {"speed", runner_.speed()},
        {"status", run_status()},
        {"still_running", still_running_.empty() ? json(nullptr) : json(still_running_)},
        {"frame_ms", {{"emulation", tick_ms_}, {"longest_slice", runner_.last_slice_ms()}, {"busy", busy_ms_},
                      {"draw", work_budget_.draw_ms()}, {"wait", work_budget_.wait_ms()}, {"budget", work_budget_.budget_ms()}}},
    };
    if (const wl::lang::KernelRun* run = runner_.run())
        for (const wl::lang::OutputLine& o : run->output()) j["output"].push_back(o.text);
    if (std::optional<EditorMarker> m = fault_marker())
        j["editor"]["fault_marker"] = {{"line", m->line + 1}, {"col", m->col + 1}, {"message", m->message}};
    if (auto s = canvas_.selected()) j["selected_pe"] = {{"x", s->x}, {"y", s->y}};
    else j["selected_pe"] = nullptr;
    if (auto h = canvas_.hovered()) j["hovered_pe"] = {{"x", h->x}, {"y", h->y}};
    else j["hovered_pe"] = nullptr;
    for (const std::string& n : example_names()) j["example_summaries"][n] = example_summary(n);
    if (show_compare_)
        for (const auto& [name, r] : compare_.term_rects())
            j["compare_window"]["terms"][name] = {{"x", r.first.x}, {"y", r.first.y}, {"w", r.second.x - r.first.x}, {"h", r.second.y - r.first.y}};
    if (show_inspector_)
        for (const auto& [name, r] : inspector_.term_rects())
            j["inspector_terms"][name] = {{"x", r.first.x}, {"y", r.first.y}, {"w", r.second.x - r.first.x}, {"h", r.second.y - r.first.y}};
    json layout = json::object();
    for (const auto& [name, r] : drawn_)
        layout[name] = {{"x", r.first.x}, {"y", r.first.y}, {"w", r.second.x - r.first.x}, {"h", r.second.y - r.first.y}};
    j["layout"] = layout;
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
    lessons_state(j);
    j["model"] = model_.state();
    return j;
}

}  // namespace wlui
