// model_window.cpp: drawing the Model window, and its JS methods. Every number
// comes from the ModelSession (the engine's plan, MeshGPT's runs, the reference).
//
// Index of this file:
// [SECTION] actions        compile, forward, generate, open a kernel, the density sweep, resident vs streaming
// [SECTION] JS hook        model_* methods and state().model
// [SECTION] window         settings, the PE under the mouse, the stages, forward, generation
// [SECTION] density        the sweep's tables and plots
// [SECTION] execution      resident against streaming
#include "ui/model_window.h"

#include "engine/gpu/compare.h"
#include "ui/style.h"
#include "engine/fabric/mesh.h"
#include "engine/gpt/adamw.h"
#include "engine/gpt/trainer.h"
#include "engine/model/mesh_measure.h"
#include "engine/model/weight_stream.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

namespace {
#ifdef __EMSCRIPTEN__
constexpr bool kWebBuild = true;   // a checkpoint downloads; natively it is written to a path
#else
constexpr bool kWebBuild = false;
#endif
constexpr int kMeshPresets[][2] = {{8, 8}, {16, 16}, {32, 32}, {48, 48}, {64, 64}};

std::string mesh_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

// "32x32" -> 32, 32; anything else throws and changes nothing.
void parse_mesh(const std::string& s, int* w, int* h) {
    wl::Mesh m;
    if (!wl::parse_mesh(s, &m))
        throw std::invalid_argument("'mesh' must be WxH, each 1..256, e.g. \"32x32\"; got \"" + s + "\"");
    *w = m.w, *h = m.h;
}

using wl::gpu::format_seconds;
}  // namespace

ModelWindow::ModelWindow(const std::string& models_dir) : session_(models_dir) { configs_ = session_.configs(); }

// [SECTION] actions

bool ModelWindow::compile() {
    const bool no_cache = no_cache_;
    no_cache_ = false;   // one compile only
    const std::string set = set_ + (streaming_ ? ",wafer.execution=streaming" : "");
    if (!session_.compile(config_, mesh_w_, mesh_h_, checkpoint_, set, no_cache)) return false;   // the last good plan stays shown
    anim_.stop();
    compare_.reset();   // it reads the model the compile replaced
    sweep_.reset();
    if (train_shown_) train_.pause();   // the canvas goes back to the compiled model: the run waits
    train_shown_ = false;
    selected_.reset();
    hovered_.reset();
    stages_ = plan_stages(*session_.plan());
    rebuild_overlay();
    refit_ = true;
    return true;
}

void ModelWindow::rebuild_overlay() {
    overlay_ = colour_ && session_.plan() ? placement_overlay(*session_.plan(), *colour_) : PeOverlay{};
}

bool ModelWindow::forward(const std::string& prompt) {
    anim_.stop();
    session_.stop_generation();   // one run on the mesh at a time: the forward replaces the cache
    return session_.forward(prompt);
}

bool ModelWindow::generate(const std::string& prompt, int tokens, const wl::gpt::SampleOptions& opt) {
    anim_.stop();
    return session_.start_generation(prompt, tokens, opt);
}

// Streaming leaves the last layer's weights and inputs on the layer's PEs, so of the layer's runs
// only the last layer's can run again from what the mesh holds.
std::string ModelWindow::replay_refusal(const std::string& run) const {
    const wl::model::MeshPlan* p = session_.plan();
    if (!session_.last_forward() || !p) return "run a forward first: the animation replays an op of it";
    if (!p->streaming) return p->find(run) ? "" : "no op named '" + run + "' in the plan";
    const int last = p->cfg.n_layer - 1;
    const size_t dot = run.find('.');
    if (p->find(run) && p->find(run)->layer < 0) return "";
    if (run.size() < 2 || run[0] != 'l' || dot == std::string::npos) return "no op named '" + run + "' in the plan";
    const std::string layer = run.substr(1, dot - 1), rest = run.substr(dot + 1);
    if (rest != "weights" && !p->find("l0." + rest)) return "no op named '" + run + "' in the plan";
    if (layer != std::to_string(last))
        return "streaming: the mesh now holds layer " + std::to_string(last) + "'s weights and inputs, so only its runs (l" +
               std::to_string(last) + ".*) and the ops outside the layer can run again";
    return "";
}

void ModelWindow::animate(const std::string& run) {
    if (const std::string why = replay_refusal(run); !why.empty()) throw std::invalid_argument(why);
    session_.stop_generation();
    const double speed = anim_.speed();
    anim_error_.clear();
    const wl::model::MeshPlan& p = *session_.plan();
    const wl::model::MeshGPT& mesh = *session_.mesh();
    bool ok;
    if (p.streaming && run.size() > 8 && run.compare(run.size() - 8, 8, ".weights") == 0) {
        const int l = p.cfg.n_layer - 1;
        ok = anim_.start(*session_.machine(), run, [&](wl::Host& h) { return mesh.feed_layer(l, h); }, mesh.streamed_weights(),
                         &anim_error_);
    } else {
        const wl::model::PlannedOp* op = p.find(run);
        if (!p.streaming) {
            ok = anim_.start(*session_.machine(), *op, &anim_error_);
        } else {   // the plan's op (l0.* for the layer's) as the run it was: the last layer's, or one outside the layer
            if (!op) op = p.find("l0." + run.substr(run.find('.') + 1));
            const int l = op->layer < 0 ? 0 : p.cfg.n_layer - 1;
            ok = anim_.start(*session_.machine(), wl::model::layer_instance(*op, l, p.cfg.n_layer), &anim_error_);
        }
    }
    if (!ok) throw std::runtime_error(anim_error_);
    anim_.set_speed(speed);
}

void ModelWindow::open_kernel(const wl::model::PlannedOp& op) {
    const std::string text = session_.kernel_text(op.kernel);
    if (text.empty()) throw std::runtime_error("could not read kernels/" + op.kernel);
    if (open_in_editor) open_in_editor(op.kernel, text);
}

// The compiled model's config and mesh, in words: what a sweep or a comparison was started on.
static std::string model_words(const ModelSession& s) {
    const wl::model::MeshPlan& p = *s.plan();
    return s.config_name() + " (" + std::to_string(p.cfg.n_layer) + " layers) on " + std::to_string(p.mesh_w) + "x" +
           std::to_string(p.mesh_h);
}

void ModelWindow::start_sweep() {
    need_compiled();
    const wl::gpt::GPT& m = *session_.model();
    wl::model::DensitySweepSettings s;
    s.mesh_w = session_.plan()->mesh_w, s.mesh_h = session_.plan()->mesh_h;
    s.seed = m.cfg.seed;
    s.tokens = wl::model::bench_tokens(m.maxT, m.V);
    s.B = wl::gpt::sequences_per_step(m.cfg);
    s.T = m.maxT;
    wl::model::bench_batch(s.B, s.T, m.V, &s.inputs, &s.targets);
    s.lr = wl::gpt::learning_rate_at(m.cfg, 0);
    sweep_ = std::make_unique<wl::model::DensitySweep>(m, session_.kernels(), s);
    sweep_model_ = model_words(session_);
    sweep_cancelled_ = false;
}

void ModelWindow::start_compare() {
    need_compiled();
    const wl::gpt::GPT& m = *session_.model();
    compare_ = std::make_unique<wl::model::ExecutionCompare>(m, session_.plan()->mesh_w, session_.plan()->mesh_h, session_.kernels(),
                                                             wl::model::bench_tokens(m.maxT, m.V));
    compare_model_ = model_words(session_);
    compare_cancelled_ = false;
}

void ModelWindow::tick_jobs(double budget_ms) {
    if (!sweeping() && !comparing()) return;
    const auto t0 = std::chrono::steady_clock::now();
    auto left = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() < budget_ms; };
    do {
        if (sweeping()) sweep_->step();
        if (comparing()) compare_->step();
    } while ((sweeping() || comparing()) && left());
}

void ModelWindow::train_tick(double budget_ms) { train_.tick(budget_ms / 1000.0); }

// Built as the canvas is drawn, from what runs next: built after the units instead (or in
// frame(), which follows the canvas), it showed the op one tick late beside the panel's text.
const PeOverlay* ModelWindow::canvas_overlay() {
    if (train_.run_id() != train_run_seen_) {   // a start finished: its mesh replaces the last run's on the canvas
        train_run_seen_ = train_.run_id();
        train_overlay_key_.clear();
        refit_ = true;
    }
    shown_canvas_.clear();
    if (training_shown()) {
        const wl::model::TrainWork* w = train_.mesh()->next_work();
        const std::string phase = w ? wl::model::train_phase_name(w->phase) : "", op = w ? w->op : "";
        if (phase + " " + op != train_overlay_key_ || train_overlay_.mesh.size() == 0) {
            train_overlay_ = training_overlay(train_.mesh()->mesh().plan(), op, phase);
            train_overlay_key_ = phase + " " + op;
        }
        if (!colour_) return nullptr;
        shown_canvas_ = w ? train_overlay_key_ : "";
        return &train_overlay_;
    }
    return colour_ && session_.compiled() && !anim_.active() ? &overlay_ : nullptr;
}

void ModelWindow::frame(MeshCanvas& canvas) {
    shown_panel_.clear();   // draw_train sets it if it draws the training's activity
    // Generation: one token at least, then more while this frame's budget lasts.
    const auto t0 = std::chrono::steady_clock::now();
    while (session_.step())
        if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() > kStepBudgetMs) break;
    anim_.tick(ImGui::GetIO().DeltaTime, kStepBudgetMs);
    tick_jobs(kStepBudgetMs);
    if (on_canvas() != was_on_canvas_ || (refit_ && on_canvas())) {
        canvas.select(std::nullopt);
        canvas.fit();
    }
    was_on_canvas_ = on_canvas();
    refit_ = false;
    if (on_canvas()) {
        const wl::Mesh m = mesh();
        auto inside = [&](std::optional<PeCoord> p) { return p && m.contains(p->x, p->y) ? p : std::nullopt; };
        hovered_ = inside(canvas.hovered());
        selected_ = inside(canvas.selected());
    } else {
        hovered_.reset();   // the canvas shows something else: its PEs are not the model's
        selected_.reset();
    }
    drawn_.clear();
    if (open && draws_window) draw();
}

bool ModelWindow::start_training() {
    train_set_.config = config_;
    train_set_.mesh_w = mesh_w_, train_set_.mesh_h = mesh_h_;
    if (!train_.start(train_set_)) return false;   // the current run carries on
    anim_.stop();
    session_.stop_generation();
    train_shown_ = true;
    train_notice_.clear();
    train_overlay_key_.clear();
    refit_ = true;
    return true;
}

bool ModelWindow::train_text(const std::string& name, const std::string& text) {
    open = true;
    if (!train_.set_text(name, text)) {
        train_notice_ = train_.error();
        return false;
    }
    const CorpusInfo& c = *train_.text_info();
    train_notice_ = "loaded " + c.name + " (" + std::to_string(c.bytes) + " bytes, vocabulary " + std::to_string(c.vocab) +
                    "): Start trains on it";
    return true;
}

void ModelWindow::save_checkpoint() {
    std::string bytes;
    if (!train_.checkpoint(&bytes)) throw std::runtime_error(train_.error());
    if (kWebBuild) {
        const std::string name = train_set_.config.substr(train_set_.config.find_last_of('/') + 1) + "-mesh-step" +
                                 std::to_string(train_.step()) + ".ckpt";
        if (download) download(name, bytes);
        train_notice_ = "downloaded " + name + " (" + std::to_string(bytes.size()) + " bytes)";
    } else {
        if (!train_.save(train_path_)) throw std::runtime_error(train_.error());
        train_notice_ = std::string("saved ") + train_path_ + " (step " + std::to_string(train_.step()) + ")";
    }
}

// [SECTION] JS hook

// Arguments come as a JSON object (null counts as empty); a missing or null key takes the default.
static std::string str_arg(const json& a, const char* key, const std::string& dflt) {
    if (!a.is_object() || !a.contains(key) || a[key].is_null()) return dflt;
    if (!a[key].is_string()) throw std::invalid_argument(std::string("'") + key + "' must be a string");
    return a[key].get<std::string>();
}

static double num_arg(const json& a, const char* key, double dflt, double lo, double hi) {
    if (!a.is_object() || !a.contains(key) || a[key].is_null()) return dflt;
    if (!a[key].is_number()) throw std::invalid_argument(std::string("'") + key + "' must be a number");
    const double v = a[key].get<double>();
    if (v < lo || v > hi) {
        char range[64];
        std::snprintf(range, sizeof range, "%.0f..%.0f", lo, hi);
        throw std::invalid_argument(std::string("'") + key + "' must be in " + range);
    }
    return v;
}

static bool flag_arg(const json& a, const char* key) { return a.is_object() && a.value(key, false); }

void ModelWindow::need_compiled() const {
    if (!session_.compiled()) throw std::invalid_argument("no model is compiled: model_compile() first");
}

// The model_* rows of the app's one method table (ui/app_methods.cpp takes them from here;
// `params` is that table's grammar).
const std::vector<ModelWindow::Method>& ModelWindow::methods() {
    static const std::vector<Method> table = {
        {"model_compile", "config=\"gpt-nano\" mesh=\"32x32\" ...options", false, [](ModelWindow& w, const json& a) {
             w.config_ = str_arg(a, "config", w.config_);
             parse_mesh(str_arg(a, "mesh", mesh_text(w.mesh_w_, w.mesh_h_)), &w.mesh_w_, &w.mesh_h_);
             const std::string ck = str_arg(a, "checkpoint", "");
             if (ck.size() >= sizeof w.checkpoint_) throw std::invalid_argument("'checkpoint' is too long");
             std::snprintf(w.checkpoint_, sizeof w.checkpoint_, "%s", ck.c_str());
             w.set_ = str_arg(a, "set", "");
             const std::string execution = str_arg(a, "execution", w.streaming_ ? "streaming" : "resident");
             if (execution != "resident" && execution != "streaming")
                 throw std::invalid_argument("'execution' must be resident or streaming, got '" + execution + "'");
             w.streaming_ = execution == "streaming";
             w.no_cache_ = flag_arg(a, "no_cache");
             if (flag_arg(a, "show")) w.open = true;
             if (!w.compile()) throw std::runtime_error(w.session_.error());
             return w.session_.plan_json();
         }},
        {"model_stages", "", false, [](ModelWindow& w, const json&) {
             w.need_compiled();
             json out = json::array();
             for (const PlanStage& s : w.stages_)
                 out.push_back({{"title", s.title}, {"summary", s.summary}, {"columns", s.columns}, {"rows", s.rows}});
             return out;
         }},
        {"model_forward", "prompt", false, [](ModelWindow& w, const json& a) {
             w.need_compiled();
             if (!w.forward(str_arg(a, "prompt", w.prompt_))) throw std::runtime_error(w.session_.error());
             return to_json(*w.session_.last_forward());
         }},
        {"model_generate", "{options}", true, [](ModelWindow& w, const json& a) {
             w.need_compiled();
             wl::gpt::SampleOptions opt;
             opt.temperature = float(num_arg(a, "temperature", 1.0, 0, 100));
             opt.top_k = int(num_arg(a, "top_k", 0, 0, 1e9));
             opt.seed = uint64_t(num_arg(a, "seed", 1337, 0, 9e15));
             const int n = int(num_arg(a, "tokens", 20, 0, 100000));
             if (!w.generate(str_arg(a, "prompt", w.prompt_), n, opt)) throw std::runtime_error(w.session_.error());
             return to_json(w.session_.generation());
         }},
        {"model_generation", "{options}", false, [](ModelWindow& w, const json& a) {   // the generation so far; check: the reference's tokens beside it
             json j = to_json(w.session_.generation());
             if (flag_arg(a, "check") && !w.session_.generation().running()) {
                 const std::vector<int> ref = w.session_.reference_tokens();
                 const auto& g = w.session_.generation();
                 j["matches_reference"] = ref == g.tokens;
                 j["reference_text"] = ref.size() > size_t(g.prompt_tokens)
                                           ? json(w.session_.tokenizer()->decode(std::vector<int>(ref.begin() + g.prompt_tokens, ref.end())))
                                           : json("");
             }
             return j;
         }},
        {"model_stop", "", false, [](ModelWindow& w, const json&) {
             w.session_.stop_generation();
             return to_json(w.session_.generation());
         }},
        {"model_pe", "x y", false, [](ModelWindow& w, const json& a) {
             w.need_compiled();
             const wl::Mesh m = w.mesh();
             if (!a.is_object() || !a.contains("x") || !a.contains("y")) throw std::invalid_argument("'x' and 'y' are needed");
             const int x = int(num_arg(a, "x", 0, 0, m.w - 1)), y = int(num_arg(a, "y", 0, 0, m.h - 1));
             const wl::model::PlannedOp* op = w.session_.op_at(x, y);
             return json{{"pe", {{"x", x}, {"y", y}}},
                         {"op", op ? json(op->name) : json(nullptr)},
                         {"kind", op ? json(op->op) : json(nullptr)},
                         {"kernel", op ? json(op->kernel) : json(nullptr)},
                         {"layer", op && op->layer >= 0 ? json(op->layer) : json(nullptr)},
                         {"sram", to_json(w.session_.sram_map(x, y))}};
         }},
        {"model_open_kernel", "op", false, [](ModelWindow& w, const json& a) {
             w.need_compiled();
             const std::string name = str_arg(a, "op", "");
             const wl::model::PlannedOp* op = w.session_.plan()->find(name);
             if (!op) throw std::invalid_argument("no op named '" + name + "' in the plan");
             w.open_kernel(*op);
             return w.state();
         }},
        {"model_animate", "{options}", false, [](ModelWindow& w, const json& a) {   // {op, speed, to_end}; {stop: true} ends it
             w.need_compiled();
             if (flag_arg(a, "stop")) {
                 w.anim_.stop();
             } else {
                 if (a.is_object() && a.contains("op")) w.animate(str_arg(a, "op", ""));
                 if (!w.anim_.active()) throw std::invalid_argument("no op is animating: pass 'op'");
                 if (a.is_object() && a.contains("speed")) w.anim_.set_speed(num_arg(a, "speed", 0, 1, 1e7));
                 if (flag_arg(a, "to_end")) w.anim_.to_end();
             }
             return w.state()["animation"];
         }},
        {"model_density", "{options}", false, [](ModelWindow& w, const json& a) {   // {start: true} sweeps the compiled model; {cancel: true} stops it
             if (flag_arg(a, "start") && flag_arg(a, "cancel")) throw std::invalid_argument("'start' or 'cancel', not both");
             if (flag_arg(a, "start")) {
                 w.start_sweep();
                 w.open = w.sweep_open_ = true;
             }
             if (flag_arg(a, "cancel")) {
                 if (!w.sweeping()) throw std::invalid_argument("no density sweep is running");
                 w.sweep_cancelled_ = true;
             }
             return w.sweep_json();
         }},
        {"model_execution", "{options}", false, [](ModelWindow& w, const json& a) {   // {start: true} compares resident with streaming; {cancel: true} stops it
             if (flag_arg(a, "start") && flag_arg(a, "cancel")) throw std::invalid_argument("'start' or 'cancel', not both");
             if (flag_arg(a, "start")) {
                 w.start_compare();
                 w.open = w.compare_open_ = true;
             }
             if (flag_arg(a, "cancel")) {
                 if (!w.comparing()) throw std::invalid_argument("no comparison is running");
                 w.compare_cancelled_ = true;
             }
             return w.compare_json();
         }},
        {"train_start", "{options}", false, [](ModelWindow& w, const json& a) {   // {config, mesh, steps, eval_every, sample_every, sample_tokens, temperature, set}
             w.config_ = str_arg(a, "config", w.config_);
             parse_mesh(str_arg(a, "mesh", mesh_text(w.mesh_w_, w.mesh_h_)), &w.mesh_w_, &w.mesh_h_);
             TrainSettings& s = w.train_set_;
             s.steps = int64_t(num_arg(a, "steps", double(s.steps), 1, 1e7));
             s.eval_every = int(num_arg(a, "eval_every", s.eval_every, 1, 1e7));
             s.sample_every = int(num_arg(a, "sample_every", s.sample_every, 1, 1e7));
             s.sample_tokens = int(num_arg(a, "sample_tokens", s.sample_tokens, 0, 10000));
             s.temperature = float(num_arg(a, "temperature", s.temperature, 0, 100));
             s.set = str_arg(a, "set", "");
             w.open = true;
             if (!w.start_training()) throw std::runtime_error(w.train_.error());
             return w.train_.to_json();
         }},
        {"train_cancel", "", false, [](ModelWindow& w, const json&) {   // drops the start being built; the run before it carries on
             if (!w.train_.cancel_start()) throw std::invalid_argument("no start to cancel");
             return w.train_.to_json();
         }},
        {"train_pause", "", false, [](ModelWindow& w, const json&) {   // at the step boundary: state().status goes pausing, then paused
             w.train_.pause();
             return w.train_.to_json();
         }},
        {"train_resume", "", false, [](ModelWindow& w, const json&) {
             if (!w.train_.resume()) throw std::invalid_argument("no paused run to resume");
             return w.train_.to_json();
         }},
        {"train_state", "", false, [](ModelWindow& w, const json&) { return w.train_.to_json(); }},
        {"train_text", "name text", false, [](ModelWindow& w, const json& a) {   // a text to train on from the next train_start
             if (!w.train_text(str_arg(a, "name", "text"), str_arg(a, "text", ""))) throw std::invalid_argument(w.train_.error());
             return w.train_.to_json();
         }},
        {"train_save", "path", false, [](ModelWindow& w, const json& a) {   // native: path (default gpt-nano-mesh.ckpt); web: a download
             const std::string p = str_arg(a, "path", w.train_path_);
             if (p.size() >= sizeof w.train_path_) throw std::invalid_argument("'path' is too long");
             std::snprintf(w.train_path_, sizeof w.train_path_, "%s", p.c_str());
             w.save_checkpoint();
             json j = w.train_.to_json();
             j["saved"] = w.train_notice_;
             return j;
         }, true},
        {"model_window", "{settings}", false, [](ModelWindow& w, const json& a) {
             if (a.is_object() && a.contains("open")) w.open = a.value("open", w.open);
             if (a.is_object() && a.contains("on_canvas")) w.show_on_canvas_ = a.value("on_canvas", w.show_on_canvas_);
             if (a.is_object() && a.contains("colour")) {
                 const std::string c = str_arg(a, "colour", "");
                 if (c == "canvas") w.colour_.reset();
                 else if (auto pc = placement_colour_from_name(c)) w.colour_ = *pc;
                 else throw std::invalid_argument("'colour' is op, layer or canvas");
                 w.rebuild_overlay();
             }
             return w.state();
         }},
    };
    return table;
}

static json figures_json(const wl::model::RunFigures& f, const wl::model::RunFigures& dense, double density) {
    return {{"cycles", f.cycles}, {"wavelets", f.wavelets},
            {"vs_dense", dense.cycles ? double(f.cycles) / double(dense.cycles) : 0.0},
            {"ideal_cycles", density * double(dense.cycles)}};
}

json ModelWindow::sweep_json() const {
    if (!sweep_) return nullptr;
    const auto& pts = sweep_->points();
    json points = json::array();
    for (const wl::model::DensityPoint& p : pts) {
        const wl::model::DensityPoint& d = pts.front();
        json j = {{"plan", p.sparse ? "sparse" : "dense"}, {"density", p.density}, {"measured", p.measured}};
        if (p.measured) {
            j["op"] = figures_json(p.op, d.op, p.density);
            j["matmuls"] = figures_json(p.matmuls, d.matmuls, p.density);
            j["forward"] = figures_json(p.forward, d.forward, p.density);
            j["generation"] = figures_json(p.generation, d.generation, p.density);
            j["op_weight_bytes"] = p.op_weight_bytes;
            j["logits_differ"] = p.logits_differ;
        }
        j["train_step"] = p.trained && d.trained ? figures_json(p.train_step, d.train_step, p.density) : json(nullptr);
        j["train_matmuls"] = p.trained && d.trained ? figures_json(p.train_matmuls, d.train_matmuls, p.density) : json(nullptr);
        j["train_error"] = p.train_error.empty() ? json(nullptr) : json(p.train_error);
        points.push_back(j);
    }
    const auto& s = sweep_->settings();
    return {{"running", sweeping()}, {"cancelled", sweep_cancelled_}, {"done", sweep_->done()},
            {"progress", sweep_->progress()}, {"activity", sweep_->activity()},
            {"error", sweep_->error().empty() ? json(nullptr) : json(sweep_->error())}, {"model", sweep_model_},
            {"op", s.op}, {"T", s.tokens.size()}, {"B", s.B}, {"mode", wl::run_mode_name(s.mode)},
            {"mask", wl::model::mask_kind_name(s.mask)}, {"seed", s.seed}, {"points", points}};
}

json ModelWindow::compare_json() const {
    if (!compare_) return nullptr;
    auto run = [](const wl::model::ExecutionRun& r) -> json {
        return {{"execution", r.execution}, {"ran", r.ran}, {"error", r.error.empty() ? json(nullptr) : json(r.error)},
                {"too_big", r.too_big}, {"pes", r.pes}, {"cycles", r.cycles}, {"compute_cycles", r.ran ? r.compute_cycles() : 0},
                {"stream_cycles", r.stream_cycles}, {"stream_bytes", r.stream_bytes}, {"host_bytes", r.host_bytes},
                {"seconds", double(r.cycles) / wse_clock_hz()}};
    };
    const long long differ = compare_->logits_differ();
    return {{"running", comparing()}, {"cancelled", compare_cancelled_}, {"done", compare_->done()},
            {"progress", compare_->progress()}, {"activity", compare_->activity()}, {"model", compare_model_},
            {"T", compare_->T()}, {"resident", run(compare_->resident())}, {"streaming", run(compare_->streaming())},
            {"logits", compare_->resident().logits.size()},
            {"logits_differ", differ < 0 ? json(nullptr) : json(differ)}};
}

json ModelWindow::state() const {
    auto pe = [&](const std::optional<PeCoord>& p) -> json {
        if (!p) return nullptr;
        const wl::model::PlannedOp* op = session_.op_at(p->x, p->y);
        return {{"x", p->x}, {"y", p->y}, {"op", op ? json(op->name) : json(nullptr)}};
    };
    json layout = json::object();
    for (const auto& [name, r] : drawn_)
        layout[name] = {{"x", r.first.x}, {"y", r.first.y}, {"w", r.second.x - r.first.x}, {"h", r.second.y - r.first.y}};
    const Generation& g = session_.generation();
    return {{"open", open},
            {"configs", configs_},
            {"config", config_},
            {"mesh", mesh_text(mesh_w_, mesh_h_)},
            {"execution", streaming_ ? "streaming" : "resident"},   // the weights combo: the next compile's
            {"compiled", session_.compiled()},
            {"compiled_mesh", session_.compiled() ? json(mesh_text(session_.plan()->mesh_w, session_.plan()->mesh_h)) : json(nullptr)},
            {"model", session_.model_source()},
            {"error", session_.error().empty() ? json(nullptr) : json(session_.error())},
            {"on_canvas", on_canvas()},
            {"colour", colour_ ? placement_colour_name(*colour_) : "canvas"},
            {"hovered", pe(hovered_)},
            {"selected", pe(selected_)},
            {"generation", {{"running", g.running()}, {"made", g.made()}, {"tokens", g.wanted}}},
            {"train", {{"status", TrainSession::status_name(train_.status())}, {"step", train_.step()}, {"on_canvas", training_shown() && on_canvas()},
                       {"shown", {{"canvas", on_canvas() ? shown_canvas_ : ""}, {"panel", shown_panel_}}}}},
            {"animation", anim_.active() ? json{{"op", anim_.op()},
                                                {"cycles", anim_.cycles()},
                                                {"speed", anim_.speed()},
                                                {"done", anim_.done()},
                                                {"error", anim_.error().empty() ? json(nullptr) : json(anim_.error())},
                                                {"matches_fast", anim_.matches_fast() ? json(*anim_.matches_fast()) : json(nullptr)}}
                                         : json(nullptr)},
            {"density", sweep_ ? json{{"running", sweeping()}, {"progress", sweep_->progress()}, {"points", sweep_->points().size()}}
                               : json(nullptr)},
            {"execution_compare", compare_ ? json{{"running", comparing()}, {"progress", compare_->progress()}} : json(nullptr)},
            {"layout", layout}};
}

// [SECTION] window

void ModelWindow::mark(const char* name) { drawn_[name] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()}; }

void ModelWindow::draw() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float w = std::min(620.0f, vp->WorkSize.x * 0.48f);
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - w - 12, vp->WorkPos.y + 70), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(w, std::max(300.0f, vp->WorkSize.y - 120)), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("Model", &open)) {
        ImGui::End();
        return;
    }
    drawn_["window"] = {ImGui::GetWindowPos(), ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowWidth(),
                                                      ImGui::GetWindowPos().y + ImGui::GetWindowHeight())};
    // A button that throws (a kernel file gone missing) says why here, not in a crash.
    try {
        draw_settings();
        draw_train();
        if (session_.compiled()) {
            if (!training_shown()) draw_pe(selected_ ? selected_ : hovered_);   // the PEs are the training plan's then
            draw_stages();
            draw_forward();
            draw_generation();
            draw_density();
            draw_compare();
        }
    } catch (const std::exception& e) {
        wrapped_text(kErrorText, e.what());
    }
    ImGui::End();
}

void ModelWindow::draw_settings() {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ImGui::BeginCombo("config", config_.c_str())) {
        for (const std::string& c : configs_)
            if (ImGui::Selectable(c.c_str(), c == config_)) config_ = c;
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("models/<name>.yaml: the GPT's shape; its weights come from its seed");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    const std::string m = mesh_text(mesh_w_, mesh_h_);
    if (ImGui::BeginCombo("mesh", m.c_str())) {
        for (const auto& p : kMeshPresets) {
            const std::string t = mesh_text(p[0], p[1]);
            if (ImGui::Selectable(t.c_str(), t == m)) mesh_w_ = p[0], mesh_h_ = p[1];
        }
        ImGui::Separator();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
        int wh[2] = {mesh_w_, mesh_h_};
        if (ImGui::InputInt2("W x H", wh)) mesh_w_ = std::clamp(wh[0], 1, 256), mesh_h_ = std::clamp(wh[1], 1, 256);
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the emulated mesh the model is compiled for (each PE has 48 KiB of SRAM)");
    mark("mesh");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    static constexpr const char* kExecution[] = {"resident", "streaming"};
    int e = streaming_ ? 1 : 0;
    if (ImGui::Combo("weights", &e, kExecution, 2)) streaming_ = e == 1;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("resident: every layer on its own PEs, its weights in their SRAM.\nstreaming: one layer's ops serve "
                          "every layer, each layer's weights streamed in over the mesh's edge (docs/weight-streaming.md)");
    mark("execution");
#ifndef __EMSCRIPTEN__
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    ImGui::InputTextWithHint("##checkpoint", "checkpoint (optional)", checkpoint_, sizeof checkpoint_);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("a checkpoint from waferlab-cli train: its weights instead of the seed's");
#endif
    ImGui::SameLine();
    if (ImGui::Button("Compile")) compile();
    mark("compile_button");
    if (!session_.error().empty()) {
        wrapped_text(kErrorText, session_.error().c_str());
        if (session_.compiled())
            ImGui::TextDisabled("still loaded: the last compile that worked (%dx%d)", session_.plan()->mesh_w, session_.plan()->mesh_h);
    }
    if (!session_.compiled()) {
        if (session_.error().empty())
            ImGui::TextWrapped("Compile puts the model on the mesh: every op a kernel from models/kernels/ on its own row of "
                               "PEs, its weights in their SRAM.");
        return;
    }
    const wl::model::MeshPlan& p = *session_.plan();
    ImGui::TextColored(kGoodText, "%s: %zu ops on %d of %d PEs", session_.model_source().c_str(), p.ops.size(), p.pes_used(),
                       p.mesh_w * p.mesh_h);
    ImGui::TextDisabled("%s", session_.compile_info().summary().c_str());   // compile once, run many
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("The executable is cached by the model's shape, the mesh and the kernels' sources: compiling the "
                          "same again is a lookup; a new context length, mesh or edited kernel compiles again.");
    mark("compile_info");
    ImGui::Checkbox("show on the mesh canvas", &show_on_canvas_);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the canvas shows the model's mesh while this window is open");
    ImGui::SameLine();
    ImGui::TextDisabled("colour by");
    int c = colour_ ? int(*colour_) : 2;
    const int before = c;
    for (int i = 0; i < 3; ++i) {
        static constexpr const char* kLabels[] = {"op", "layer", "canvas mode"};
        ImGui::SameLine();
        ImGui::RadioButton(kLabels[i], &c, i);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the canvas's own colouring (activity, task, SRAM, stalls) of the model's machine");
    if (c != before) {
        colour_ = c == 2 ? std::nullopt : std::optional<PlacementColour>(PlacementColour(c));
        rebuild_overlay();
    }
}

void ModelWindow::draw_pe(const std::optional<PeCoord>& pe) {
    if (!ImGui::CollapsingHeader("PE", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (!pe) {
        ImGui::TextDisabled("Hover a PE on the canvas to see its op; click it to keep its SRAM map here.");
        return;
    }
    const wl::model::PlannedOp* op = session_.op_at(pe->x, pe->y);
    if (!op) {
        ImGui::Text("PE (%d, %d): unused", pe->x, pe->y);
        return;
    }
    ImGui::Text("PE (%d, %d)%s: %s, %s (%s)", pe->x, pe->y, selected_ ? " (selected)" : "", op->name.c_str(), op->op.c_str(),
                op->kernel.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Open kernel")) open_kernel(*op);
    mark("pe_open_kernel");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("open models/kernels/%s in the editor", op->kernel.c_str());
    const std::vector<SramEntry> map = session_.sram_map(pe->x, pe->y);
    if (ImGui::BeginTable("##sram", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        for (const char* h : {"symbol", "offset", "elements", "bytes"}) ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        for (const SramEntry& e : map) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(e.symbol.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%u", e.offset);
            ImGui::TableNextColumn();
            ImGui::Text("%u", e.length);
            ImGui::TableNextColumn();
            ImGui::Text("%u", e.bytes);
        }
        ImGui::EndTable();
    }
}

void ModelWindow::draw_stages() {
    for (size_t i = 0; i < stages_.size(); ++i) {
        const PlanStage& s = stages_[i];
        ImGui::PushID(int(i));
        const bool shown = ImGui::CollapsingHeader(s.title.c_str());
        mark(("stage:" + s.title).c_str());
        if (shown) {
            ImGui::TextWrapped("%s", s.summary.c_str());
            const bool kernels = s.title == "4. kernels";   // each op's row opens its kernel
            const int cols = int(s.columns.size()) + (kernels ? 1 : 0);
            if (ImGui::BeginTable("##stage", cols, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
                for (const std::string& c : s.columns) ImGui::TableSetupColumn(c.c_str());
                if (kernels) ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
                ImGui::TableHeadersRow();
                for (size_t r = 0; r < s.rows.size(); ++r) {
                    ImGui::TableNextRow();
                    for (const std::string& cell : s.rows[r]) {
                        ImGui::TableNextColumn();
                        ImGui::TextWrapped("%s", cell.c_str());
                    }
                    if (kernels) {
                        ImGui::TableNextColumn();
                        ImGui::PushID(int(r));
                        if (ImGui::SmallButton("open")) open_kernel(session_.plan()->ops[r]);
                        ImGui::PopID();
                    }
                }
                ImGui::EndTable();
            }
        }
        ImGui::PopID();
    }
}

void ModelWindow::draw_forward() {
    if (!ImGui::CollapsingHeader("Forward", ImGuiTreeNodeFlags_DefaultOpen)) return;
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6);
    ImGui::InputText("##prompt", prompt_, sizeof prompt_);
    mark("prompt");
    ImGui::SameLine();
    ImGui::BeginDisabled(session_.generation().running());
    if (ImGui::Button("Forward")) forward(prompt_);
    ImGui::EndDisabled();
    mark("forward_button");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("one forward pass over the prompt on the mesh (fast mode), then the reference's, logit by logit");
    const ForwardReport* f = session_.last_forward();
    if (!f) return;
    const double wafer_s = double(f->cycles) / wse_clock_hz();
    ImGui::TextWrapped("T = %d: %llu cycles (estimated in fast mode) = %s at %.2f GHz; wall %s on the mesh, %s reference",
                       f->T, (unsigned long long)f->cycles, format_seconds(wafer_s).c_str(), wse_clock_hz() / 1e9,
                       format_seconds(f->mesh_seconds).c_str(), format_seconds(f->reference_seconds).c_str());
    ImGui::TextColored(f->identical == f->logits ? kGoodText : kWarnText, "logits: %zu of %zu bit-identical to the reference (max |diff| %.3g)",
                       f->identical, f->logits, f->max_abs_diff);
    mark("logits_check");
    uint64_t stream_bytes = 0, stream_cycles = 0;
    for (const wl::model::OpRun& r : f->ops)
        if (r.stream_bytes) stream_bytes += r.stream_bytes, stream_cycles += r.cycles;
    if (stream_bytes)
        ImGui::TextWrapped("weights streamed in over the mesh's edge: %llu bytes, %llu of the %llu cycles (%.0f%%): a layer "
                           "waits for its largest op's weights at %.3f bytes a cycle per edge link (docs/weight-streaming.md)",
                           (unsigned long long)stream_bytes, (unsigned long long)stream_cycles, (unsigned long long)f->cycles,
                           100.0 * double(stream_cycles) / double(std::max<uint64_t>(f->cycles, 1)),
                           wl::model::EdgeLink::wse2().bytes_per_cycle);
    draw_animation();
    if (ImGui::BeginTable("##ops", 8, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                          ImGuiTableFlags_ScrollY,
                          ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 12))) {
        ImGui::TableSetupScrollFreeze(0, 1);
        for (const char* h : {"tensor", "op", "PEs", "cycles", "util", "MFLOP", "hops", ""}) ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < f->ops.size(); ++i) {
            const wl::model::OpRun& r = f->ops[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(r.name.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(r.op.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.pes);
            ImGui::TableNextColumn();
            ImGui::Text("%llu", (unsigned long long)r.cycles);
            ImGui::TableNextColumn();
            ImGui::Text("%.1f%%", 100 * r.utilisation());
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", r.flops / 1e6);
            ImGui::TableNextColumn();
            ImGui::Text("%llu", (unsigned long long)r.hops);
            ImGui::TableNextColumn();
            ImGui::PushID(int(i));
            const std::string refusal = replay_refusal(r.name);
            ImGui::BeginDisabled(!refusal.empty());
            if (ImGui::SmallButton("animate")) animate(r.name);
            ImGui::EndDisabled();
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                ImGui::SetTooltip("%s", refusal.empty() ? ("run " + r.name + " again in cycle mode and watch its wavelets on the canvas").c_str()
                                                        : refusal.c_str());
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
}

void ModelWindow::draw_animation() {
    if (!anim_error_.empty()) wrapped_text(kErrorText, anim_error_.c_str());
    if (!anim_.active()) {
        ImGui::TextDisabled("animate: any op again in cycle mode, its wavelets on the canvas (a button per row below)");
        return;
    }
    const ForwardReport* f = session_.last_forward();
    const auto& ops = session_.plan()->ops;
    uint64_t fast = 0;
    for (size_t i = 0; f && i < f->ops.size() && i < ops.size(); ++i)
        if (ops[i].name == anim_.op()) fast = f->ops[i].cycles;
    ImGui::Text("%s in cycle mode: cycle %llu (fast mode estimated %llu)", anim_.op().c_str(), (unsigned long long)anim_.cycles(),
                (unsigned long long)fast);
    mark("animation");
    if (!anim_.error().empty()) wrapped_text(kErrorText, anim_.error().c_str());
    else if (anim_.matches_fast())
        ImGui::TextColored(*anim_.matches_fast() ? kGoodText : kWarnText, "finished: its output is %s the fast run's",
                           *anim_.matches_fast() ? "bit for bit" : "NOT");
    double speed = anim_.speed(), lo = 1, hi = 1e6;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::SliderScalar("##anim_speed", ImGuiDataType_Double, &speed, &lo, &hi, "%.0f cycles/s",
                            ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
        anim_.set_speed(speed);
    ImGui::SameLine();
    ImGui::BeginDisabled(anim_.done());
    if (ImGui::Button("To end")) anim_.to_end();
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Stop animation")) anim_.stop();
}

void ModelWindow::draw_generation() {
    if (!ImGui::CollapsingHeader("Generate", ImGuiTreeNodeFlags_DefaultOpen)) return;
    const Generation& g = session_.generation();
    const float field = ImGui::GetFontSize() * 5;
    ImGui::SetNextItemWidth(field);
    ImGui::InputInt("tokens", &gen_tokens_, 0);
    gen_tokens_ = std::clamp(gen_tokens_, 1, 100000);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    ImGui::SliderFloat("temperature", &temperature_, 0.0f, 2.0f, "%.2f");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("0: greedy (always the most likely token)");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    ImGui::InputInt("seed", &seed_, 0);
    seed_ = std::max(0, seed_);
    ImGui::SameLine();
    if (g.running()) {
        if (ImGui::Button("Stop")) session_.stop_generation();
    } else if (ImGui::Button("Generate")) {
        wl::gpt::SampleOptions opt;
        opt.temperature = temperature_;
        opt.top_k = top_k_;
        opt.seed = uint64_t(seed_);
        generate(prompt_, gen_tokens_, opt);
    }
    mark("generate_button");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("from the prompt above, a token per frame on the mesh, with its KV cache in PE SRAM");
    if (g.tokens.empty()) return;
    const float h = ImGui::GetTextLineHeightWithSpacing() * 6;
    ImGui::BeginChild("##text", ImVec2(0, h), true);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", g.prompt.c_str());
    ImGui::PopStyleColor();
    ImGui::TextWrapped("%s", g.text.c_str());
    if (g.running()) ImGui::SetScrollHereY(1.0f);
    ImGui::EndChild();
    mark("generated_text");
    if (!g.error.empty()) wrapped_text(kErrorText, g.error.c_str());
    ImGui::Text("%d of %d tokens%s", g.made(), g.wanted, g.running() ? "..." : "");
    if (g.made()) {
        ImGui::TextWrapped("%.0f cycles per token (estimated) = %s per token at %.2f GHz; wall %s, %.1f tokens/s",
                           g.cycles_per_token(), format_seconds(g.cycles_per_token() / wse_clock_hz()).c_str(),
                           wse_clock_hz() / 1e9, format_seconds(g.wall_seconds).c_str(), g.tokens_per_second());
        mark("generation_stats");
    }
}

void ModelWindow::draw_train() {
    const bool shown = ImGui::CollapsingHeader("Train", ImGuiTreeNodeFlags_DefaultOpen);
    mark("train_header");
    if (!shown) return;
    const TrainSession& t = train_;
    if (!t.has_run())
        ImGui::TextWrapped("Trains the config above on the emulated mesh above: every forward, backward and AdamW launch runs on "
                           "the PEs (models/kernels/, TRAIN = 1), a few per frame, and so do the validation loss and the samples "
                           "(the same plan's forward). The host only feeds the batches.");
    const float field = ImGui::GetFontSize() * 5;
    int steps = int(train_set_.steps);
    ImGui::SetNextItemWidth(field);
    if (ImGui::InputInt("steps", &steps, 0)) train_set_.steps = std::clamp(steps, 1, 10000000);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    ImGui::InputInt("eval every", &train_set_.eval_every, 0);
    train_set_.eval_every = std::max(1, train_set_.eval_every);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the validation loss every N steps (eval_iters batches of the held-out text)");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(field);
    ImGui::InputInt("sample every", &train_set_.sample_every, 0);
    train_set_.sample_every = std::max(1, train_set_.sample_every);

    // The data: the config's corpus, or the user's text.
    if (const auto& txt = t.text_info()) {
        ImGui::Text("data: %s, %zu bytes, vocabulary %d", txt->name.c_str(), txt->bytes, txt->vocab);
        ImGui::SameLine();
        if (ImGui::SmallButton("use the config's corpus")) train_.clear_text();
    } else {
        ImGui::TextDisabled("data: the config's corpus (e.g. generated stories)");
    }
    mark("train_data");
    if (kWebBuild) {
        ImGui::SameLine();
        if (ImGui::SmallButton("Pick text file...") && pick_text_file) pick_text_file();
        mark("train_pick");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("train on your own text: pick a .txt file, or drop one onto the page (at most %zu MiB)",
                                                      kMaxTrainTextBytes >> 20);
    } else {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
        ImGui::InputTextWithHint("##textpath", "a text file to train on (or drop one)", text_path_, sizeof text_path_);
        ImGui::SameLine();
        if (ImGui::SmallButton("Load text") && text_path_[0]) {
            std::ifstream in(text_path_, std::ios::binary);
            if (!in) train_notice_ = std::string("could not open ") + text_path_;
            else {
                std::stringstream ss;
                ss << in.rdbuf();
                train_text(std::filesystem::path(text_path_).filename().string(), ss.str());
            }
        }
    }

    // Start, pause, resume, save.
    const bool busy = t.running();
    if (ImGui::Button(t.has_run() ? "Start again" : "Start training")) start_training();
    mark("train_start");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("a new run of %s on a %dx%d mesh; a run that is going on is replaced only if the new one starts",
                          config_.c_str(), mesh_w_, mesh_h_);
    ImGui::SameLine();
    if (t.starting()) {
        if (ImGui::Button("Cancel")) train_.cancel_start();
        mark("train_cancel");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("stop building this start; the run before it, if any, carries on");
        ImGui::SameLine();
    }
    ImGui::BeginDisabled(!busy && t.status() != TrainSession::Status::Paused);
    if (busy ? ImGui::Button("Pause") : ImGui::Button("Resume")) busy ? train_.pause() : (void)train_.resume();
    ImGui::EndDisabled();
    mark("train_pause");
    ImGui::SameLine();
    ImGui::BeginDisabled(!t.has_run() || (t.mesh() && t.mesh()->stepping()));
    if (ImGui::Button(kWebBuild ? "Download checkpoint" : "Save checkpoint")) {
        try {
            save_checkpoint();
        } catch (const std::exception& e) {
            train_notice_ = e.what();   // stays shown, unlike a throw out of draw()
        }
    }
    ImGui::EndDisabled();
    mark("train_save");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("the reference's checkpoint format (waferlab-cli generate --checkpoint reads it); at a step boundary: pause first");
    if (!kWebBuild) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
        ImGui::InputText("##ckpt_out", train_path_, sizeof train_path_);
    }
    if (t.starting()) {   // the start is built a unit a frame: how far, in words and counts
        ImGui::ProgressBar(float(t.start_progress()), ImVec2(ImGui::GetFontSize() * 8, 0), "");
        ImGui::SameLine();
        ImGui::TextUnformatted(t.activity().c_str());
        mark("train_progress");
    }
    if (!t.error().empty()) wrapped_text(kErrorText, t.error().c_str());
    if (!train_notice_.empty() && train_notice_ != t.error()) ImGui::TextDisabled("%s", train_notice_.c_str());
    if (!t.has_run()) return;

    ImGui::Text("%s: step %lld of %lld  (%s on %s, %s)", TrainSession::status_name(t.status()), (long long)t.step(),
                (long long)t.target_step(), t.settings().config.c_str(),
                (std::to_string(t.settings().mesh_w) + "x" + std::to_string(t.settings().mesh_h)).c_str(), t.corpus().name.c_str());
    mark("train_status");
    const wl::model::MeshTrainer& m = *t.mesh();
    ImGui::ProgressBar(m.work_total() ? float(m.work_done()) / float(m.work_total()) : 0.0f, ImVec2(ImGui::GetFontSize() * 8, 0), "");
    ImGui::SameLine();
    shown_panel_ = t.starting() ? "waits while the new start is built" : t.activity().empty() ? "between steps" : t.activity();
    ImGui::TextUnformatted(shown_panel_.c_str());
    ImGui::Text("%.2f steps/s, %.0f tokens/s (wall, this tab); the emulator alone %.0f tokens/s", t.steps_per_s(), t.tokens_per_s(),
                t.mesh_tokens_per_s());
    if (!t.losses().empty()) {
        const wl::model::TrainStep& s = t.last_step();
        ImGui::Text("last step: loss %.4f, grad norm %.3f, %llu cycles = %s of wafer time", s.loss, s.grad_norm,
                    (unsigned long long)s.cycles, format_seconds(double(s.cycles) / wse_clock_hz()).c_str());
    }
    ImGui::Text("corpus: %zu bytes, vocabulary %d", t.corpus().bytes, t.corpus().vocab);
    draw_loss_plot();
    if (t.sample().step >= 0) {
        ImGui::TextDisabled("sample at step %lld (on the mesh, temperature %.1f):",
                            (long long)t.sample().step, double(t.settings().temperature));
        ImGui::BeginChild("##train_sample", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 4), true);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", t.sample().prompt.c_str());
        ImGui::PopStyleColor();
        ImGui::TextWrapped("%s", t.sample().text.c_str());
        ImGui::EndChild();
        mark("train_sample");
    }
}

// The loss per step (train: the batch's, blue) and the validation loss (orange dots), on one
// pair of axes with their values written at the ends.
void ModelWindow::draw_loss_plot() {
    const std::vector<float>& tl = train_.losses();
    const std::vector<EvalPoint>& vl = train_.val_losses();
    if (tl.empty() && vl.empty()) return;
    float lo = 1e30f, hi = -1e30f;
    for (float v : tl) lo = std::min(lo, v), hi = std::max(hi, v);
    for (const EvalPoint& p : vl) lo = std::min(lo, p.loss), hi = std::max(hi, p.loss);
    if (hi - lo < 1e-3f) hi = lo + 1e-3f;
    const int64_t last = std::max<int64_t>(train_.step(), 1);
    const float label_w = ImGui::CalcTextSize("00.00").x + 6;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 size(std::max(200.0f, ImGui::GetContentRegionAvail().x), ImGui::GetFontSize() * 9);
    ImGui::InvisibleButton("##loss_plot", size);
    mark("train_plot");
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0(at.x + label_w, at.y + 4), p1(at.x + size.x - 4, at.y + size.y - ImGui::GetFontSize() - 4);
    dl->AddRectFilled(p0, p1, IM_COL32(24, 28, 36, 255));
    dl->AddRect(p0, p1, IM_COL32(90, 96, 110, 255));
    auto px = [&](double step) { return p0.x + float(step / double(last)) * (p1.x - p0.x); };
    auto py = [&](float loss) { return p1.y - (loss - lo) / (hi - lo) * (p1.y - p0.y); };
    char b[32];
    const ImU32 axis = IM_COL32(170, 176, 190, 255);
    std::snprintf(b, sizeof b, "%.2f", double(hi));
    dl->AddText(ImVec2(at.x, p0.y - 2), axis, b);
    std::snprintf(b, sizeof b, "%.2f", double(lo));
    dl->AddText(ImVec2(at.x, p1.y - ImGui::GetFontSize()), axis, b);
    dl->AddText(ImVec2(p0.x, p1.y + 2), axis, "step 0");
    std::snprintf(b, sizeof b, "%lld", (long long)last);
    dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize(b).x, p1.y + 2), axis, b);
    const ImU32 train_c = IM_COL32(90, 170, 255, 255), val_c = IM_COL32(255, 150, 60, 255);
    for (size_t i = 1; i < tl.size(); i++)   // tl[i] is the loss of step i + 1
        dl->AddLine(ImVec2(px(double(i)), py(tl[i - 1])), ImVec2(px(double(i + 1)), py(tl[i])), train_c, 1.5f);
    if (tl.size() == 1) dl->AddCircleFilled(ImVec2(px(1), py(tl[0])), 2.5f, train_c);
    for (size_t i = 0; i < vl.size(); i++) {
        const ImVec2 c(px(double(vl[i].step)), py(vl[i].loss));
        if (i) dl->AddLine(ImVec2(px(double(vl[i - 1].step)), py(vl[i - 1].loss)), c, val_c, 1.0f);
        dl->AddCircleFilled(c, 3.0f, val_c);
    }
    const char* legend = "train (batch)   validation";
    const float lx = p1.x - ImGui::CalcTextSize(legend).x - 24;
    dl->AddText(ImVec2(lx, p0.y + 2), train_c, "train (batch)");
    dl->AddText(ImVec2(lx + ImGui::CalcTextSize("train (batch)   ").x, p0.y + 2), val_c, "validation");
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("loss (cross-entropy, nats) per step; last train %.4f%s", tl.empty() ? 0.0 : double(tl.back()),
                          vl.empty() ? "" : (", validation " + std::to_string(vl.back().loss) + " at step " + std::to_string(vl.back().step)).c_str());
    }
}

// [SECTION] density

namespace {

// 1234567 -> "1.23M": an axis label.
std::string short_count(double v) {
    char b[32];
    if (v >= 1e9) std::snprintf(b, sizeof b, "%.2fG", v / 1e9);
    else if (v >= 1e6) std::snprintf(b, sizeof b, "%.2fM", v / 1e6);
    else if (v >= 1e3) std::snprintf(b, sizeof b, "%.1fk", v / 1e3);
    else std::snprintf(b, sizeof b, "%.0f", v);
    return b;
}

const ImU32 kSparseCol = IM_COL32(235, 90, 80, 255), kDenseCol = IM_COL32(110, 170, 255, 255), kIdealCol = IM_COL32(120, 200, 120, 255);

void dashed(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float dash, float gap) {
    const float dx = b.x - a.x, dy = b.y - a.y, len = std::sqrt(dx * dx + dy * dy);
    for (float t = 0; t < len; t += dash + gap) {
        const float e = std::min(len, t + dash);
        dl->AddLine(ImVec2(a.x + dx * t / len, a.y + dy * t / len), ImVec2(a.x + dx * e / len, a.y + dy * e / len), col, 1.5f);
    }
}

// One panel: the sparse plans' values (density, value) against density 0..1, the dense plan's as a
// dashed line across, and the ideal (density x dense) dotted from the origin.
void density_panel(const char* id, const std::string& title, const std::vector<std::pair<double, double>>& sparse, double dense,
                   ImVec2 size) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    const ImU32 axis = IM_COL32(170, 176, 190, 255);
    double hi = dense;
    for (const auto& p : sparse) hi = std::max(hi, p.second);
    hi = std::max(hi * 1.1, 1.0);
    const std::string top = short_count(hi);
    const float label_w = ImGui::CalcTextSize(top.c_str()).x + 6;
    const ImVec2 p0(at.x + label_w, at.y + fs + 4), p1(at.x + size.x - 6, at.y + size.y - fs - 4);
    dl->AddText(ImVec2(at.x, at.y), axis, title.c_str());
    dl->AddRectFilled(p0, p1, IM_COL32(24, 28, 36, 255));
    dl->AddRect(p0, p1, IM_COL32(90, 96, 110, 255));
    auto px = [&](double d) { return p0.x + float(d) * (p1.x - p0.x); };
    auto py = [&](double v) { return p1.y - float(v / hi) * (p1.y - p0.y); };
    dl->AddText(ImVec2(at.x, p0.y - 2), axis, top.c_str());
    dl->AddText(ImVec2(at.x + label_w - ImGui::CalcTextSize("0").x - 6, p1.y - fs), axis, "0");
    dl->AddText(ImVec2(p0.x, p1.y + 2), axis, "density 0");
    dl->AddText(ImVec2(p1.x - ImGui::CalcTextSize("1").x, p1.y + 2), axis, "1");
    dashed(dl, ImVec2(p0.x, py(dense)), ImVec2(p1.x, py(dense)), kDenseCol, 6, 4);
    dashed(dl, ImVec2(px(0), py(0)), ImVec2(px(1), py(dense)), kIdealCol, 2, 3);
    std::vector<std::pair<double, double>> pts = sparse;
    std::sort(pts.begin(), pts.end());
    for (size_t i = 0; i < pts.size(); i++) {
        const ImVec2 c(px(pts[i].first), py(pts[i].second));
        if (i) dl->AddLine(ImVec2(px(pts[i - 1].first), py(pts[i - 1].second)), c, kSparseCol, 1.5f);
        dl->AddCircleFilled(c, 3.5f, kSparseCol);
    }
    if (ImGui::IsItemHovered()) {
        std::string tip = title + "\ndense: " + std::to_string((unsigned long long)dense);
        for (const auto& p : pts) {
            char b[96];
            std::snprintf(b, sizeof b, "\ndensity %.2f: %llu (ideal %.0f)", p.first, (unsigned long long)p.second, p.first * dense);
            tip += b;
        }
        ImGui::SetTooltip("%s", tip.c_str());
    }
}

}  // namespace

void ModelWindow::draw_density() {
    if (sweep_open_) ImGui::SetNextItemOpen(true);
    const bool shown = ImGui::CollapsingHeader("Density");
    if (sweep_open_) ImGui::SetScrollHereY(0.0f);   // started from the hook: the section in view
    sweep_open_ = false;
    mark("density_header");
    if (!shown) return;
    const wl::gpt::GPT& m = *session_.model();
    ImGui::TextWrapped("Prunes every block's qkv, attproj, fch and fcproj weights (the smallest go first) to density 1, 0.5, "
                       "0.25 and 0.1 and runs each on this mesh beside the dense plan, resident: a forward of %d tokens and "
                       "one training step on a fixed batch of %d x %d tokens. Fast mode: the cycles are estimated. Ideal: "
                       "density x the dense plan's cycles. waferlab-cli bench sparsity measures the same (its step on the "
                       "corpus's first batch).",
                       m.maxT, wl::gpt::sequences_per_step(m.cfg), m.maxT);
    if (sweeping()) {
        if (ImGui::Button("Cancel sweep")) sweep_cancelled_ = true;
    } else if (ImGui::Button(sweep_ ? "Run the sweep again" : "Run density sweep")) {
        start_sweep();
    }
    mark("density_button");
    if (!sweep_) return;
    const wl::model::DensitySweep& sw = *sweep_;
    if (sweeping()) {
        ImGui::SameLine();
        ImGui::ProgressBar(float(sw.progress()), ImVec2(ImGui::GetFontSize() * 8, 0), "");
        ImGui::SameLine();
        ImGui::TextUnformatted(sw.activity().c_str());
        mark("density_progress");
    } else if (sweep_cancelled_) {
        ImGui::SameLine();
        ImGui::TextDisabled("cancelled (%d of %d plans measured)", int(sw.points().size()) - !sw.done(), sw.total_points());
    }
    if (!sw.error().empty()) wrapped_text(kErrorText, ("the sweep stopped: " + sw.error()).c_str());
    const auto& pts = sw.points();
    if (pts.empty() || !pts.front().measured) return;
    ImGui::TextDisabled("%s, %s mode, %s mask (seed %llu)", sweep_model_.c_str(), wl::run_mode_name(sw.settings().mode),
                        wl::model::mask_kind_name(sw.settings().mask), (unsigned long long)sw.settings().seed);
    const wl::model::DensityPoint& d = pts.front();
    // One table per measure: plan, density, cycles, vs dense, ideal, wavelets.
    auto table = [&](const char* id, const std::string& title, wl::model::RunFigures wl::model::DensityPoint::*f, bool train) {
        ImGui::TextUnformatted(title.c_str());
        if (!ImGui::BeginTable(id, 6, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
        for (const char* h : {"plan", "density", "cycles", "vs dense", "ideal", "wavelets"}) ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        const wl::model::RunFigures& dense = d.*f;
        for (const wl::model::DensityPoint& p : pts) {
            if (train ? !p.trained && p.train_error.empty() : !p.measured) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(p.sparse ? "sparse" : "dense");
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", p.density);
            ImGui::TableNextColumn();
            if (train && !p.trained) {
                ImGui::TextColored(kErrorText, "does not fit");
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.train_error.c_str());
                continue;
            }
            const wl::model::RunFigures& x = p.*f;
            ImGui::Text("%llu", (unsigned long long)x.cycles);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", dense.cycles ? double(x.cycles) / double(dense.cycles) : 0.0);
            ImGui::TableNextColumn();
            if (p.sparse) ImGui::Text("%.0f", wl::model::ideal_cycles(p, dense));
            ImGui::TableNextColumn();
            ImGui::Text("%llu", (unsigned long long)x.wavelets);
        }
        ImGui::EndTable();
    };
    table("##density_op", "one matmul, " + sw.settings().op + ", forward of " + std::to_string(sw.settings().tokens.size()) + " tokens:",
          &wl::model::DensityPoint::op, false);
    mark("density_op_table");
    if (d.trained) {
        table("##density_step", "a training step, " + std::to_string(sw.settings().B) + " x " + std::to_string(sw.settings().T) +
                                    " tokens (forward, backward, norm, AdamW; the mask fixed):",
              &wl::model::DensityPoint::train_step, true);
        mark("density_step_table");
    }
    for (const wl::model::DensityPoint& p : pts)
        if (!p.train_error.empty())
            wrapped_text(kWarnText, (std::string("the sparse training plan at density ") + std::to_string(p.density).substr(0, 4) +
                                     " does not fit: " + p.train_error).c_str());
    int differ = 0;
    for (const wl::model::DensityPoint& p : pts) differ = std::max(differ, p.logits_differ);
    ImGui::TextColored(differ ? kWarnText : kGoodText, "logits against the reference on the same pruned weights: %s",
                       differ ? (std::to_string(differ) + " differ in the worst plan").c_str() : "bit for bit, every plan");
    draw_density_plots();
}

void ModelWindow::draw_density_plots() {
    const auto& pts = sweep_->points();
    const wl::model::DensityPoint& d = pts.front();
    const float fs = ImGui::GetFontSize();
    // The legend once, in the lines' colours.
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kSparseCol), "sparse plans");
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kDenseCol), "- - dense plan");
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kIdealCol), ".... ideal (density x dense)");
    const float w = std::max(160.0f, (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2);
    const ImVec2 size(w, fs * 9);
    auto series = [&](wl::model::RunFigures wl::model::DensityPoint::*f, bool train, bool wavelets) {
        std::vector<std::pair<double, double>> out;
        for (const wl::model::DensityPoint& p : pts)
            if (p.sparse && (train ? p.trained : p.measured)) out.push_back({p.density, double(wavelets ? (p.*f).wavelets : (p.*f).cycles)});
        return out;
    };
    const std::string op = sweep_->settings().op;
    density_panel("##dp_op_c", "cycles: one matmul, " + op, series(&wl::model::DensityPoint::op, false, false), double(d.op.cycles), size);
    mark("density_plot");
    if (d.trained) {
        ImGui::SameLine();
        density_panel("##dp_step_c", "cycles: a training step", series(&wl::model::DensityPoint::train_step, true, false),
                      double(d.train_step.cycles), size);
    }
    density_panel("##dp_op_w", "wavelets: one matmul, " + op, series(&wl::model::DensityPoint::op, false, true), double(d.op.wavelets),
                  size);
    if (d.trained) {
        ImGui::SameLine();
        density_panel("##dp_step_w", "wavelets: a training step", series(&wl::model::DensityPoint::train_step, true, true),
                      double(d.train_step.wavelets), size);
    }
}

// [SECTION] execution

void ModelWindow::draw_compare() {
    if (compare_open_) ImGui::SetNextItemOpen(true);
    const bool shown = ImGui::CollapsingHeader("Resident vs streaming");
    if (compare_open_) ImGui::SetScrollHereY(0.0f);
    compare_open_ = false;
    mark("compare_header");
    if (!shown) return;
    const wl::gpt::GPT& m = *session_.model();
    ImGui::TextWrapped("One forward of %d tokens of this model on this mesh both ways: resident (every layer on its own PEs, its "
                       "weights in their SRAM) and streaming (one layer's ops serve every layer, each layer's weights streamed in "
                       "over the mesh's edge; docs/weight-streaming.md). Fast mode: the cycles are estimated.",
                       m.maxT);
    if (comparing()) {
        if (ImGui::Button("Cancel comparison")) compare_cancelled_ = true;
    } else if (ImGui::Button(compare_ ? "Compare again" : "Compare resident and streaming")) {
        start_compare();
    }
    mark("compare_button");
    if (!compare_) return;
    const wl::model::ExecutionCompare& c = *compare_;
    if (comparing()) {
        ImGui::SameLine();
        ImGui::ProgressBar(float(c.progress()), ImVec2(ImGui::GetFontSize() * 8, 0), "");
        ImGui::SameLine();
        ImGui::TextUnformatted(c.activity().c_str());
        mark("compare_progress");
    } else if (compare_cancelled_) {
        ImGui::SameLine();
        ImGui::TextDisabled("cancelled");
    }
    ImGui::TextDisabled("%s, T = %d", compare_model_.c_str(), c.T());
    const wl::model::ExecutionRun* runs[2] = {&c.resident(), &c.streaming()};
    for (const wl::model::ExecutionRun* r : runs)
        if (!r->error.empty())
            wrapped_text(kErrorText, (r->too_big ? "does not fit " + r->execution + " on this mesh: " + r->error
                                                 : r->execution + " failed: " + r->error).c_str());
    if (!runs[0]->ran && !runs[1]->ran) return;
    if (ImGui::BeginTable("##compare", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("");
        ImGui::TableSetupColumn("resident");
        ImGui::TableSetupColumn("streaming");
        ImGui::TableHeadersRow();
        auto row = [&](const char* label, auto value) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(label);
            for (const wl::model::ExecutionRun* r : runs) {
                ImGui::TableNextColumn();
                if (r->ran) ImGui::TextUnformatted(value(*r).c_str());
                else ImGui::TextDisabled("%s", r->error.empty() ? "..." : r->too_big ? "does not fit" : "failed");
            }
        };
        using Run = wl::model::ExecutionRun;
        auto n = [](uint64_t v) { return std::to_string((unsigned long long)v); };
        row("PEs used", [&](const Run& r) { return std::to_string(r.pes); });
        row("cycles, the whole forward", [&](const Run& r) {
            return n(r.cycles) + " (" + format_seconds(double(r.cycles) / wse_clock_hz()) + ")";
        });
        row("  compute", [&](const Run& r) { return n(r.compute_cycles()); });
        row("  streaming weights in", [&](const Run& r) {
            char b[32];
            std::snprintf(b, sizeof b, " (%.0f%%)", 100.0 * double(r.stream_cycles) / double(std::max<uint64_t>(r.cycles, 1)));
            return n(r.stream_cycles) + b;
        });
        row("weight bytes streamed", [&](const Run& r) { return n(r.stream_bytes); });
        row("activation bytes via the host", [&](const Run& r) { return n(r.host_bytes); });
        ImGui::EndTable();
    }
    mark("compare_table");
    // Each forward's cycles as a bar, compute then streaming, on one scale.
    const uint64_t most = std::max(runs[0]->cycles, runs[1]->cycles);
    const float fs = ImGui::GetFontSize(), label_w = ImGui::CalcTextSize("streaming ").x;
    for (const wl::model::ExecutionRun* r : runs) {
        if (!r->ran || !most) continue;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float w = std::max(100.0f, ImGui::GetContentRegionAvail().x - label_w);
        ImGui::Dummy(ImVec2(label_w + w, fs * 1.2f));
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), r->execution.c_str());
        const float x0 = at.x + label_w, xc = x0 + w * float(double(r->compute_cycles()) / double(most)),
                    xs = x0 + w * float(double(r->cycles) / double(most));
        dl->AddRectFilled(ImVec2(x0, at.y + 1), ImVec2(xc, at.y + fs), kDenseCol);
        dl->AddRectFilled(ImVec2(xc, at.y + 1), ImVec2(xs, at.y + fs), IM_COL32(240, 170, 60, 255));
    }
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kDenseCol), "compute");
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.94f, 0.67f, 0.24f, 1), "streaming weights in");
    const long long differ = c.logits_differ();
    if (differ >= 0) {
        ImGui::TextColored(differ ? kWarnText : kGoodText, "logits: %s", differ ? (std::to_string(differ) + " of " +
                                                                                   std::to_string(c.resident().logits.size()) + " differ").c_str()
                                                                                : ("all " + std::to_string(c.resident().logits.size()) +
                                                                                   " bit for bit the same").c_str());
        mark("compare_logits");
    }
}

}  // namespace wlui
