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

// One rule for a lesson's kernel: what the student typed is never thrown away unasked. Leaving a
// lesson keeps its text (LessonModel::keep_work, saved with the workspace) and coming back brings
// it back, so moving between lessons never asks. Load starter and Show solution replace it in place:
// they ask first (Ctrl+Z brings it back too). Unsaved work that is no lesson's (an edited example
// or file) is asked about before a lesson replaces it.

// Whether the editor holds unsaved edits that no lesson keeps.
bool App::lesson_replaces_work() const {
    return doc_.buffer().modified() && !LessonModel::number_of_file(doc_.name());
}

void App::keep_lesson_work() {
    if (const int n = LessonModel::number_of_file(doc_.name())) lessons_.keep_work(n, doc_.buffer().text());
}

void App::open_lesson(int number, LessonEdit how) {
    const wl::lessons::Lesson* l = lessons_.find(number);
    if (!l) throw std::invalid_argument(no_lesson(lessons_, number));
    const bool own = doc_.name() == LessonModel::file_name(number);   // already this lesson's work: it stays
    const bool other = !own && lesson_replaces_work();
    if (other && how == LessonEdit::Throw)
        throw std::invalid_argument(doc_.name() + " has unsaved edits; pass discard=true to replace them");
    lessons_.open(number);
    show_lessons_ = true;
    lesson_checked_ = ~0ull;
    if (own) return;
    if (other && how == LessonEdit::Ask) {
        lesson_pending_ = Pending::File;
        return;
    }
    if (other && how == LessonEdit::Keep) {
        notice("Kept your unsaved edits to " + doc_.name() + " instead of loading lesson " + std::to_string(number) +
               "'s kernel: pick the lesson again (or Load starter) to replace them.");
        return;
    }
    lesson_file_to_editor();
}

// The open lesson's file into the editor: its starter, with the student's kept work one undoable edit on top.
void App::lesson_file_to_editor() {
    const wl::lessons::Lesson& l = *lessons_.current();
    keep_lesson_work();   // the lesson (if any) that the editor leaves
    doc_.open(lessons_.file_name(), l.starter);
    if (const std::string* work = lessons_.work(l.number)) {
        doc_.buffer().select_all();
        doc_.buffer().insert(*work);
        doc_.buffer().set_cursor({0, 0});
    }
    example_.clear();
    files_.path.clear();   // Save must not write the lesson over the file that was open
    doc_.refresh();
    show_editor_ = true;
    canvas_.select(std::nullopt);
    compile_and_load();
}

// The open lesson's starter or solution in place of the editor's text. Edits are replaced only as
// `how` says (Ask: the popup asks); then as one edit when the editor holds the lesson's own file.
void App::lesson_to_editor(const std::string& text, Pending what, LessonEdit how) {
    const bool mine = doc_.name() == lessons_.file_name();
    if (doc_.buffer().modified() && how != LessonEdit::Discard) {
        if (how == LessonEdit::Throw) throw std::invalid_argument(doc_.name() + " has unsaved edits; pass discard=true to replace them");
        if (how == LessonEdit::Ask) lesson_pending_ = what;
        if (how == LessonEdit::Keep)
            notice("Kept your unsaved edits to " + doc_.name() + " instead of loading lesson " + std::to_string(lessons_.current_number()) +
                   "'s " + pending_name(what) + ": Load starter in the Lessons panel replaces them.");
        return;
    }
    if (!mine) {
        lesson_file_to_editor();
        if (doc_.buffer().text() == text) return;
    }
    doc_.buffer().select_all();
    doc_.buffer().insert(text);
    doc_.buffer().set_cursor({0, 0});
    doc_.refresh();
    show_editor_ = true;
    canvas_.select(std::nullopt);
    compile_and_load();
}

const char* App::pending_name(Pending p) {
    switch (p) {
    case Pending::Starter: return "starter";
    case Pending::Solution: return "solution";
    case Pending::File: return "kernel";
    case Pending::None: break;
    }
    return "";
}

// The panel's Check: a training check runs a step between frames (after_draw), with its progress drawn.
void App::begin_check_lesson() {
    const wl::lessons::Lesson* l = lessons_.current();
    if (!l) return;
    compile_and_load();
    lessons_.begin_check(doc_.buffer().text());
    lesson_checked_ = doc_.buffer().version();
    // A kernel's check ran it out of sight: the canvas runs the same kernel to its end, so what the
    // verdict judged is on screen (a model kernel's check runs the GPT instead, and says so).
    if (!l->spec.trains() && !l->spec.forwards() && gate_.matches(doc_.buffer().version())) {
        runner_.reset();
        runner_.run_to_end();
    }
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
    if (show_lessons_) {
        place_window(layout_.lessons);   // the right column's top: the editor and the log stay in view
        const bool stale = lessons_.verdict() && lesson_checked_ != doc_.buffer().version();
        const LessonsWindow::Request r = lessons_window_.draw(&show_lessons_, lessons_, stale,
                                                              [this](std::string_view name) { return doc_.definition(name).has_value(); });
        for (const auto& [name, rect] : lessons_window_.places()) drawn_[name] = rect;
        if (r.show_code)   // the definition, its name selected
            if (const std::optional<TextPos> at = doc_.definition(*r.show_code)) {
                show_editor_ = true;
                editor_.reveal(*at, /*select_word=*/true);
                editor_.focus();
            }
        if (r.open) open_lesson(r.open, LessonEdit::Ask);
        if (r.starter && lessons_.current()) lesson_to_editor(lessons_.current()->starter, Pending::Starter, LessonEdit::Ask);
        if (r.check) begin_check_lesson();
        if (r.solution) lesson_to_editor(*r.solution, Pending::Solution, LessonEdit::Discard);   // the panel asked already
    }
    const char* title = "Replace unsaved edits?###lesson";
    if (lesson_pending_ != Pending::None && !lessons_.current()) lesson_pending_ = Pending::None;
    if (lesson_pending_ != Pending::None && !ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
    if (ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        const Pending what = lesson_pending_;
        ImGui::Text("%s has unsaved edits. Load lesson %d's %s and lose them?", doc_.name().c_str(), lessons_.current_number(),
                    pending_name(what));
        if (doc_.name() == lessons_.file_name()) ImGui::TextDisabled("Ctrl+Z in the editor brings them back.");
        if (ImGui::Button("Replace them")) {
            lesson_pending_ = Pending::None;
            if (what == Pending::File) lesson_file_to_editor();
            else if (const wl::lessons::Lesson* l = lessons_.current())
                lesson_to_editor(what == Pending::Starter ? l->starter : l->solution, what, LessonEdit::Discard);
            ImGui::CloseCurrentPopup();
        }
        mark_item("lesson_replace");
        ImGui::SameLine();
        if (ImGui::Button("Keep my edits") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            lesson_pending_ = Pending::None;
            ImGui::CloseCurrentPopup();
        }
        mark_item("lesson_keep");
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
        {"pending", lesson_pending_ == Pending::None ? json(nullptr) : json(pending_name(lesson_pending_))},
        {"kept_work", [&] {
             json kept = json::array();
             for (const auto& [n, text] : lessons_.all_work()) kept.push_back(n);
             return kept;
         }()},
        {"done", lessons_.done_list()},
        {"lessons", list},
        {"errors", lessons_.errors()},
        {"text_scroll", lessons_window_.text_scroll()},
        {"text_blocks", [&] {   // the kinds of the text's blocks, in order: "heading paragraph table ..."
             std::string kinds;
             static const char* kKind[] = {"heading", "paragraph", "item", "code", "rule", "table"};
             if (l)
                 for (const MdBlock& b : parse_markdown(l->text)) kinds += std::string(kinds.empty() ? "" : " ") + kKind[int(b.kind)];
             return kinds;
         }()},
        {"code_links", [&] {
             json links = json::array();
             for (const MdTarget& t : lessons_window_.code_links())
                 links.push_back({{"name", t.name}, {"x", t.x}, {"y", t.y}, {"w", t.w}, {"h", t.h}});
             return links;
         }()},
    };
}

}  // namespace wlui
