// train_session.h: the Model window's Train section, without ImGui — a GPT trained on
// the emulated mesh (engine/model/mesh_trainer.h), a few launches per frame so the page
// never freezes. The host keeps what the CLI's `train --on-mesh` keeps: the data loader,
// the learning-rate schedule and the data loader; the validation loss and the samples run on
// the mesh too (MeshTrainer::begin_eval, begin_sample), an op launch a unit like the step's.
// The window (model_window.cpp) draws this; the JS hook and tests/ui drive it directly.
//
//   TrainSession t("models");
//   t.set_text("notes.txt", text);              // optional: false + error() on binary/empty/huge, nothing lost
//   TrainSettings s;  s.steps = 200;
//   if (!t.start(s)) show(t.error());            // a bad setting or config: the current run, if any, carries on
//   every frame: t.tick(0.012);                  // the start's units, then slices of the step, until ~12 ms pass
//
// A start is built aside in units too (starting(): the corpus, the model, then plan_model's
// steps and the mesh's loading, wl::model::PlanBuilder and MeshTrainer::load_step), so pressing
// Train never freezes the page; activity() says how far it is ("compiling kernels: 3 of 17
// (matmul.wk for l0.qkv), program 5 of 16"). Only once all of it works does it replace the
// current run, which waits meanwhile; a start that fails (error()) or is cancelled leaves that
// run as it was. The same bits however the start is sliced.
//   t.pause(); t.resume();  t.save("run.ckpt");  // the reference's checkpoint format
//
// Weight streaming (settings' execution, docs/weight-streaming.md) and data parallelism over wafers
// (settings' wafers, engine/model/swarmx.h): a run is always a SwarmX of N wafers (one by default,
// which gives the plain MeshTrainer's bits), each loaded in units at the start, its step sliced
// (SwarmX::run_slice); the validation loss and the samples run on wafer 0, as the CLI's.
#pragma once
#include "engine/gpt/sampler.h"
#include "engine/gpt/trainer.h"
#include "engine/model/mesh_trainer.h"
#include "engine/model/swarmx.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wlui {

inline constexpr size_t kMaxTrainTextBytes = 8u << 20;   // a text corpus bigger than this is refused

struct TrainSettings {
    std::string config = "gpt-nano";    // a name in models/ or a path to a .yaml
    int mesh_w = 32, mesh_h = 32;
    int64_t steps = 200;                // optimiser steps in this run
    int eval_every = 25;                // validation loss every N steps (and at step 0)
    int sample_every = 25;              // a sample every N steps
    int sample_tokens = 64;
    float temperature = 0.8f;
    std::string set;                    // key overrides, as the CLI's --set ("optimizer.learning_rate=1e-3,...")
    std::optional<wl::gpt::Execution> execution;   // over set's wafer.execution; none: the config's
    int wafers = 1;                     // data-parallel wafers, 1..SwarmX::kMaxWafers: a step's batch must split over them
};

struct CorpusInfo {                     // what a run trains on
    std::string name;                   // "stories" or the file's name
    size_t bytes = 0;
    int vocab = 0;                      // distinct characters (the char tokenizer)
};

struct EvalPoint {
    int64_t step;
    float loss;
};

struct TrainSample {
    int64_t step = -1;                  // the weights it was made from
    std::string prompt, text;
};

// Checks a text a user gave for training: "" when usable, else why not (empty, binary, too big).
std::string check_train_text(const std::string& name, const std::string& text);

class TrainSession {
public:
    // Pausing: asked to pause, the step in progress finishes in slices first (the step boundary).
    // Starting: a start is being built (the run before it, if any, waits); paused during a start,
    // resume() goes on with it.
    enum class Status { Idle, Running, Pausing, Paused, Done, Failed, Starting };
    static const char* status_name(Status s);   // "idle", "running", "pausing", "paused", "done", "failed", "starting"

    explicit TrainSession(std::string models_dir = "models");
    ~TrainSession();

    // Text for the next start (the current run is not touched). False, with error(), when
    // check_train_text refuses it; the text loaded before stays.
    bool set_text(const std::string& name, const std::string& text);
    void clear_text() { text_.reset(); }
    const std::optional<CorpusInfo>& text_info() const { return text_info_; }

    // Checks the settings and reads the config now: false with error() when either is bad (the
    // current run carries on). Then the trainer, its corpus, the mesh plan and the loaded mesh are
    // built aside, in tick()'s units (status Starting); only when all of it works does the new run
    // replace the current one. A start that fails there sets error() and the status goes back to
    // the current run's (Idle when there is none), which is as it was.
    bool start(const TrainSettings& s);
    bool starting() const { return starting_ != nullptr; }   // a start is being built (or paused in it)
    bool cancel_start();                // drops the start being built: the run before it carries on; false when none
    void pause();                       // at the next unit boundary (a launch); resume() goes on from there
    bool resume();
    // Runs units (a unit of the start, an op launch of a step, an evaluation batch or a sample)
    // while budget_s lasts, at least one; a unit whose kind, the last time it ran (unit_key's
    // cost), would end past the budget by more than FrameBudget's margin waits for the next tick.
    void tick(double budget_s);
    bool running() const { return status_ == Status::Running || status_ == Status::Pausing || status_ == Status::Starting; }
    size_t start_units() const { return start_units_; }   // units the last (or current) start has run
    double start_progress() const;      // 0..1 of the start's current stage (see activity()); 0 when none
    // 0..1 of the job on the mesh (a step, an evaluation batch, a sample); none between jobs (paused
    // at a step boundary, done, or before the next job is queued): nothing runs, so no bar to fill.
    std::optional<double> job_progress() const;
    uint64_t run_id() const { return run_id_; }           // changes when a start replaces the run
    // Whether a start touches the mesh's memory in slices before making the machine (on in
    // WebAssembly, where a page's first touch is slow; train_session.cpp says why).
    void set_warm_heap(bool on) { warm_heap_ = on; }
    Status status() const { return status_; }

    // A checkpoint in the reference's format (gpt::Trainer::save): the mesh's weights and moments.
    // Both need a step boundary (paused, done, or between steps): false with error() mid-step.
    // save() never writes over the run's config or a file that is not a checkpoint (output_guard.h).
    bool save(const std::string& path);
    bool checkpoint(std::string* bytes);   // the file's bytes (the browser's download)

    const std::string& error() const { return error_; }
    bool has_run() const { return tr_ != nullptr; }
    const wl::model::MeshTrainer* mesh() const { return mesh_; }   // wafer 0 (evaluation and samples run there)
    const wl::model::SwarmX* swarm() const { return swarm_.get(); }
    bool stepping() const { return swarm_ && swarm_->stepping(); }   // mid-step (the step boundary is not reached)
    bool streaming() const { return mesh_ && mesh_->mesh().plan().streaming; }
    // Each wafer's busy cycles per PE in the last step (Machine's CoreStats::busy, row-major, the
    // mesh's w*h), what its panel's heatmap shows; empty before the first step.
    const std::vector<std::vector<uint64_t>>& wafer_busy() const { return busy_; }
    // The same for the step in progress so far (mid-step), else the last step's; empty before a step.
    std::vector<uint64_t> wafer_busy_now(int wafer) const;
    const wl::gpt::Trainer* trainer() const { return tr_.get(); }
    const TrainSettings& settings() const { return set_; }
    const CorpusInfo& corpus() const { return corpus_; }
    int64_t step() const { return tr_ ? tr_->step : 0; }
    int64_t target_step() const { return target_; }
    const std::vector<float>& losses() const { return losses_; }         // per step, the batch's loss
    const std::vector<EvalPoint>& val_losses() const { return val_; }
    const TrainSample& sample() const { return sample_; }
    // What runs now: "forward l1.fch, sequence 3 of 8", "evaluating on the mesh: batch 3/10, ...",
    // "sampling on the mesh: token 5/64, forward l0.attn", and while starting "starting: compiling
    // kernels: 3 of 17 (matmul.wk for l0.qkv), program 5 of 16", "starting: loading the mesh: 40 of 70" ...
    std::string activity() const;
    double steps_per_s() const;         // steps / wall time while running (this run)
    double tokens_per_s() const;        // the same in tokens (B * T per step)
    double mesh_tokens_per_s() const;   // tokens over the emulator's own time in the steps
    const wl::model::SwarmXStep& last_step() const { return last_; }   // one wafer: the plain MeshTrainer's step
    // What the last step ran, each kind of unit once in the order first run: "forward", "l0 forward,
    // weights in" (a streamed layer's), with wafers "wafer 2 of 2: backward" and "SwarmX: ...".
    // Kept whole however the step was sliced (a once-a-frame look at activity() may miss a unit).
    const std::vector<std::string>& last_units() const { return last_units_; }
    nlohmann::json to_json() const;     // train_state() in the JS hook (docs/js-api.md)

private:
    struct Starting;                    // train_session.cpp: what a start builds, and how far it is
    bool start_unit();                  // one unit of the start; false when it finished (or failed)
    void commit(Starting& st);          // the built run replaces the current one
    bool begin_next_step();
    bool begin_next_job();
    void finish_step();
    void finish_job(wl::model::MeshJob job);
    bool unit();                        // one unit of whatever is due; false when nothing is
    std::string unit_key() const;       // the next unit's kind, for its cost (tick)
    void sync_model();                  // the mesh's weights and moments into tr_'s model and optimiser (a checkpoint)
    void fail(const std::string& why);
    const wl::model::TrainWork* next_work() const;   // the next launch of the job in progress (a step's: its wafer's)
    nlohmann::json last_json() const;                  // to_json()'s "last"

    std::string config_path(const std::string& config) const;   // a name in models/ or a path: its file
    std::string dir_;
    TrainSettings set_;
    std::optional<std::string> text_;
    std::string text_name_;
    std::optional<CorpusInfo> text_info_;
    std::unique_ptr<wl::gpt::Trainer> tr_;
    std::unique_ptr<wl::model::SwarmX> swarm_;
    wl::model::MeshTrainer* mesh_ = nullptr;   // swarm_'s wafer 0
    CorpusInfo corpus_;
    Status status_ = Status::Idle;
    std::unique_ptr<Starting> starting_;
    Status before_ = Status::Idle;      // the run's status when the start began: back to it if the start fails
    size_t start_units_ = 0;
    bool warm_heap_;
    uint64_t run_id_ = 0;
    std::string error_;
    int64_t first_step_ = 0, target_ = 0;
    std::vector<int> inputs_, targets_;
    std::vector<float> losses_;
    std::vector<EvalPoint> val_;
    wl::model::SwarmXStep last_;
    std::vector<std::string> last_units_, step_units_;   // last_units(); the step in progress's so far
    std::vector<std::vector<uint64_t>> busy_, busy0_;   // per wafer, per PE: the last step's; at its beginning (cumulative)
    double mesh_seconds_ = 0, run_seconds_ = 0;
    std::optional<std::chrono::steady_clock::time_point> last_tick_;
    std::map<std::string, double> unit_seconds_;   // the last run of each kind of unit (unit_key): tick's forecast
    // evaluation: eval_iters batches of the validation split, a job on the mesh each
    int eval_next_ = -1;                // the batch due or running; -1: none
    double eval_sum_ = 0;
    // sampling: one job on the mesh (a forward a token)
    bool sampling_ = false;             // due or running
    TrainSample sample_, sample_next_;
};

}  // namespace wlui
