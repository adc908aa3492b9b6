// workspace.h: what the app remembers between sessions — the kernel in the editor
// and a few settings — as versioned JSON, plus the rules for using it at start.
// Pure C++ (no ImGui, no platform): storage.h says where it goes, app_files.cpp when.
//
//   {"format": "waferlab-workspace", "version": 1, "file": "gemv.wk", "text": "...",
//    "example": "gemv", "modified": true, "path": "", "font_scale": 1.25, "lessons_done": [1, 2], "lesson": 3,
//    "run_mode": "fast", "optimise": false, "lesson_work": {"13": "..."}}
//
// The window layout is Dear ImGui's own imgui.ini text, stored beside it, not in it,
// so a damaged layout never costs the user their kernel (and the reverse).
#pragma once
#include "engine/fabric/machine.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

struct Workspace {
    static constexpr int kVersion = 1;           // bump when a field changes meaning
    static constexpr float kMinFontScale = 0.75f, kMaxFontScale = 2.0f;

    std::string file = "untitled.wk";   // the editor's file name
    std::string text;                   // the editor's text
    std::string example;                // the example it was opened from ("" for a file or a new one)
    bool modified = false;              // the text differs from that example or the last saved file
    std::string path;                   // native: the file on disk that Save writes; "" on the web
    float font_scale = 1.0f;            // View > Font size
    wl::RunMode run_mode = wl::RunMode::Cycle;   // the toolbar's Cycle / Fast switch
    bool optimise = false;              // Run > Optimised code
    std::vector<int> lessons_done;      // lessons whose check has passed
    int lesson = 0;                     // the lesson open in the Lessons panel; 0: the panel is closed
    std::map<int, std::string> lesson_work;   // each lesson's kernel as the student left it (where it is not the starter)

    bool operator==(const Workspace&) const = default;
};

std::string workspace_to_json(const Workspace& ws);

// Parses saved state. On anything unusable (not JSON, another format, an older or newer
// version, wrong field types) it returns nullopt and says why in `problem`, in words
// meant for the user. Out-of-range settings are clamped, not refused.
std::optional<Workspace> workspace_from_json(std::string_view json, std::string* problem);

// Which kernel to open at start, given the saved workspace and a requested example
// (the URL's ?example= or --example). A request never silently replaces unsaved edits.
struct StartPlan {
    enum class Open { Nothing, Saved, Example } open = Open::Nothing;
    std::string notice;                 // for the user, when the request was not honoured
};
StartPlan plan_start(const std::optional<Workspace>& saved, const std::string& requested_example);

// Debounced autosave: write once the state has been still for `quiet` seconds, and at
// the latest `max_wait` seconds after the first unsaved change (so steady typing saves too).
class Autosave {
public:
    explicit Autosave(double quiet = 0.5, double max_wait = 3.0) : quiet_(quiet), max_wait_(max_wait) {}
    void changed(double now);           // the state differs from what was last written
    bool due(double now) const;         // time to write
    void written() { dirty_ = false; }
    bool dirty() const { return dirty_; }

private:
    double quiet_, max_wait_;
    bool dirty_ = false;
    double first_ = 0, last_ = 0;
};

}  // namespace wlui
