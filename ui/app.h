// app.h: the WaferLab app — menu bar, mesh canvas, windows — independent of the platform.
// main.cpp owns SDL/GL and calls frame() once per frame; the JS hook calls call().
#pragma once
#include "engine/fabric/machine.h"
#include "ui/app_files.h"
#include "ui/code_editor.h"
#include "ui/flow_row.h"
#include "ui/frame_budget.h"
#include "ui/help.h"
#include "ui/compare_window.h"
#include "ui/kernel_doc.h"
#include "ui/layout.h"
#include "ui/lesson_model.h"
#include "ui/lessons_window.h"
#include "ui/mesh_canvas.h"
#include "ui/model_window.h"
#include "ui/pe_inspector.h"
#include "ui/run_controller.h"
#include "ui/run_gate.h"
#include "ui/share_state.h"
#include "ui/start_screen.h"
#include "ui/stats_window.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wlui {

struct Image;

struct AppOptions {
    int mesh_w = wl::MachineConfig{}.w, mesh_h = wl::MachineConfig{}.h;   // the empty mesh shown before a kernel loads
    std::string asset_dir = ".";         // holds examples/ and models/
    std::string example;                 // opened at start when set
    int lesson = 0;                      // the lesson opened at start (--lesson, ?lesson=), 0: none
    uint64_t run_cycles = 0;             // then run this many cycles (UINT64_MAX: to the end)
    double play_speed = 0;               // or play it at this many cycles per second
    bool developer = false;              // developer tools in the menus (--dev, ?dev=1): the Dear ImGui demo
    bool embed = false;                  // a minimal frame for embedding (--embed, ?embed=1): canvas and a compact run bar
    bool embed_editor = false;           // ...with the editor beside it (--editor, &editor=1)
    bool start_screen = true;            // a first visit (no saved workspace, nothing asked for) opens on the
                                         // start screen; --no-start, ?start=0: the empty mesh instead
};

class App {
public:
    explicit App(const AppOptions& opt);

    // Builds one ImGui frame (between NewFrame and Render). drawn = false: a frame that only takes
    // input, never rendered (main.cpp); frames() counts the drawn ones.
    void frame(bool drawn = true);
    // After the frame's drawing is sent to the GPU: the long work (a kernel's run, training on
    // the mesh) runs here, overlapping the drawing, in a budget measured per frame (frame_budget.h).
    void after_draw();
    // The main thread's time for the last whole frame (building, drawing, after_draw, the swap).
    void frame_busy(double ms) { busy_ms_ = ms; }
    // Input events wait for later frames (one key press a frame: main.cpp says why): scripts and
    // tests read state().input_pending to know that what they typed has all been seen.
    void input_pending(bool pending) { input_pending_ = pending; }

    // The scripting surface shared by window.waferlab, the postMessage API and the tests: method
    // name + JSON args, dispatched through methods(). Unknown methods and bad arguments return
    // {"error": "..."}; nothing throws out.
    nlohmann::json call(const std::string& method, const nlohmann::json& args);

    // One row per scripting method: the only list of them (app_methods.cpp). The page builds
    // window.waferlab and the message API from method_table() (web/waferlab-api.js).
    struct Method {
        enum Flags : unsigned {
            kLocal = 1,           // the page only: never from a postMessage (storage, downloads)
            kWaitRun = 2,         // JS returns a promise of state() when the run stops
            kWaitGeneration = 4,  // JS returns a promise of model_generation() when the text is made
            kInternal = 8,        // the page's own plumbing: no window.waferlab.<name>
            kReads = 16,          // only reads: an idle embed stays asleep (state() polled by a page or a test)
        };
        const char* name;
        const char* params;       // how JS arguments become the JSON args (grammar in app_methods.cpp)
        unsigned flags;
        std::function<nlohmann::json(App&, const nlohmann::json&)> run;   // throws std::exception on bad arguments
    };
    static const std::vector<Method>& methods();
    static nlohmann::json method_table();   // [{name, params, local, wait, internal}] for the page
    nlohmann::json state() const;
    std::string summary() const;         // one line: frame, cycle, run state, error

    // F1..F12 from the platform (Dear ImGui 1.86 has no portable names for them).
    void function_key(int n, bool shift);

    bool quit_requested() const { return quit_; }
    // Whether the platform should build and draw a frame now (`input`: events came this frame).
    // The full app always does. An embed (a page may hold several) sleeps once nothing has
    // happened for kWakeFrames frames: no input, no call that changes anything, nothing running
    // or animating. Its canvas keeps the last picture; input or a call wakes it.
    bool wants_frame(bool input);
    static constexpr uint64_t kWakeFrames = 60;   // about a second at 60 Hz: hover and layout settle
    uint64_t frames() const { return frame_; }

    // Files and persistence (app_files.cpp), for the platform layer.
    float font_scale() const { return files_.font_scale; }   // View > Font size; main.cpp rebuilds the font
    void drop_file(const std::string& path);                  // SDL_DROPFILE
    void save_shortcut();                                     // Ctrl+S
    void flush_state();                                       // write what autosave has not yet (at quit)
    // An exception that escaped a frame (main.cpp caught it, and closed ImGui's half-built frame):
    // the workspace is written first, the user is told in a notice, and the app goes on.
    void recover(const char* during, const std::string& what);
    bool png_capture_frame() const;                           // read this frame back after rendering it
    void deliver_png(const Image& frame);                     // ...and hand it here

private:
    void menu_bar();
    void status_bar();
    void about_window();
    void shortcuts();
    void editor_window();
    void discard_popup();
    void section_tabs();
    void hover_help(TextPos at);                 // the help tooltip for the word at `at`, if it is one the engine explains
    void run_toolbar();
    FlowRow begin_run_bar();                     // the toolbar's and the embed bar's start: padding, place, a FlowRow
    void end_run_bar(FlowRow& row, const std::string& status, bool blocked);   // ...and end: the run status
    // [embed] app_embed.cpp: the minimal frame, and the events an embedder hears
    void embed_bar();                            // run, pause, step, reset, cycle
    void post_events();                          // cycle, finished, fault: to the page (js_bridge_event)
    bool embed_ = false, embed_editor_ = false;
    uint64_t event_cycle_ = ~0ull;
    bool event_finished_ = false, event_fault_ = false;
    void log_window();
    nlohmann::json run_method(const nlohmann::json& args);   // run(cycles) and step(cycles)
    void compile_and_load();                     // compile the editor's kernel; on success it is what runs
    void set_optimise(bool on);                  // the optimising code generator; a loaded kernel is rebuilt, at cycle 0
    bool ready_to_run();                         // before a forward control: compile an edited kernel; false if it has errors
    std::string not_compiled() const;            // "not compiled: 1 error at 44:13" while the editor's text cannot run, else ""
    std::string run_status() const;              // what the toolbar says: "running", "ready: press F5 ...", a refusal
    void start_tour();                           // loads hello when nothing is loaded
    // [start] the start screen: shown on a first visit and from Help; it goes when something else opens.
    void open_start_screen();
    void start_frame();
    std::string start_context() const;           // what is open, cheaply: a change closes the start screen
    StartScreen start_;
    std::string start_seen_;                     // start_context() when it opened
    bool fresh_start_ = false;                   // start() found no saved workspace and opened nothing
    void reveal_source(int line, int col);       // editor to line:col (1-based)
    nlohmann::json error_json() const;
    std::optional<EditorMarker> fault_marker() const;   // the run's fault at its line, while the editor shows the build that ran
    std::vector<std::string> example_names() const;   // beginner first (kExampleOrder), then the rest by name
    const std::string& example_summary(const std::string& name) const;   // its opening comment's first sentence (cached)
    std::string models_dir() const { return asset_dir_ + "/models"; }
    void load_example(const std::string& name);   // throws on a missing file

    // [files] app_files.cpp
    void start(const std::string& requested_example);   // restore the saved workspace and layout
    void restore(const Workspace& ws);
    Workspace workspace() const;
    std::string workspace_sig() const;
    bool write_workspace();
    void write_layout();
    void autosave_tick();
    void clear_state();
    void open_text(const std::string& name, const std::string& text, const std::string& path, bool ask);
    void open_path(const std::string& path);
    void save_file(const std::string& path);
    void notice(const std::string& text, Notices::About about = Notices::About::App);
    void ask_path(FileState::Ask what, const std::string& initial);
    void file_menu();
    void font_menu();
    void files_frame();
    void files_state(nlohmann::json& j) const;
    FileState files_;
    // [lessons] app_lessons.cpp: the Lessons panel, and how a lesson's kernels reach the editor.
    enum class LessonEdit { Ask, Keep, Throw, Discard };   // when that would replace unsaved work
    void lessons_menu();
    void lessons_frame();
    void lessons_start(int number);
    void open_lesson(int number, LessonEdit how);
    bool lesson_replaces_work() const;          // unsaved edits that no lesson keeps
    void keep_lesson_work();                    // the editor's lesson file (if it holds one): its text kept
    enum class Pending { None, Starter, Solution, File };   // what "Replace unsaved edits?" would load
    static const char* pending_name(Pending p);
    void lesson_file_to_editor();
    void lesson_to_editor(const std::string& text, Pending what, LessonEdit how);
    const wl::lessons::Verdict& check_lesson();
    void begin_check_lesson();
    void lessons_state(nlohmann::json& j) const;
    static LessonEdit lesson_edit(const nlohmann::json& args);   // discard=true: Discard, else Throw
    const wl::lessons::Lesson& open_lesson_or_throw() const;
    LessonModel lessons_;
    // [share] app_share.cpp: share links
    SharedState share_state() const;
    void open_share(const SharedState& s);      // throws when the work it would replace cannot be put aside
    void restore_before_share();                // the work a link replaced, back in the editor
    void check_before_share();                  // at start: is there work put aside by a link?
    LessonsWindow lessons_window_;
    bool show_lessons_ = false;
    bool check_on_canvas_ = false;                // the canvas shows a training check's mesh
    bool log_beside_lessons_ = false;             // the log was last placed for the Lessons panel
    std::string loaded_file_;                     // the editor file the loaded kernel was built from
    std::string hovered_diagnostic_;              // the message of the diagnostic under the mouse, this frame
    static constexpr uint64_t kStillRunningCycles = 200000;   // a run past this says it has not finished (log, state())
    const std::string& still_running();           // "" or what the busy PEs are doing, refreshed as the run goes
    std::string still_running_;
    uint64_t still_running_at_ = 0;
    uint64_t lesson_checked_ = ~0ull;             // the editor's text version the verdict is for
    Pending lesson_pending_ = Pending::None;      // waiting for "Replace unsaved edits?"
    // The mesh on screen is the loaded machine's; with none loaded, an empty mesh of this size (set_mesh).
    wl::Mesh mesh() const;
    wl::Mesh empty_mesh_;
    MeshCanvas canvas_;
    KernelDoc doc_;                      // the kernel being edited
    CodeEditor editor_;
    int tab_synced_ = -2, tab_quiet_ = 0;   // section_tabs(): the part the tabs last followed
    std::string asset_dir_;
    std::string example_;                // the loaded example's name; "" after a new file
    std::string header_;                 // the kernel's opening comment as prose (kernel_header.h)
    mutable std::map<std::string, std::string> example_summaries_;
    uint64_t header_version_ = ~0ull;
    std::pair<std::string, std::string> hovered_word_;   // the word whose help showed this frame, and the help
    std::string pending_example_;        // waiting for "discard unsaved edits?"
    bool show_editor_ = false;
    RunController runner_;               // the loaded kernel's run, in per-frame slices
    RunGate gate_;                       // whether that run is the editor's text
    double tick_ms_ = 0;                 // what the last frame's emulation took
    double busy_ms_ = 0;                 // the main thread's time for the last frame (frame_busy)
    bool input_pending_ = false;         // events left for later frames (input_pending)
    FrameBudget work_budget_;            // after_draw's share of a frame
    std::chrono::steady_clock::time_point last_work_;   // when after_draw last began
    uint64_t step_n_ = 100;              // "Step N" size
    bool show_log_ = true;
    Help help_;
    Help::Places places_;                // where the parts are on screen (the tour, Export PNG), each frame
    CompareWindow compare_;
    bool show_compare_ = false;
    LoadedKernel loaded_kernel() const;          // what the compare window's kernel view compares
    PeInspector inspector_;
    StatsWindow stats_;
    bool show_inspector_ = false, show_stats_ = false;
    std::optional<PeCoord> inspected_;   // the selection the inspector last saw: a new one opens it
    // The loaded kernel's text while the editor still holds it (source lines for the inspector), else "".
    std::string compiled_source() const { return doc_.compiled() && doc_.result().ok() ? doc_.buffer().text() : ""; }
    // Where things were drawn this frame, by name, for state().layout (tests check geometry with it).
    void mark_item(const char* name);             // the last ImGui item
    void mark_window(const char* name);           // the current window
    std::map<std::string, std::pair<ImVec2, ImVec2>> drawn_;
    // [layout] the tiled (or stacked) default places, and the windows that covered the canvas last frame.
    void place_window(const Box& b);              // before Begin: the default place, or forced after Reset layout
    Layout layout_;
    std::vector<Box> covers_;
    ImVec2 viewport_size_{0, 0};
    bool relayout_ = false;                        // Reset layout (or a new screen size): windows go to their places
    bool refit_ = false;                           // fit the mesh to the free area at the end of this frame
    uint64_t frame_ = 0;
    std::vector<std::string> recovered_;   // what recover() caught, oldest first (state().recovered)
    int raise_frames_ = 0;                 // the next frames that throw, or trap (raise_in_frame, for the tests of recover())
    bool raise_trap_ = false;
    uint64_t quiet_frames_ = 0;          // frames since the last input, call or motion (wants_frame)
    bool show_about_ = false;
    bool show_demo_ = false;
    bool developer_ = false;
    bool quit_ = false;
    ModelWindow model_;                  // View > Model: a GPT compiled onto the mesh; its placement takes the canvas while open
};

}  // namespace wlui
