// app_lessons.cpp: App methods for the guided lessons — the Lessons menu and panel; opening
// a lesson (menu, panel, ?lesson=N, JS); its starter or solution into the editor without
// losing unsaved work; Check; and state(). The lessons and their checker are
// engine/lessons/, the panel's state ui/lesson_model.h, the window ui/lessons_window.h.
//   [SECTION] opening a lesson and filling the editor
//   [SECTION] menu, panel and popup
//   [SECTION] state() (the methods are in app_methods.cpp)
#include "ui/app.h"

#include "ui/markdown.h"

#include <imgui.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

// [SECTION] opening a lesson and filling the editor

// "there is no lesson 99: the lessons are 1 to 16"
static std::string no_lesson(const LessonModel& m, int number) {
    if (m.lessons().empty())
        return "no lessons were found" + (m.errors().empty() ? std::string() : " (" + m.errors().front() + ")");
    return "there is no lesson " + std::to_string(number) + ": the lessons are " + std::to_string(m.lessons().front().number) +
           " to " + std::to_string(m.lessons().back().number);
}

void App::lessons_start(int number) {
    try {
        open_lesson(number, LessonEdit::Keep);
    } catch (const std::exception& e) {
        show_lessons_ = true;   // the list, one click away
        notice(std::string("Could not open the lesson: ") + e.what() + ". Pick one in the Lessons panel.");
    }
}

// Whether the editor holds unsaved edits that loading a kernel would throw away. Work that passed
// the open lesson's check and has not changed since is done: the next lesson may replace it.
bool App::lesson_replaces_work() const {
    if (!doc_.buffer().modified()) return false;
    const wl::lessons::Verdict* v = lessons_.verdict();
    return !(v && v->passed && lesson_checked_ == doc_.buffer().version() && doc_.name() == lessons_.file_name());
}

void App::open_lesson(int number, LessonEdit how) {
    const wl::lessons::Lesson* l = lessons_.find(number);
    if (!l) throw std::invalid_argument(no_lesson(lessons_, number));
    const bool own = doc_.name() == LessonModel::file_name(number);   // already this lesson's work: it stays
    const bool free = !lesson_replaces_work();                        // judged before open() forgets the verdict
    if (!own && !free && how == LessonEdit::Throw)
        throw std::invalid_argument(doc_.name() + " has unsaved edits; pass discard=true to replace them");
    lessons_.open(number);
    show_lessons_ = true;
    lesson_checked_ = ~0ull;
    if (!own) lesson_to_editor(l->starter, "starter", free ? LessonEdit::Discard : how);
}

// The open lesson's starter or solution into the editor. The lesson's own file is replaced as one
// edit (Ctrl+Z brings the student's text back); other unsaved work is replaced only as `how` says.
void App::lesson_to_editor(const std::string& text, const char* what, LessonEdit how) {
    const std::string file = lessons_.file_name();
    if (doc_.name() == file && doc_.buffer().modified()) {
        doc_.buffer().select_all();
        doc_.buffer().insert(text);
        doc_.buffer().set_cursor({0, 0});
    } else if (how != LessonEdit::Discard && lesson_replaces_work()) {
        if (how == LessonEdit::Throw) throw std::invalid_argument(doc_.name() + " has unsaved edits; pass discard=true to replace them");
        if (how == LessonEdit::Ask) lesson_pending_ = text, lesson_pending_what_ = what;
        if (how == LessonEdit::Keep)
            notice("Kept your unsaved edits to " + doc_.name() + " instead of loading lesson " + std::to_string(lessons_.current_number()) +
                   "'s " + what + ": Load starter in the Lessons panel replaces them.");
        return;
    } else {
        doc_.open(file, text);
        example_.clear();
        files_.path.clear();   // Save must not write the lesson over the file that was open
    }
    doc_.refresh();
    show_editor_ = true;
    canvas_.select(std::nullopt);
    compile_and_load();
}

// The panel's Check: a training check runs a step a frame (lessons_frame), with its progress drawn.
void App::begin_check_lesson() {
    if (!lessons_.current()) return;
    compile_and_load();
    lessons_.begin_check(doc_.buffer().text());
    lesson_checked_ = doc_.buffer().version();
}

const wl::lessons::Verdict& App::check_lesson() {
    if (!lessons_.current()) throw std::invalid_argument("no lesson is open: open_lesson(n) first");
    compile_and_load();   // the editor marks its errors, and the mesh shows the kernel's grid
    const wl::lessons::Verdict& v = *lessons_.check(doc_.buffer().text());
    lesson_checked_ = doc_.buffer().version();
    return v;
}

// [SECTION] menu, panel and popup

void App::lessons_menu() {
    const bool open = ImGui::BeginMenu("Lessons");
    mark_item("menu_lessons");
    if (!open) return;
    ImGui::MenuItem("Lessons panel", nullptr, &show_lessons_);
    ImGui::Separator();
    if (int n = LessonsWindow::lesson_items(lessons_, &drawn_)) open_lesson(n, LessonEdit::Ask);
    ImGui::EndMenu();
}

void App::lessons_frame() {
    if (lessons_.checking()) lessons_.advance_check();   // one training step a frame: the panel shows its progress
    if (show_lessons_) {
        place_window(layout_.inspector);   // the right column's top: the editor and the log stay in view
        const bool stale = lessons_.verdict() && lesson_checked_ != doc_.buffer().version();
        const LessonsWindow::Request r = lessons_window_.draw(&show_lessons_, lessons_, stale);
        for (const auto& [name, rect] : lessons_window_.places()) drawn_[name] = rect;
        if (r.open) open_lesson(r.open, LessonEdit::Ask);
        if (r.starter && lessons_.current()) lesson_to_editor(lessons_.current()->starter, "starter", LessonEdit::Ask);
        if (r.check) begin_check_lesson();
        if (r.solution) lesson_to_editor(*r.solution, "solution", LessonEdit::Ask);
    }
    const char* title = "Replace unsaved edits?###lesson";
    if (!lesson_pending_.empty() && !ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
    if (ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::Text("%s has unsaved edits. Load lesson %d's %s and lose them?", doc_.name().c_str(), lessons_.current_number(),
                    lesson_pending_what_.c_str());
        if (ImGui::Button("Discard and load")) {
            const std::string text = std::move(lesson_pending_);
            lesson_pending_.clear();
            lesson_to_editor(text, lesson_pending_what_.c_str(), LessonEdit::Discard);
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Keep my edits") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            lesson_pending_.clear();
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
}

// [SECTION] state()

void App::lessons_state(json& j) const {
    const wl::lessons::Lesson* l = lessons_.current();
    json list = json::array(), hints = json::array(), headings = json::array(), verdict = nullptr;
    for (const wl::lessons::Lesson& x : lessons_.lessons())
        list.push_back({{"number", x.number}, {"title", x.title}, {"done", lessons_.done(x.number)}});
    if (l) {
        for (int i = 0; i < lessons_.hints_shown(); ++i) hints.push_back(l->spec.hints[size_t(i)]);
        for (const MdBlock& b : parse_markdown(l->text))
            if (b.kind == MdBlock::Kind::Heading) headings.push_back(b.plain());
    }
    if (const wl::lessons::Verdict* v = lessons_.verdict()) {
        verdict = wl::lessons::verdict_json(*v);
        verdict["stale"] = lesson_checked_ != doc_.buffer().version();
    }
    const int next = lessons_.next_number();
    j["lesson"] = {
        {"panel_open", show_lessons_},
        {"current", l ? json(l->number) : json(nullptr)},
        {"title", l ? json(l->title) : json(nullptr)},
        {"file", l ? json(lessons_.file_name()) : json(nullptr)},
        {"next", l && next ? json(next) : json(nullptr)},
        {"headings", headings},
        {"hints_shown", lessons_.hints_shown()},
        {"hints_total", l ? l->spec.hints.size() : 0},
        {"hints", hints},
        {"confirming_solution", lessons_.confirming_solution()},
        {"solution_shown", lessons_.solution_shown()},
        {"verdict", verdict},
        {"checking", lessons_.checking() ? json(lessons_.check_progress()) : json(nullptr)},
        {"pending", lesson_pending_.empty() ? json(nullptr) : json(lesson_pending_what_)},
        {"done", lessons_.done_list()},
        {"lessons", list},
        {"errors", lessons_.errors()},
    };
}

}  // namespace wlui
