// lessons_window.h: the "Lessons" window — pick a lesson (done ones ticked), read its text
// (Markdown, drawn by markdown_view), then Load starter, Check, Hint (one at a time),
// Show solution (after a confirmation) and Next. It draws a LessonModel and changes only
// what the model holds (hints, the confirmation); what touches the editor or runs a check
// comes back as a Request for the app (app_lessons.cpp), which owns the editor.
//
//   LessonsWindow w;                                  // once
//   auto req = w.draw(&open, model, stale);           // every frame; then act on req
#pragma once
#include "ui/lesson_model.h"
#include "ui/markdown.h"

#include <imgui.h>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wlui {

class LessonsWindow {
public:
    struct Request {
        int open = 0;                           // open this lesson (the picker, Next)
        bool starter = false;                   // Load starter
        bool check = false;                     // Check
        std::optional<std::string> solution;    // Show solution, confirmed: its text for the editor
    };
    // `stale`: the verdict shown was for an earlier text of the editor.
    Request draw(bool* open, LessonModel& m, bool stale);

    // One menu item per lesson, ticked when done, for a menu or a combo; the one picked, or 0.
    // `places` (if given) gets where each was drawn, as "lesson:N".
    static int lesson_items(const LessonModel& m, std::map<std::string, std::pair<ImVec2, ImVec2>>* places);

    // The open lesson's text as parsed for drawing (parsed once per lesson).
    const std::vector<MdBlock>& text(const wl::lessons::Lesson& l);

    // Where the controls were drawn last frame, for state().layout: "lesson_check", ...
    const std::map<std::string, std::pair<ImVec2, ImVec2>>& places() const { return places_; }

private:
    void mark(const char* name) { places_[name] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()}; }
    void footer(LessonModel& m, bool stale, Request& req);

    int parsed_ = 0;                    // the lesson blocks_ holds
    std::vector<MdBlock> blocks_;
    float footer_h_ = 0;                // the controls' height last frame: the text gets the rest
    std::map<std::string, std::pair<ImVec2, ImVec2>> places_;
};

}  // namespace wlui
