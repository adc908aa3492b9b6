// notices.h: the app's notices (the box at the bottom of the window; state().notices): what went
// wrong, each shown once, until the user dismisses them, or until what a notice is about is put
// right: a training notice (a text refused for training) goes once a training start succeeds.
// No ImGui: App draws it (app_files.cpp) and tests/ui drives it.
//
//   Notices n;
//   n.add("empty.txt is empty: there is nothing to train on", Notices::About::Training);
//   every frame: n.training_run(train.run_id());   // a new run: the training notices go
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace wlui {

class Notices {
public:
    enum class About { App, Training };
    void add(const std::string& text, About about = About::App);   // a text already shown is not added twice
    void clear() { items_.clear(); }                               // the user's Dismiss
    // TrainSession::run_id() now: when it moved on (a start succeeded), the training notices go.
    void training_run(uint64_t run_id);
    bool empty() const { return items_.empty(); }
    std::vector<std::string> texts() const;   // oldest first

private:
    struct Item {
        std::string text;
        About about;
    };
    std::vector<Item> items_;
    uint64_t run_id_ = 0;
};

}  // namespace wlui
