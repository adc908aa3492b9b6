// model_window.h: the "Model" window — a GPT compiled onto the mesh and run there.
// Pick a config and a mesh size, Compile, read the compiler's six stages, see the
// placement on the mesh canvas (hover a PE: its op; click: its SRAM map), open an
// op's kernel in the editor, run a forward pass (checked against the reference)
// or generate text, one token per frame, and animate any op again in cycle mode
// (op_animation.h). A forward runs under the schedule picked beside it (sequential, or
// pipelined: engine/model/pipeline.h); its Timeline draws its launches, op by op over the cycles,
// and lights the ops working at its cursor on the canvas, each tagged with its chunk. The state is a ModelSession (model_session.h); this file
// draws it and answers the JS hook's model_* methods. Train trains the GPT on the
// mesh a few launches per frame (a TrainSession, train_session.h; train_* methods).
// Density sweeps the compiled model's weights to densities 1, 0.5, 0.25 and 0.1 and shows
// cycles and wavelets for one matmul and a training step beside dense and the ideal
// (engine/model/density_sweep.h; model_density); Resident vs streaming runs one forward both
// ways on the compiled mesh (engine/model/execution_compare.h; model_execution). Both run a
// unit at a time after the drawing, in the frame's measured budget, with a progress bar and a cancel.
//
//   ModelWindow w("models");
//   w.open_in_editor = [&](auto& file, auto& text) { ... };
//   w.frame(canvas);                      // every frame: generation advances, the window draws when open
//   if (w.on_canvas()) canvas.draw(w.mesh(), w.machine(), w.canvas_overlay());
//   after drawing: w.work_tick(budget_ms);  // training's launches, the sweep's units, while the GPU draws
#pragma once
#include "ui/compare_window.h"
#ifndef __EMSCRIPTEN__
#include "ui/file_dialog.h"
#endif
#include "ui/mesh_canvas.h"
#include "ui/model_session.h"
#include "ui/op_animation.h"
#include "ui/pipeline_replay.h"
#include "ui/placement_overlay.h"
#include "ui/timeline_view.h"
#include "ui/train_guide.h"
#include "ui/train_session.h"

#include "engine/model/density_sweep.h"
#include "engine/model/execution_compare.h"

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

class ModelWindow {
public:
    explicit ModelWindow(const std::string& models_dir = "models");

    bool open = false;                   // View > Model
    bool draws_window = true;            // false in an embed: the model takes the canvas, without the window over it

    // Every frame, open or not: a generation makes its next tokens (at least one, more while the
    // frame's budget lasts), then the window draws when open. `canvas` is the app's mesh canvas:
    // the window reads which PE is hovered and selected there.
    void frame(MeshCanvas& canvas);
    // After the frame is drawn (App::after_draw): a training run's next launches, at least one,
    // then the density sweep's and the comparison's units, until budget_ms pass.
    void work_tick(double budget_ms);

    // While true, the app's canvas shows the model's mesh and machine (an animated op's copy while
    // one plays), coloured by canvas_overlay() (nullptr: by the canvas's own mode, as during an animation).
    // While a training run is shown (from its start until the next compile), the canvas shows its mesh.
    bool on_canvas() const { return open && show_on_canvas_ && (session_.compiled() || training_shown()); }
    // Something moves without input: training, a generation making tokens, or an op animating.
    bool busy() const {
        return train_.running() || session_.generation().running() || (anim_.active() && !anim_.done()) || sweeping() ||
               comparing() || timeline_.playing() || (replay_.active() && !replay_.done());
    }
    wl::Mesh mesh() const { return machine() ? machine()->mesh() : wl::Mesh{}; }
    const wl::Machine* machine() const {
        if (training_shown()) return &train_.mesh()->mesh().host().machine();
        if (replay_.active()) return replay_.machine();
        return anim_.active() ? anim_.machine() : session_.machine();
    }
    // Called as the canvas is drawn: a training run's overlay is brought up to the op that runs
    // next, the one the panel names in the same frame (whatever ran since: units, hook calls).
    const PeOverlay* canvas_overlay();

    // The GPT on screen, for Wafer vs GPU: the training run (from its start), else the compiled model.
    std::optional<ShownRun> shown_run() const;

    // The start screen's "Train a GPT on the wafer": opens the window and starts a run with the Train
    // section's settings (false, with the reason in train_error(), if it cannot start).
    bool train_now() {
        open = true;
        return start_training();
    }

    // A text file to train on (a drop or the picker): false, with the reason in train_error(), when
    // it is refused (empty, binary, too big); the run goes on either way. Opens the window.
    bool train_text(const std::string& name, const std::string& text);
    const std::string& train_error() const { return train_.error(); }
    uint64_t train_run_id() const { return train_.run_id(); }   // moves on when a training start succeeds
    // Set by the app: pick a text file (the page's picker on the web), and hand over a file's bytes
    // as a download (the web's Save checkpoint).
    std::function<void()> pick_text_file;
    std::function<void(const std::string& name, const std::string& bytes)> download;
    // Set by the app on the web: the page's picker for llm.c's weights (Open weights...), which it
    // reads into this window (model_weights_* methods, web/waferlab-api.js's openWeightsFile).
    std::function<void()> pick_weights_file;

    // The JS hook: the model_* rows of the app's method table (ui/app_methods.cpp, docs/js-api.md).
    // A handler throws std::invalid_argument (or runtime_error) with the reason on bad arguments or a failure.
    struct Method {
        const char* name;
        const char* params;              // the table's grammar (app_methods.cpp)
        bool waits_generation;           // JS returns a promise of model_generation() when the text is made
        nlohmann::json (*run)(ModelWindow&, const nlohmann::json&);
        bool local = false;              // the page only, never from a postMessage (files, downloads)
        bool internal = false;           // the page's own plumbing: no window.waferlab.<name> (openWeightsFile's steps)
    };
    static const std::vector<Method>& methods();
    nlohmann::json state() const;        // state().model

    // Set by the app: put a kernel file's text in the editor.
    std::function<void(const std::string& file, const std::string& text)> open_in_editor;

    const ModelSession& session() const { return session_; }

private:
    bool compile();                      // the pickers' config and mesh
    void compiled();                     // after a compile that worked: the stages, the overlay, the canvas
    std::string compile_set() const;     // set_ with the weights combo's wafer.execution
    void take_settings(const nlohmann::json& a, const std::string& set_default);   // config, mesh, set, execution, show
    // llm.c's weights read by the page: checked, then a buffer of the file's size that the page
    // fills a chunk at a time, then loaded and compiled (ModelSession::check_llmc, compile_llmc).
    struct WeightsRead {
        uint64_t id = 0;
        std::string name;
        std::string bytes;               // the whole file's size from the start
        uint64_t read = 0;               // bytes [0, read) are written
    };
    nlohmann::json open_weights(const std::string& name, std::string_view head, uint64_t size);   // {id, ptr, bytes, need}
    WeightsRead& weights_reading(uint64_t id);   // the read `id`, or std::invalid_argument when it is not the one going on
    nlohmann::json load_weights(uint64_t id);    // the plan, as model_compile's
    void draw_weights();                 // the web's Open weights... and what it is doing
    bool forward(const std::string& prompt, int batch = 1);
    bool generate(const std::string& prompt, int tokens, const wl::gpt::SampleOptions& opt);
    void open_kernel(const wl::model::PlannedOp& op);
    // A run of the last forward (its OpRun name: "l0.qkv"; streaming: "l2.qkv", "l2.weights") again in
    // cycle mode, on the canvas. Throws when there is no forward, or the run cannot be replayed:
    // streaming leaves the last layer on the mesh, so only its runs and the ops outside the layer.
    void animate(const std::string& run);
    std::string replay_refusal(const std::string& run) const;   // why animate(run) would throw; "" when it would not
    void rebuild_overlay();
    void need_compiled() const;          // throws "no model is compiled" unless one is
    void draw();
    void draw_settings();
    void draw_pe(const std::optional<PeCoord>& pe);
    void draw_stages();
    void draw_forward();
    void draw_animation();
    void draw_timeline();                // the last forward's launches (timeline_view.h), the canvas lit at its cursor
    void draw_replay();                  // its Replay in cycle mode (pipeline_replay.h)
    nlohmann::json timeline_json() const;   // state().model.timeline and model_timeline()
    void draw_generation();
    void draw_train();
    void draw_loss_plot();
    void draw_step_time();               // the last step's time: compute, streaming, SwarmX
    void draw_train_guide();             // what the lit row does, why it runs alone, the loss, the terms
    void guide_term(const char* term);   // a term of the guide, its glossary entry on hover
    void draw_wafer_panels();            // a panel per wafer: its loss share, cycles, busy heatmap
    bool training_shown() const { return train_shown_ && train_.has_run(); }
    static std::string train_overlay_key(const wl::model::TrainWork* w);   // what the training canvas lights, in words
    PeOverlay train_overlay_for(const wl::model::TrainWork* w) const;      // and the overlay that lights it
    bool start_training();               // the Train section's settings
    void save_checkpoint();              // native: to train_path_; web: a download
    void load_text_file();               // native: text_path_'s text to train on (train_text)
    void mark(const char* name);         // the last item's rectangle, for state().model.layout
    // Density and Resident vs streaming: started on the compiled model, a unit at a time in frame().
    void start_sweep();
    void start_compare();
    bool sweeping() const { return sweep_ && !sweep_->done() && sweep_->error().empty() && !sweep_cancelled_; }
    bool comparing() const { return compare_ && !compare_->done() && !compare_cancelled_; }
    void tick_jobs(double budget_ms);    // the sweep's and the comparison's next units, until budget_ms pass
    nlohmann::json sweep_json() const;   // model_density()
    nlohmann::json compare_json() const; // model_execution()
    void draw_density();
    void draw_density_plots();
    void draw_compare();

    ModelSession session_;
    std::vector<std::string> configs_;
    std::string config_ = "gpt-nano";
    std::string set_;                    // model_compile's {set}: key overrides, as --set
    bool no_cache_ = false;              // model_compile's {no_cache}: the next compile skips the cache
    bool streaming_ = false;             // the weights combo, model_compile's {execution}: wafer.execution
    int mesh_w_ = 32, mesh_h_ = 32;
    char checkpoint_[512] = {};          // a checkpoint or llm.c's weights: natively a path; on the web the name of a file opened
    std::optional<WeightsRead> weights_read_;
    std::string weights_error_;          // the page's failure to read the file (weights_read_'s own are the session's); natively the dialog's
#ifndef __EMSCRIPTEN__
    FileDialog weights_dialog_;          // natively: Open... beside the path (file_dialog.h)
    FileDialog text_dialog_;             // ... and beside Train's text file
#endif
    uint64_t weights_ids_ = 0;
    char prompt_[512] = "Once upon a time there was a little";
    int gen_tokens_ = 100, top_k_ = 0, seed_ = 1337;
    int batch_ = 1;                      // Forward's sequences (the prompt that many times)
    float temperature_ = 0.8f;
    bool show_on_canvas_ = true;
    std::optional<PlacementColour> colour_ = PlacementColour::Op;   // nullopt: the canvas's own mode
    PeOverlay overlay_;
    std::vector<PlanStage> stages_;
    std::optional<PeCoord> hovered_, selected_;   // on the model's mesh, from the canvas
    OpAnimation anim_;
    PipelineReplay replay_;              // the last pipelined forward again in cycle mode, on the canvas
    std::string replay_error_;
    void start_replay();                 // throws with the reason when there is nothing to replay
    nlohmann::json replay_json() const;  // state().model.replay and model_replay()
    TimelineView timeline_;              // the last forward's, from forward()
    PeOverlay timeline_overlay_;         // the replay's launches now, or the timeline's at its cursor
    std::string timeline_overlay_key_;   // which ("replay 1200", "cursor 5000"): rebuilt only when it changes
    float timeline_rect_[4] = {};        // the chart on screen, last frame
    std::string anim_error_;
    std::map<std::string, std::pair<ImVec2, ImVec2>> drawn_;
    bool was_on_canvas_ = false, refit_ = false;   // the canvas's mesh changes: fit it, drop its selection
    std::unique_ptr<wl::model::DensitySweep> sweep_;
    bool sweep_cancelled_ = false, sweep_open_ = false;   // sweep_open_: the hook started one: open its section
    std::string sweep_model_;            // the model and mesh it was started on, in words
    std::unique_ptr<wl::model::ExecutionCompare> compare_;
    bool compare_cancelled_ = false, compare_open_ = false;
    std::string compare_model_;
    TrainSession train_;
    TrainSettings train_set_;
    bool train_shown_ = false;
    uint64_t train_run_seen_ = 0;      // train_.run_id() the canvas shows
    PeOverlay train_overlay_;
    std::string train_overlay_key_;      // the op and phase it was built for
    std::string shown_canvas_, shown_panel_;   // the training op the canvas lit and the panel named, last frame (state())
    std::optional<double> shown_bar_;          // and its progress bar's fraction; none drawn between jobs
    std::optional<TrainGuide> shown_guide_;    // the guide drawn last frame (state().model.train.guide)
    std::string guide_hovered_;                // the guide's term under the mouse last frame
    std::string train_notice_;           // the Train section's last message (saved, refused ...)
    char train_path_[512] = "gpt-nano-mesh.ckpt";   // native: where Save checkpoint writes
    char text_path_[512] = {};           // native: a text file to train on
    static constexpr double kStepBudgetMs = 12.0;   // generation's share of a frame (training's: App::after_draw)
};

}  // namespace wlui
