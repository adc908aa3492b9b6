// help.h: the "what am I looking at" window, the keyboard shortcuts, and a
// short guided tour that points at each part of the app in turn.
#pragma once
#include <imgui.h>

namespace wlui {

class Help {
public:
    // Where the parts of the app are this frame (screen rectangles; zero size: not shown).
    struct Places {
        ImVec2 toolbar_min, toolbar_max, canvas_min, canvas_max, editor_min, editor_max, log_min, log_max;
        ImVec2 wavelet_min, wavelet_max;   // around a wavelet in flight on the canvas (zero size: none yet)
        ImVec2 file_menu_min, file_menu_max, file_open_min, file_open_max;   // File, and its first item while open
    };

    void open() { open_ = true; }
    void toggle() { open_ = !open_; }
    bool is_open() const { return open_; }
    void start_tour() { step_ = 0, open_ = false; }
    bool touring() const { return step_ >= 0; }
    int tour_step() const { return step_; }

    void draw(const Places& at);
    bool wants_running() const;          // the current stop shows the kernel running: the app keeps it playing
    ImVec2 spot_min() const { return spot_min_; }   // the part the current stop lights up (for state())
    ImVec2 spot_max() const { return spot_max_; }
    ImVec2 next_min() const { return next_min_; }   // the card's Next button
    ImVec2 next_max() const { return next_max_; }

private:
    void window();
    void tour(const Places& at);

    bool open_ = false;
    int step_ = -1;   // the tour's step; -1 = no tour
    ImVec2 spot_min_{0, 0}, spot_max_{0, 0}, next_min_{0, 0}, next_max_{0, 0};
};

}  // namespace wlui
