// app.h: the WaferLab app — menu bar, mesh canvas, windows — independent of the platform.
// main.cpp owns SDL/GL and calls frame() once per frame; the JS hook calls call().
#pragma once
#include "engine/fabric/mesh.h"
#include "ui/code_editor.h"
#include "ui/help.h"
#include "ui/compare_window.h"
#include "ui/kernel_doc.h"
#include "ui/mesh_canvas.h"
#include "ui/pe_inspector.h"
#include "ui/run_controller.h"
#include "ui/stats_window.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace wlui {

struct AppOptions {
    int mesh_w = 8, mesh_h = 8;
    std::string asset_dir = ".";         // holds examples/ (and later lessons/, models/)
    std::string example;                 // opened at start when set
    uint64_t run_cycles = 0;             // then run this many cycles (UINT64_MAX: to the end)
};

class App {
public:
    explicit App(const AppOptions& opt);

    void frame();                        // builds one ImGui frame (between NewFrame and Render)

    // The scripting surface shared by window.waferlab and the tests: method name + JSON args.
    // Unknown methods and bad arguments return {"error": "..."}; nothing throws out.
    nlohmann::json call(const std::string& method, const nlohmann::json& args);
    nlohmann::json state() const;
    std::string summary() const;         // one line: frame, cycle, run state, error

    // F1..F12 from the platform (Dear ImGui 1.86 has no portable names for them).
    void function_key(int n, bool shift);

    bool quit_requested() const { return quit_; }
    uint64_t frames() const { return frame_; }

private:
    void menu_bar();
    void status_bar();
    void about_window();
    void shortcuts();
    void editor_window();
    void discard_popup();
    void section_tabs();
    void run_toolbar();
    void log_window();
    void compile_and_load();
    void start_tour();                           // loads hello when nothing is loaded                     // compile the editor's kernel; on success it is what runs
    void reveal_source(int line, int col);       // editor to line:col (1-based)
    nlohmann::json error_json() const;
    std::vector<std::string> example_names() const;
    std::string models_dir() const { return asset_dir_ + "/models"; }
    void load_example(const std::string& name);   // throws on a missing file
    wl::Mesh mesh_;
    MeshCanvas canvas_;
    KernelDoc doc_;                      // the kernel being edited
    CodeEditor editor_;
    int tab_synced_ = -2, tab_quiet_ = 0;   // section_tabs(): the part the tabs last followed
    std::string asset_dir_;
    std::string example_;                // the loaded example's name; "" after a new file
    std::string pending_example_;        // waiting for "discard unsaved edits?"
    bool show_editor_ = false;
    RunController runner_;               // the loaded kernel's run, in per-frame slices
    static constexpr double kSliceBudgetMs = 12.0;   // emulation time per frame
    double tick_ms_ = 0;                 // what the last frame's emulation took
    uint64_t step_n_ = 100;              // "Step N" size
    bool show_log_ = true;
    Help help_;
    Help::Places places_;                // where the tour points, refreshed each frame
    CompareWindow compare_;
    bool show_compare_ = false;
    PeInspector inspector_;
    StatsWindow stats_;
    bool show_inspector_ = false, show_stats_ = false;
    std::optional<PeCoord> inspected_;   // the selection the inspector last saw: a new one opens it
    // The loaded kernel's text while the editor still holds it (source lines for the inspector), else "".
    std::string compiled_source() const { return doc_.compiled() && doc_.result().ok() ? doc_.buffer().text() : ""; }
    uint64_t frame_ = 0;
    bool show_about_ = false;
    bool show_demo_ = false;
    bool quit_ = false;
};

}  // namespace wlui
