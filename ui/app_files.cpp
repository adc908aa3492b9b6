// app_files.cpp: App methods for files — open/save kernels, export PNG, font size,
// and the workspace that persists between sessions (ui/workspace.h says what is saved,
// ui/storage.h where). Index:
//   [SECTION] start: restore the workspace and the layout
//   [SECTION] persistence: autosave, flush, clear
//   [SECTION] open and save kernel files
//   [SECTION] menus, popups and notices
//   [SECTION] PNG export
//   [SECTION] state() (the methods are in app_methods.cpp)
#include "ui/app.h"
#include "engine/core/atomic_file.h"
#include "engine/core/output_guard.h"
#include "engine/core/read_file.h"
#include "ui/js_bridge.h"
#include "ui/screenshot.h"
#include "ui/storage.h"

#include "ui/style.h"

#include <imgui.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

static constexpr const char* kWorkspaceKey = "workspace.json";
static constexpr const char* kLayoutKey = "imgui.ini";
static constexpr const char* kBadKey = "workspace.bad.json";   // an unreadable workspace, kept for the user
static constexpr size_t kMaxKernelBytes = 4u << 20;              // a kernel is text; anything bigger is a mistake

// [SECTION] start: restore the workspace and the layout

void App::start(const std::string& requested_example) {
    ImGui::GetIO().IniSavingRate = 1.0f;   // a moved window is stored a second later, not five
    std::string err;
    if (auto ini = storage::read(kLayoutKey, &err)) ImGui::LoadIniSettingsFromMemory(ini->data(), ini->size());

    std::optional<Workspace> saved;
    if (auto text = storage::read(kWorkspaceKey, &err)) {
        std::string why;
        saved = workspace_from_json(*text, &why);
        if (!saved) {
            // Keep the unreadable copy aside, so the next start is clean and nothing is lost.
            storage::write(kBadKey, *text);
            storage::remove(kWorkspaceKey);
            files_.problem = "The saved workspace could not be read (" + why + "). WaferLab started fresh; the unreadable copy is kept as " +
                             kBadKey + " in " + storage::where() + ".";
            notice(files_.problem);
        }
    }
    if (!err.empty()) {
        files_.problem = "Saved state is unavailable: " + err + ".";
        notice(files_.problem);
    }

    check_before_share();
    const StartPlan plan = plan_start(saved, requested_example);
    if (!plan.notice.empty()) notice(plan.notice);
    if (saved) {
        files_.font_scale = saved->font_scale;
        lessons_.set_done(saved->lessons_done);   // progress, whatever opens
        lessons_.set_work(saved->lesson_work);
        runner_.set_run_mode(saved->run_mode);    // before anything loads
        doc_.set_optimise(saved->optimise);
    }
    if (plan.open == StartPlan::Open::Saved) {
        restore(*saved);
    } else if (plan.open == StartPlan::Open::Example) {
        try {
            load_example(requested_example);
        } catch (const std::exception& e) {
            notice(std::string("Could not open the example: ") + e.what() + ".");
        }
    }
    // What was restored is what is stored, and a fresh start has nothing worth storing;
    // a requested example is written at the first autosave.
    if (plan.open != StartPlan::Open::Example) files_.seen_sig = workspace_sig();
    files_.stored = plan.open == StartPlan::Open::Saved;
    fresh_start_ = plan.open == StartPlan::Open::Nothing;
}

void App::restore(const Workspace& ws) {
    if (ws.modified) {
        // Rebuild "modified" honestly: the original is the base, the saved text one undoable edit on top.
        std::string base;
        if (!ws.example.empty()) {
            std::ifstream in(asset_dir_ + "/examples/" + ws.example + ".wk", std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            base = ss.str();
        }
        doc_.open(ws.file, base);
        doc_.buffer().select_all();
        doc_.buffer().insert(ws.text);
        doc_.buffer().set_cursor({0, 0});
    } else {
        doc_.open(ws.file, ws.text);
    }
    doc_.refresh();
    example_ = ws.example;
    files_.path = kWeb ? "" : ws.path;
    if (ws.lesson && lessons_.open(ws.lesson)) show_lessons_ = true;
    if (!ws.text.empty()) {
        show_editor_ = true;
        compile_and_load();
    }
}

// [SECTION] persistence: autosave, flush, clear

Workspace App::workspace() const {
    Workspace ws;
    ws.file = doc_.name();
    ws.text = doc_.buffer().text();
    ws.example = example_;
    ws.modified = doc_.buffer().modified();
    ws.path = files_.path;
    ws.font_scale = files_.font_scale;
    ws.run_mode = runner_.run_mode();
    ws.optimise = doc_.optimise();
    ws.lessons_done = lessons_.done_list();
    ws.lesson = show_lessons_ ? lessons_.current_number() : 0;
    ws.lesson_work = lessons_.all_work();
    return ws;
}

// Changes whenever what workspace() returns may have changed, without copying the text.
std::string App::workspace_sig() const {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%llu|%d|%.3f|%d|%d|", (unsigned long long)doc_.buffer().version(), int(doc_.buffer().modified()),
                  double(files_.font_scale), int(runner_.run_mode()), int(doc_.optimise()));
    std::string lessons = std::to_string(show_lessons_ ? lessons_.current_number() : 0);
    for (int n : lessons_.done_list()) lessons += ',' + std::to_string(n);
    lessons += '|' + std::to_string(lessons_.work_version());
    return buf + doc_.name() + '|' + example_ + '|' + files_.path + '|' + lessons;
}

bool App::write_workspace() {
    std::string err;
    std::size_t n = 0;
    const char* ini = ImGui::SaveIniSettingsToMemory(&n);
    ImGui::GetIO().WantSaveIniSettings = false;
    const bool ok = storage::write(kWorkspaceKey, workspace_to_json(workspace()), &err) &&
                    storage::write(kLayoutKey, std::string(ini, n), &err);
    if (ok) {
        files_.autosave.written();
        files_.seen_sig = workspace_sig();   // what was written: a frame after this sees no change to save
        files_.stored = true;
        files_.cleared = false;
        if (files_.write_failed) files_.problem.clear();
        files_.write_failed = false;
    } else if (!files_.write_failed) {   // say it once, not every half second
        files_.write_failed = true;
        files_.problem = "Could not save the workspace: " + err + ". Your edits are not being kept; use File > Save to keep a copy.";
        notice(files_.problem);
    }
    return ok;
}

void App::autosave_tick() {
    const double now = ImGui::GetTime();
    const std::string sig = workspace_sig();
    if (sig != files_.seen_sig) {
        files_.seen_sig = sig;
        files_.autosave.changed(now);
    }
    if (files_.autosave.due(now)) write_workspace();
    // The layout on its own: Dear ImGui says when a window moved or resized.
    if (ImGui::GetIO().WantSaveIniSettings && !files_.cleared) write_layout();
}

void App::write_layout() {
    std::size_t n = 0;
    const char* ini = ImGui::SaveIniSettingsToMemory(&n);
    storage::write(kLayoutKey, std::string(ini, n));
    ImGui::GetIO().WantSaveIniSettings = false;
}

void App::flush_state() {
    if (files_.autosave.dirty()) write_workspace();
    else if (!files_.cleared) write_layout();   // the kernel is stored already: leave that value alone
}

void App::clear_state() {
    storage::remove(kWorkspaceKey);
    storage::remove(kLayoutKey);
    storage::remove(kBadKey);
    storage::remove(kBeforeShareKey);
    files_.before_share = false;
    files_.autosave.written();     // nothing pending: a reload now starts fresh
    files_.cleared = true;
    files_.stored = false;
    files_.problem.clear();
}

// [SECTION] open and save kernel files

static std::string base_name(const std::string& path) {
    std::string n = std::filesystem::path(path).filename().string();
    return n.empty() ? "untitled.wk" : n.substr(0, 200);
}

void App::open_text(const std::string& name, const std::string& text, const std::string& path, bool ask) {
    if (text.size() > kMaxKernelBytes) throw std::invalid_argument(name + " is too big for a kernel (over 4 MiB)");
    if (lesson_replaces_work()) {   // a lesson's edits are kept (app_lessons.cpp); others are asked about
        if (!ask) throw std::invalid_argument(doc_.name() + " has unsaved edits; pass discard=true to replace them");
        files_.pending_open = true;   // the popup decides
        files_.open_name = base_name(name);
        files_.open_text = text;
        files_.open_path = path;
        return;
    }
    keep_lesson_work();
    doc_.open(base_name(name), text);
    example_.clear();
    files_.path = path;
    show_editor_ = true;
    canvas_.select(std::nullopt);
    compile_and_load();
}

void App::open_path(const std::string& path) {
    std::string text, error;   // a directory is called one; /dev/zero stops at the limit
    if (!wl::read_file(path, wl::kMaxSourceBytes, "kernel", &text, &error)) throw std::runtime_error(error);
    open_text(path, text, std::filesystem::absolute(path).string(), true);
}

void App::drop_file(const std::string& path) {
    // With the Model window open, a file that is not a kernel is text to train on: a refusal is a
    // training notice (it goes once a training start succeeds).
    const bool training = model_.open && std::filesystem::path(path).extension() != ".wk";
    try {
        if (training) {
            std::string text, error;   // refused at the limit, before reading it all
            if (!wl::read_file(path, kMaxTrainTextBytes, "training text", &text, &error)) throw std::runtime_error(error);
            if (!model_.train_text(base_name(path), text)) notice(model_.train_error(), Notices::About::Training);
            return;
        }
        open_path(path);
    } catch (const std::exception& e) {
        notice(e.what(), training ? Notices::About::Training : Notices::About::App);
    }
}

void App::save_file(const std::string& path) {
    const std::string text = doc_.buffer().text();
    if (kWeb) {
        js_bridge_download(doc_.name().c_str(), "text/plain", text.data(), text.size());
    } else {
        // Over its own file, or a new one, or another kernel; never over a text, checkpoint or image.
        if (!wl::same_file(path, files_.path)) wl::guard_output({"Save as", path}, wl::kKernelOutput, {});
        std::string error;   // a crash mid-save keeps the file as it was
        if (!wl::write_file_atomically(path, text, &error)) throw std::runtime_error(error);
        files_.path = std::filesystem::absolute(path).string();
        if (doc_.name() != base_name(path)) doc_.rename(base_name(path));
    }
    // The file on disk (or in Downloads) now holds the text: it is no longer an example's edit.
    doc_.buffer().mark_saved();
    example_.clear();
}

// [SECTION] menus, popups and notices

void App::notice(const std::string& text, Notices::About about) {
    std::fprintf(stderr, "waferlab: %s\n", text.c_str());
    files_.notices.add(text, about);
}

void App::ask_path(FileState::Ask what, const std::string& initial) {
    files_.ask = what;
    files_.path_error.clear();
    std::snprintf(files_.path_buf, sizeof files_.path_buf, "%s", initial.c_str());
}

void App::file_menu() {
    if (kWeb) {
        if (ImGui::MenuItem("Open kernel file...")) js_bridge_pick_file();
        places_.file_open_min = ImGui::GetItemRectMin(), places_.file_open_max = ImGui::GetItemRectMax();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Pick a .wk file, or drop one onto the page");
        if (ImGui::MenuItem("Download kernel")) call("save_file", nullptr);
        if (ImGui::MenuItem("Export canvas as PNG")) call("export_png", nullptr);
        if (ImGui::MenuItem("Share...")) js_bridge_share();
        mark_item("menu_share");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("A link that reopens this kernel, cycle, colouring and PE, and an <iframe> to embed it");
    } else {
        if (ImGui::MenuItem("Open...")) ask_path(FileState::Ask::Open, files_.path);
        places_.file_open_min = ImGui::GetItemRectMin(), places_.file_open_max = ImGui::GetItemRectMax();
        if (ImGui::MenuItem("Save", "Ctrl+S")) save_shortcut();
        if (ImGui::MenuItem("Save as...")) ask_path(FileState::Ask::SaveAs, files_.path.empty() ? doc_.name() : files_.path);
        if (ImGui::MenuItem("Export canvas as PNG...")) ask_path(FileState::Ask::ExportPng, "waferlab.png");
    }
    if (files_.before_share && ImGui::MenuItem("Restore edits from before the link")) {
        try {
            restore_before_share();
        } catch (const std::exception& e) {
            notice(std::string("Could not restore the edits: ") + e.what() + ".");
        }
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Forget saved workspace")) clear_state();
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Kernel, layout and settings are kept in %s.\nThis clears them; the next start is fresh.", storage::where().c_str());
}

void App::font_menu() {
    static const int kPercents[] = {75, 90, 100, 110, 125, 150, 175, 200};
    if (!ImGui::BeginMenu("Font size")) return;
    for (int p : kPercents) {
        char label[16];
        std::snprintf(label, sizeof label, "%d%%", p);
        if (ImGui::MenuItem(label, nullptr, int(files_.font_scale * 100.0f + 0.5f) == p)) files_.font_scale = float(p) / 100.0f;
    }
    ImGui::EndMenu();
}

void App::save_shortcut() {
    if (kWeb || !files_.path.empty()) {
        try {
            save_file(files_.path);
        } catch (const std::exception& e) {
            notice(e.what());
        }
    } else {
        ask_path(FileState::Ask::SaveAs, doc_.name());
    }
}

void App::files_frame() {
    autosave_tick();

    // The native path popup: one text field for Open, Save as and Export PNG.
    static const char* kTitles[] = {"", "Open kernel file", "Save kernel as", "Export canvas as PNG"};
    const char* title = kTitles[int(files_.ask)];
    if (files_.ask != FileState::Ask::None && !ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
    if (files_.ask != FileState::Ask::None && ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        std::error_code ec;
        ImGui::TextDisabled("relative to %s", std::filesystem::current_path(ec).string().c_str());
        if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 32.0f);
        bool go = ImGui::InputText("##path", files_.path_buf, sizeof files_.path_buf, ImGuiInputTextFlags_EnterReturnsTrue);
        if (!files_.path_error.empty()) wrapped_text(kErrorText, files_.path_error.c_str());
        go |= ImGui::Button(files_.ask == FileState::Ask::Open ? "Open" : "Save");
        ImGui::SameLine();
        const bool cancel = ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
        if (go && files_.path_buf[0]) {
            try {
                const std::string p = files_.path_buf;
                if (files_.ask == FileState::Ask::Open) open_path(p);
                else if (files_.ask == FileState::Ask::SaveAs) save_file(p);
                else call("export_png", {{"path", p}});
                files_.ask = FileState::Ask::None;
                ImGui::CloseCurrentPopup();
            } catch (const std::exception& e) {
                files_.path_error = e.what();
            }
        } else if (cancel) {
            files_.ask = FileState::Ask::None;
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }

    // Opening a file over unsaved edits asks first, like loading an example.
    const char* replace = "Replace unsaved edits?";
    if (files_.pending_open && !ImGui::IsPopupOpen(replace)) ImGui::OpenPopup(replace);
    if (ImGui::BeginPopupModal(replace, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::Text("%s has unsaved edits. Open %s and lose them?", doc_.name().c_str(), files_.open_name.c_str());
        if (ImGui::Button("Discard and open")) {
            doc_.buffer().mark_saved();   // the user said so
            open_text(files_.open_name, files_.open_text, files_.open_path, false);
            files_.pending_open = false;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Keep my edits") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            files_.pending_open = false;
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }

    // Notices: what went wrong at start or while saving, until the user dismisses them.
    if (!files_.notices.empty() && !png_capture_frame()) {
        const ImGuiViewport* vp = ImGui::GetMainViewport();
        ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y - 40.0f),
                                ImGuiCond_Always, ImVec2(0.5f, 1.0f));
        ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(vp->WorkSize.x * 0.8f, vp->WorkSize.y * 0.5f));
        ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.23f, 0.16f, 0.09f, 0.97f));
        ImGui::Begin("##notices", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                               ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing);
        ImGui::PushTextWrapPos(vp->WorkSize.x * 0.75f);
        for (const std::string& n : files_.notices.texts()) ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.6f, 1.0f), "%s", n.c_str());
        ImGui::PopTextWrapPos();
        if (ImGui::Button("Dismiss")) files_.notices.clear();
        ImGui::End();
        ImGui::PopStyleColor();
    }
}

// [SECTION] PNG export

bool App::png_capture_frame() const { return files_.png_frame != 0 && frame_ == files_.png_frame; }

void App::deliver_png(const Image& frame) {
    files_.png_frame = 0;
    // Crop to the mesh canvas, in framebuffer pixels.
    const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
    const int x0 = std::clamp(int(places_.canvas_min.x * s.x), 0, frame.w), y0 = std::clamp(int(places_.canvas_min.y * s.y), 0, frame.h);
    const int x1 = std::clamp(int(places_.canvas_max.x * s.x), x0, frame.w), y1 = std::clamp(int(places_.canvas_max.y * s.y), y0, frame.h);
    const Image img = x1 - x0 >= 1 && y1 - y0 >= 1 ? crop(frame, x0, y0, x1 - x0, y1 - y0) : frame;
    if (kWeb) {
        const std::vector<uint8_t> png = encode_png(img);
        js_bridge_download(files_.png_path.c_str(), "image/png", png.data(), png.size());
    } else if (!write_png(files_.png_path, img)) {
        notice("Could not write " + files_.png_path + ".");
    } else {
        std::printf("waferlab: wrote %s (%dx%d)\n", files_.png_path.c_str(), img.w, img.h);
    }
}

// [SECTION] state()

void App::files_state(json& j) const {
    j["editor"]["path"] = files_.path.empty() ? json(nullptr) : json(files_.path);
    // An edit made between frames (a JS method's) is not yet seen by autosave_tick: its signature tells.
    j["persisted"] = files_.stored && !files_.autosave.dirty() && workspace_sig() == files_.seen_sig && !files_.write_failed &&
                     storage::enabled();
    j["storage"] = {{"where", storage::where()}, {"enabled", storage::enabled()},
                    {"problem", files_.problem.empty() ? json(nullptr) : json(files_.problem)}};
    j["notices"] = files_.notices.texts();
    j["font_scale"] = files_.font_scale;
    j["png_pending"] = files_.png_frame != 0;
    j["pending_open"] = files_.pending_open ? json(files_.open_name) : json(nullptr);
    j["before_share_kept"] = files_.before_share;
}

}  // namespace wlui
