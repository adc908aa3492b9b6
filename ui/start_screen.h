// start_screen.h: the window a first visit opens on — the three things people come for (lesson 1,
// training a GPT on the wafer, an example) and the tour one click away. It draws and says what
// was picked; the app (app.cpp) acts on it, and shows it again from Help > Start screen.
//
//   StartScreen s;
//   s.open();                                         // a first visit (no saved workspace)
//   StartScreen::Pick p = s.draw(examples, summary);  // every frame; then act on p.action
#pragma once
#include <imgui.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wlui {

class StartScreen {
public:
    enum class Action { None, Lesson, Train, Example, Tour };
    struct Pick {
        Action action = Action::None;
        std::string example;            // Action::Example: its name
    };
    enum class Page { Actions, Examples };   // the three actions, or the list "Open an example" shows

    void open() { open_ = true, page_ = Page::Actions; }
    void close() { open_ = false; }
    bool is_open() const { return open_; }
    Page page() const { return page_; }

    // Draws the window while open; a pick closes it (the app then opens what was picked).
    Pick draw(const std::vector<std::string>& examples, const std::function<const std::string&(const std::string&)>& summary);

    // Where its buttons were drawn last frame ("start_lesson", "start_train", "start_examples",
    // "start_tour", "start_close", "start_back", "start_example:gemv") and the window itself
    // ("start_window"), for state().layout.
    const std::map<std::string, std::pair<ImVec2, ImVec2>>& places() const { return places_; }

    static constexpr const char* kTitle = "Welcome to WaferLab";   // the window's ImGui name

private:
    bool big_button(const char* label, const char* blurb, const char* place);
    void mark(const std::string& name) { places_[name] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()}; }

    bool open_ = false;
    Page page_ = Page::Actions;
    std::map<std::string, std::pair<ImVec2, ImVec2>> places_;
};

}  // namespace wlui
