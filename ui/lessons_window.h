// lessons_window.h: the "Lessons" window — pick a lesson (done ones ticked), read its text
// (Markdown, drawn by markdown_view), then Load starter, Check, Hint (one at a time),
// Show solution (after a confirmation) and Next. The buttons sit above the text, so neither
// the text nor a verdict growing below it moves them. It draws a LessonModel and changes only
// what the model holds (hints, the confirmation); what touches the editor or runs a check
// comes back as a Request for the app (app_lessons.cpp), which owns the editor.
//
//   LessonsWindow w;                                  // once
//   auto req = w.draw(&open, model, stale);           // every frame; then act on req
#pragma once
#include "ui/lesson_model.h"
#include "ui/markdown.h"
#include "ui/markdown_view.h"

#include <imgui.h>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

class LessonsWindow {
public:
    struct Request {
        int open = 0;                           // open this lesson (the picker, Next)
        bool starter = false;                   // Load starter
        bool check = false;                     // Check
        std::optional<std::string> solution;    // Show solution, confirmed: its text for the editor
        std::optional<std::string> show_code;   // a name in the text's inline code was clicked: show its definition
    };
    // `stale`: the verdict shown was for an earlier text of the editor. `is_target`: whether a
    // name in the text's inline code (`load_w()`) is one the editor can show.
    Request draw(bool* open, LessonModel& m, bool stale, const std::function<bool(std::string_view)>& is_target = {});

    // One menu item per lesson, ticked when done, for a menu or a combo; the one picked, or 0.
    // `places` (if given) gets where each was drawn, as "lesson:N".
    static int lesson_items(const LessonModel& m, std::map<std::string, std::pair<ImVec2, ImVec2>>* places);

    // The open lesson's text as parsed for drawing (parsed once per lesson).
    const std::vector<MdBlock>& text(const wl::lessons::Lesson& l);

    float text_scroll() const { return text_scroll_; }                 // the text's scroll, last frame
    const std::vector<MdTarget>& code_links() const { return links_; }   // its code names that show a definition

    // Where the controls were drawn last frame, for state().layout: "lesson_check", ...
    const std::map<std::string, std::pair<ImVec2, ImVec2>>& places() const { return places_; }

private:
    void mark(const char* name) { places_[name] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()}; }
    void buttons(LessonModel& m, Request& req);   // one row (or two), above the text: they never move
    void result(LessonModel& m, bool stale, Request& req);   // the confirmation, progress, verdict, hints

    int parsed_ = 0;                    // the lesson blocks_ holds
    int shown_ = 0;                     // the lesson drawn last frame (a new one opens at its title)
    std::vector<MdBlock> blocks_;
    float text_scroll_ = 0;
    std::vector<MdTarget> links_;
    float buttons_h_ = 0;               // the buttons' rows' height last frame
    float result_h_ = 0;                // the result's height last frame: the text gets the rest
    std::map<std::string, std::pair<ImVec2, ImVec2>> places_;
};

}  // namespace wlui
