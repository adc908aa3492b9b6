// model_window.cpp: drawing the Model window, and its JS methods. Every number
// comes from the ModelSession (the engine's plan, MeshGPT's runs, the reference).
//
// Index of this file:
// [SECTION] actions        compile, forward, generate, open a kernel (the replays: model_replay_view.cpp;
//                          the density sweep and resident vs streaming: model_views.cpp)
// [SECTION] llm.c's weights from the page   the web's Open weights...: checked, read a chunk at a time, loaded
// [SECTION] JS hook        model_* methods and state().model
// [SECTION] window         settings, the weights being read, the PE under the mouse, the stages, forward, generation
// The Train section: model_train_view.cpp; the Density and Resident vs streaming views: model_views.cpp.
#include "ui/model_window.h"

#include "engine/core/memory_limit.h"
#include "engine/core/thousands.h"
#include "engine/fabric/mesh.h"
#include "engine/gpt/adamw.h"
#include "engine/gpu/compare.h"
#include "engine/model/weight_stream.h"
#include "ui/json_args.h"
#include "ui/memory_use.h"
#include "ui/style.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace wlui {

using nlohmann::json;

namespace {
constexpr int kMeshPresets[][2] = {{8, 8}, {16, 16}, {32, 32}, {48, 48}, {64, 64}};

std::string mesh_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

// "32x32" -> 32, 32; anything else throws and changes nothing.
void parse_mesh(const std::string& s, int* w, int* h) {
    wl::Mesh m;
    if (!wl::parse_mesh(s, &m))
        throw std::invalid_argument("'mesh' " + wl::mesh_error(s));
    *w = m.w, *h = m.h;
}

using wl::gpu::format_seconds;
}  // namespace

ModelWindow::ModelWindow(const std::string& models_dir) : session_(models_dir) { configs_ = session_.configs(); }

// [SECTION] actions

std::string ModelWindow::compile_set() const { return set_ + (streaming_ ? ",wafer.execution=streaming" : ""); }

bool ModelWindow::compile() {
    const bool no_cache = no_cache_;
    no_cache_ = false;   // one compile only
    if (!session_.compile(config_, mesh_w_, mesh_h_, checkpoint_, compile_set(), no_cache)) return false;   // the last good plan stays shown
    compiled();
    return true;
}

void ModelWindow::compiled() {
    anim_.stop();
    replay_.stop();
    compare_.reset();   // it reads the model the compile replaced
    sweep_.reset();
    if (train_shown_) train_.pause();   // the canvas goes back to the compiled model: the run waits
    train_shown_ = false;
    selected_.reset();
    hovered_.reset();
    stages_ = plan_stages(*session_.plan());
    rebuild_overlay();
    timeline_.set({});   // the last forward went with the last compile
    timeline_overlay_key_.clear();
    refit_ = true;
}

// [SECTION] llm.c's weights from the page (web/waferlab-api.js's openWeightsFile)

json ModelWindow::open_weights(const std::string& name, std::string_view head, uint64_t size) {
    weights_read_.reset();   // a read still going on is dropped: its next chunk is refused
    weights_error_.clear();
    LlmcNeed need;
    if (!session_.check_llmc(name, head, size, config_, mesh_w_, mesh_h_, compile_set(), memory_use(), &need))
        throw std::runtime_error(session_.error());
    WeightsRead r;
    r.id = ++weights_ids_;
    r.name = name;
    try {
        r.bytes.resize(size_t(size));   // the file's bytes, written here by the page a chunk at a time
    } catch (const std::exception&) {   // the check's estimate said it fits, but the heap would not give it
        throw std::runtime_error(name + ": the tab could not give " + wl::byte_size_text(double(size)) + " for the file's bytes (" +
                                 wl::byte_size_text(double(memory_use().available())) + " of " +
                                 wl::byte_size_text(double(memory_use().ceiling)) + " free)");
    }
    weights_read_ = std::move(r);
    return {{"id", weights_read_->id}, {"ptr", uint64_t(reinterpret_cast<uintptr_t>(weights_read_->bytes.data()))},
            {"bytes", size}, {"need", to_json(need)}};
}

ModelWindow::WeightsRead& ModelWindow::weights_reading(uint64_t id) {
    if (!weights_read_ || weights_read_->id != id)
        throw std::invalid_argument("the weights file " + std::to_string(id) + " is no longer being read (another was opened, or it failed)");
    return *weights_read_;
}

json ModelWindow::load_weights(uint64_t id) {
    WeightsRead& r = weights_reading(id);
    if (r.read != r.bytes.size())
        throw std::invalid_argument(r.name + ": " + std::to_string(r.read) + " of its " + std::to_string(r.bytes.size()) + " bytes read");
    WeightsRead done = std::move(*weights_read_);
    weights_read_.reset();
    session_.stop_generation();
    if (!session_.compile_llmc(done.name, std::move(done.bytes), config_, mesh_w_, mesh_h_, compile_set()))
        throw std::runtime_error(session_.error());   // the last good compile stays loaded
    std::snprintf(checkpoint_, sizeof checkpoint_, "%s", done.name.c_str());   // Compile keeps these weights for another mesh
    compiled();
    return session_.plan_json();
}

void ModelWindow::rebuild_overlay() {
    overlay_ = colour_ && session_.plan() ? placement_overlay(*session_.plan(), *colour_) : PeOverlay{};
}

bool ModelWindow::forward(const std::string& prompt, int batch) {
    anim_.stop();
    replay_.stop();
    session_.stop_generation();   // one run on the mesh at a time: the forward replaces the cache
    if (!session_.forward(prompt, batch)) return false;
    timeline_.set(session_.last_forward()->run.timeline);
    timeline_overlay_key_.clear();
    return true;
}

bool ModelWindow::generate(const std::string& prompt, int tokens, const wl::gpt::SampleOptions& opt) {
    anim_.stop();
    replay_.stop();
    return session_.start_generation(prompt, tokens, opt);
}

void ModelWindow::open_kernel(const wl::model::PlannedOp& op) {
    const std::string text = session_.kernel_text(op.kernel);
    if (text.empty()) throw std::runtime_error("could not read kernels/" + op.kernel);
    if (open_in_editor) open_in_editor(op.kernel, text);
}

void ModelWindow::work_tick(double budget_ms) {
    const auto t0 = std::chrono::steady_clock::now();
    train_.tick(budget_ms / 1000.0);
    tick_jobs(budget_ms - std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

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
        if (train_overlay_key(w) != train_overlay_key_ || train_overlay_.mesh.size() == 0) {
            train_overlay_ = train_overlay_for(w);
            train_overlay_key_ = train_overlay_key(w);
        }
        if (!colour_) return nullptr;
        shown_canvas_ = w ? train_overlay_key_ : "";
        return &train_overlay_;
    }
    if (replay_.active()) {   // the replay's launches working now, in cycle mode
        if (const std::string key = "replay " + std::to_string(replay_.cycles()); key != timeline_overlay_key_) {
            const std::vector<wl::model::LaunchSpan> working = replay_.in_flight();
            timeline_overlay_ = timeline_overlay(*session_.plan(), working, working.empty() ? 0 : working.front().end - 1);
            timeline_overlay_.legend.title = "cycle mode, cycle " + wl::thousands(replay_.cycles()) + ": the ops working, by chunk";
            timeline_overlay_key_ = key;
        }
        return &timeline_overlay_;
    }
    if (session_.compiled() && session_.last_forward() && !anim_.active() && timeline_.cursor()) {   // the ops working at the cursor
        if (const std::string key = "cursor " + std::to_string(*timeline_.cursor()); key != timeline_overlay_key_) {
            timeline_overlay_ = timeline_overlay(*session_.plan(), timeline_.spans(), *timeline_.cursor());
            timeline_overlay_key_ = key;
        }
        return &timeline_overlay_;
    }
    return colour_ && session_.compiled() && !anim_.active() ? &overlay_ : nullptr;
}

void ModelWindow::frame(MeshCanvas& canvas) {
    shown_panel_.clear();   // draw_train sets it if it draws the training's activity
    shown_bar_.reset();
    shown_guide_.reset();
    guide_hovered_.clear();
    // Generation: one token at least, then more while this frame's budget lasts.
    const auto t0 = std::chrono::steady_clock::now();
    while (session_.step())
        if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() > kStepBudgetMs) break;
    anim_.tick(ImGui::GetIO().DeltaTime, kStepBudgetMs);
    replay_.tick(ImGui::GetIO().DeltaTime, kStepBudgetMs);
#ifndef __EMSCRIPTEN__
    if (std::optional<std::string> path = weights_dialog_.poll()) {   // the desktop's dialog closed: a file, or a cancel
        weights_error_ = weights_dialog_.error();
        if (!path->empty() && path->size() < sizeof checkpoint_) {
            std::snprintf(checkpoint_, sizeof checkpoint_, "%s", path->c_str());
            compile();
        } else if (path->size() >= sizeof checkpoint_) {
            weights_error_ = "the path is too long (" + std::to_string(path->size()) + " bytes; at most " + std::to_string(sizeof checkpoint_ - 1) + ")";
        }
    }
    if (std::optional<std::string> path = text_dialog_.poll()) {
        if (!text_dialog_.error().empty()) train_notice_ = text_dialog_.error();
        if (!path->empty() && path->size() < sizeof text_path_) {
            std::snprintf(text_path_, sizeof text_path_, "%s", path->c_str());
            load_text_file();
        }
    }
#endif
    timeline_.tick(ImGui::GetIO().DeltaTime);
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

// [SECTION] JS hook

using wl::NumberRange;

void ModelWindow::take_settings(const json& a, const std::string& set_default) {
    const std::string config = str_arg(a, "config", config_);
    int mw = mesh_w_, mh = mesh_h_;
    parse_mesh(str_arg(a, "mesh", mesh_text(mesh_w_, mesh_h_)), &mw, &mh);
    const wl::gpt::Execution execution = execution_arg(a).value_or(streaming_ ? wl::gpt::Execution::Streaming : wl::gpt::Execution::Resident);
    config_ = config, mesh_w_ = mw, mesh_h_ = mh;
    set_ = str_arg(a, "set", set_default);
    streaming_ = execution == wl::gpt::Execution::Streaming;
    if (flag_arg(a, "show", false)) open = true;
}

void ModelWindow::need_compiled() const {
    if (!session_.compiled()) throw std::invalid_argument("no model is compiled: model_compile() first");
}

// The model_* rows of the app's one method table (ui/app_methods.cpp takes them from here;
// `params` is that table's grammar).
const std::vector<ModelWindow::Method>& ModelWindow::methods() {
    static const std::vector<Method> table = {
        {"model_compile", "config=\"gpt-nano\" mesh=\"32x32\" ...options", false, [](ModelWindow& w, const json& a) {
             const std::string ck = str_arg(a, "checkpoint", "");
             if (ck.size() >= sizeof w.checkpoint_) throw std::invalid_argument("'checkpoint' is too long");
             w.take_settings(a, "");
             std::snprintf(w.checkpoint_, sizeof w.checkpoint_, "%s", ck.c_str());
             w.no_cache_ = flag_arg(a, "no_cache", false);
             if (!w.compile()) throw std::runtime_error(w.session_.error());
             return w.session_.plan_json();
         }},
        // The page's openWeightsFile (web/waferlab-api.js): the file's header and size, checked
        // (ModelSession::check_llmc) before a buffer of the file's size is made; then its bytes a
        // chunk at a time, written by the page where chunk says; then load, or cancel with the
        // page's own failure (a read, GPT-2's tokenizer files). The settings are the window's
        // unless given, as model_compile's.
        {"model_weights_open", "{options}", false, [](ModelWindow& w, const json& a) {   // {name, size, head: [bytes], config, mesh, set, execution, show}
             const std::string name = str_arg(a, "name");
             if (name.empty() || name.size() >= sizeof w.checkpoint_) throw std::invalid_argument("'name' must be 1 to 511 bytes");
             const uint64_t size = uint64_t(int_arg(a, "size", NumberRange::closed(0, 1e15)));
             if (!a.contains("head") || !a["head"].is_array() || a["head"].size() > 1024)
                 throw std::invalid_argument("'head' must be the file's first bytes (at most 1,024), as numbers");
             std::string head;
             for (const json& b : a["head"]) head += char(int_value(b, "head", NumberRange::closed(0, 255)));
             w.take_settings(a, w.set_);
             return w.open_weights(name, head, size);
         }, true, true},
        {"model_weights_chunk", "id at bytes", false, [](ModelWindow& w, const json& a) {   // where the page writes bytes [at, at + bytes)
             WeightsRead& r = w.weights_reading(uint64_t(int_arg(a, "id", NumberRange::closed(0, 1e15))));
             const uint64_t at = uint64_t(int_arg(a, "at", NumberRange::closed(0, 1e15)));
             const uint64_t n = uint64_t(int_arg(a, "bytes", NumberRange::closed(0, 1e15)));
             if (at != r.read || n > r.bytes.size() - at)
                 throw std::invalid_argument("bytes " + std::to_string(at) + ".." + std::to_string(at + n) + " of " + r.name + ": " +
                                             std::to_string(r.read) + " of " + std::to_string(r.bytes.size()) + " are read, in order");
             r.read = at + n;
             return json{{"ptr", uint64_t(reinterpret_cast<uintptr_t>(r.bytes.data() + at))}};
         }, true, true},
        {"model_weights_load", "id", false, [](ModelWindow& w, const json& a) {
             return w.load_weights(uint64_t(int_arg(a, "id", NumberRange::closed(0, 1e15))));
         }, true, true},
        {"model_weights_cancel", "id error", false, [](ModelWindow& w, const json& a) {   // the read stops; `error` is said in the window
             const uint64_t id = uint64_t(int_arg(a, "id", NumberRange::closed(0, 1e15), 0));
             if (!w.weights_read_ || id == 0 || w.weights_read_->id == id) {   // not a read another open replaced
                 w.weights_read_.reset();
                 w.weights_error_ = str_arg(a, "error", "");
             }
             return w.state()["weights"];
         }, true, true},
        {"model_stages", "", false, [](ModelWindow& w, const json&) {
             w.need_compiled();
             json out = json::array();
             for (const PlanStage& s : w.stages_)
                 out.push_back({{"title", s.title}, {"summary", s.summary}, {"columns", s.columns}, {"rows", s.rows}});
             return out;
         }},
        {"model_forward", "prompt ...options", false, [](ModelWindow& w, const json& a) {   // {batch}: the prompt that many times
             w.need_compiled();
             const int batch = w.batch_ = int(int_arg(a, "batch", NumberRange::closed(1, ModelSession::kMaxBatch), w.batch_));   // the field says it
             if (!w.forward(str_arg(a, "prompt", w.prompt_), batch)) throw std::runtime_error(w.session_.error());
             return to_json(*w.session_.last_forward());
         }},
        // The last pipelined forward again in cycle mode on the canvas: {start: true}, {speed} cycles a
        // second, {to_end: true}, {stop: true}. Returns state().model.replay.
        {"model_replay", "{options}", false, [](ModelWindow& w, const json& a) {
             w.need_compiled();
             if (flag_arg(a, "stop", false)) {
                 w.replay_.stop();
                 return json(nullptr);
             }
             if (flag_arg(a, "start", false)) w.start_replay();
             if (!w.replay_.active()) throw std::invalid_argument("no replay: pass start: true");
             if (a.is_object() && a.contains("speed")) w.replay_.set_speed(real_arg(a, "speed", NumberRange::closed(256, 1e8)));
             if (flag_arg(a, "to_end", false)) w.replay_.to_end();
             return w.replay_json();
         }},
        {"model_schedule", "schedule", false, [](ModelWindow& w, const json& a) {   // "sequential" | "pipelined": the next forward's
             w.need_compiled();
             wl::model::Schedule s;
             if (!wl::model::schedule_from_name(str_arg(a, "schedule"), &s)) throw std::invalid_argument("'schedule' is sequential or pipelined");
             if (s == wl::model::Schedule::Pipelined && w.session_.plan()->streaming)
                 throw std::invalid_argument("streaming execution runs one op at a time: compile it resident to pipeline it");
             w.session_.set_schedule(s);
             return w.state();
         }},
        // The last forward's timeline: {cycle} puts the cursor there (the canvas lights the ops
        // working then), {clear: true} takes it away, {play: true|false} runs it along, {seconds}
        // sets Play's time for the whole forward.
        {"model_timeline", "{options}", false, [](ModelWindow& w, const json& a) {
             if (!w.session_.last_forward() || w.timeline_.empty()) throw std::invalid_argument("no forward to draw: model_forward() first");
             if (flag_arg(a, "clear", false)) w.timeline_.set_cursor(std::nullopt), w.timeline_.play(false);
             if (a.is_object() && a.contains("seconds")) w.timeline_.set_play_seconds(real_arg(a, "seconds", NumberRange::closed(0.5, 600)));
             if (a.is_object() && a.contains("cycle"))
                 w.timeline_.set_cursor(uint64_t(real_arg(a, "cycle", NumberRange::closed(0, double(w.timeline_.end())))));
             if (a.is_object() && a.contains("play")) w.timeline_.play(flag_arg(a, "play", false));
             return w.timeline_json();
         }},
        {"model_generate", "{options}", true, [](ModelWindow& w, const json& a) {
             w.need_compiled();
             wl::gpt::SampleOptions opt;
             opt.temperature = float(real_arg(a, "temperature", NumberRange::closed(0, 100), 1.0));
             opt.top_k = int(int_arg(a, "top_k", NumberRange::closed(0, 1e9), 0));
             opt.seed = uint64_t(int_arg(a, "seed", NumberRange::closed(0, 9e15), 1337));
             const int n = int(int_arg(a, "tokens", NumberRange::closed(0, 100000), 20));
             if (!w.generate(str_arg(a, "prompt", w.prompt_), n, opt)) throw std::runtime_error(w.session_.error());
             return to_json(w.session_.generation());
         }},
        {"model_generation", "{options}", false, [](ModelWindow& w, const json& a) {   // the generation so far; check: the reference's tokens beside it
             json j = to_json(w.session_.generation());
             if (flag_arg(a, "check", false) && !w.session_.generation().running()) {
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
             const int x = int(int_arg(a, "x", NumberRange::closed(0, m.w - 1), 0)), y = int(int_arg(a, "y", NumberRange::closed(0, m.h - 1), 0));
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
             if (flag_arg(a, "stop", false)) {
                 w.anim_.stop();
             } else {
                 if (a.is_object() && a.contains("op")) w.animate(str_arg(a, "op", ""));
                 if (!w.anim_.active()) throw std::invalid_argument("no op is animating: pass 'op'");
                 if (a.is_object() && a.contains("speed")) w.anim_.set_speed(real_arg(a, "speed", NumberRange::closed(1, 1e7)));
                 if (flag_arg(a, "to_end", false)) w.anim_.to_end();
             }
             return w.state()["animation"];
         }},
        {"model_density", "{options}", false, [](ModelWindow& w, const json& a) {   // {start: true} sweeps the compiled model; {cancel: true} stops it
             if (flag_arg(a, "start", false) && flag_arg(a, "cancel", false)) throw std::invalid_argument("'start' or 'cancel', not both");
             if (flag_arg(a, "start", false)) {
                 w.start_sweep();
                 w.open = w.sweep_open_ = true;
             }
             if (flag_arg(a, "cancel", false)) {
                 if (!w.sweeping()) throw std::invalid_argument("no density sweep is running");
                 w.sweep_cancelled_ = true;
             }
             return w.sweep_json();
         }},
        {"model_execution", "{options}", false, [](ModelWindow& w, const json& a) {   // {start: true} compares resident with streaming; {cancel: true} stops it
             if (flag_arg(a, "start", false) && flag_arg(a, "cancel", false)) throw std::invalid_argument("'start' or 'cancel', not both");
             if (flag_arg(a, "start", false)) {
                 w.start_compare();
                 w.open = w.compare_open_ = true;
             }
             if (flag_arg(a, "cancel", false)) {
                 if (!w.comparing()) throw std::invalid_argument("no comparison is running");
                 w.compare_cancelled_ = true;
             }
             return w.compare_json();
         }},
        {"train_start", "{options}", false, [](ModelWindow& w, const json& a) {   // {config, mesh, steps, eval_every, sample_every, sample_tokens, temperature, set, execution, wafers}
             w.config_ = str_arg(a, "config", w.config_);
             parse_mesh(str_arg(a, "mesh", mesh_text(w.mesh_w_, w.mesh_h_)), &w.mesh_w_, &w.mesh_h_);
             TrainSettings& s = w.train_set_;
             s.steps = int_arg(a, "steps", NumberRange::closed(1, 1e7), s.steps);
             s.eval_every = int(int_arg(a, "eval_every", NumberRange::closed(1, 1e7), s.eval_every));
             s.sample_every = int(int_arg(a, "sample_every", NumberRange::closed(1, 1e7), s.sample_every));
             s.sample_tokens = int(int_arg(a, "sample_tokens", NumberRange::closed(0, 10000), s.sample_tokens));
             s.temperature = float(real_arg(a, "temperature", NumberRange::closed(0, 100), s.temperature));
             s.set = str_arg(a, "set", "");
             if (has_arg(a, "execution")) s.execution = execution_arg(a);   // the Train section's weights combo; "": the config's
             s.wafers = int(int_arg(a, "wafers", NumberRange::closed(1, wl::model::SwarmX::kMaxWafers), s.wafers));
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
            {"execution", wl::gpt::execution_name(streaming_ ? wl::gpt::Execution::Streaming : wl::gpt::Execution::Resident)},   // the weights combo: the next compile's
            {"compiled", session_.compiled()},
            {"compiled_mesh", session_.compiled() ? json(mesh_text(session_.plan()->mesh_w, session_.plan()->mesh_h)) : json(nullptr)},
            {"model", session_.model_source()},
            {"error", session_.error().empty() ? json(nullptr) : json(session_.error())},
            {"weights", {{"file", checkpoint_[0] ? json(checkpoint_) : json(nullptr)},   // the next Compile's: a checkpoint, llm.c's weights
                         {"reading", weights_read_ ? json{{"name", weights_read_->name}, {"bytes", weights_read_->bytes.size()},
                                                          {"read", weights_read_->read}}
                                                   : json(nullptr)},
                         {"error", weights_error_.empty() ? json(nullptr) : json(weights_error_)}}},
            {"on_canvas", on_canvas()},
            {"colour", colour_ ? placement_colour_name(*colour_) : "canvas"},
            {"schedule", wl::model::schedule_name(session_.schedule())},   // the next forward's
            {"timeline", timeline_json()},
            {"replay", replay_json()},
            {"hovered", pe(hovered_)},
            {"selected", pe(selected_)},
            {"generation", {{"running", g.running()}, {"made", g.made()}, {"tokens", g.wanted}}},
            {"train", {{"status", TrainSession::status_name(train_.status())}, {"step", train_.step()}, {"on_canvas", training_shown() && on_canvas()},
                       {"shown", {{"canvas", on_canvas() ? shown_canvas_ : ""}, {"panel", shown_panel_},
                                  {"bar", shown_bar_ ? json(*shown_bar_) : json(nullptr)}}},
                       {"guide", shown_guide_ ? json{{"op", shown_guide_->op}, {"phase", shown_guide_->phase}, {"now", shown_guide_->now},
                                                     {"row", shown_guide_->row}, {"why", shown_guide_->why}, {"loss", shown_guide_->loss},
                                                     {"hovered_term", guide_hovered_.empty() ? json(nullptr) : json(guide_hovered_)}}
                                              : json(nullptr)}}},
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
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("the emulated mesh the model is compiled for (each PE has %s of SRAM)", format_bytes(wl::kSramBytesPerPe).c_str());
    mark("mesh");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    const char* const executions[] = {wl::gpt::execution_name(wl::gpt::Execution::Resident), wl::gpt::execution_name(wl::gpt::Execution::Streaming)};
    int e = streaming_ ? 1 : 0;
    if (ImGui::Combo("weights", &e, executions, 2)) streaming_ = e == 1;
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("resident: every layer on its own PEs, its weights in their SRAM.\nstreaming: one layer's ops serve "
                          "every layer, each layer's weights streamed in over the mesh's edge (docs/weight-streaming.md)");
    mark("execution");
#ifndef __EMSCRIPTEN__
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    ImGui::InputTextWithHint("##checkpoint", "checkpoint or llm.c .bin (optional)", checkpoint_, sizeof checkpoint_);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("a checkpoint from waferlab-cli train, or GPT-2's weights in llm.c's file (gpt2_124M.bin, with the config's\n"
                          "shape: models/gpt2-small.yaml): its weights instead of the seed's");
    ImGui::SameLine();
    ImGui::BeginDisabled(weights_dialog_.running());
    if (ImGui::Button("Open...")) {
        std::string why;
        weights_error_.clear();
        if (!weights_dialog_.open("Open a checkpoint or llm.c's weights", {"*.bin", "*.ckpt"}, &why)) weights_error_ = why;
    }
    ImGui::EndDisabled();
    mark("open_weights");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("the desktop's file dialog: the file chosen goes in the field and compiles with the config and mesh picked");
#endif
    ImGui::SameLine();
    if (ImGui::Button("Compile")) compile();
    mark("compile_button");
#ifndef __EMSCRIPTEN__
    if (!weights_error_.empty()) wrapped_text(kErrorText, weights_error_.c_str());
#endif
#ifdef __EMSCRIPTEN__
    draw_weights();
#endif
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

// The web's Open weights...: the weights the next Compile keeps, the read going on, the page's failure.
void ModelWindow::draw_weights() {
    if (ImGui::Button("Open weights...") && pick_weights_file) pick_weights_file();
    mark("open_weights");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("GPT-2's weights in llm.c's file (gpt2_124M.bin, with the config's shape: models/gpt2-small.yaml), read\n"
                          "into this tab and compiled for the config and mesh above. The tab's memory grows up to %s; the\n"
                          "weights are held as f32, the file's bytes and the model at once while they load. A file the tab\n"
                          "cannot hold is refused before it is read, saying how much it needs and how much the tab has.",
                          wl::byte_size_text(double(memory_use().ceiling)).c_str());
    ImGui::SameLine();
    if (checkpoint_[0]) {
        ImGui::TextDisabled("Compile keeps %s's weights", checkpoint_);
        ImGui::SameLine();
        if (ImGui::SmallButton("use the seed's")) checkpoint_[0] = 0;
        mark("weights_seed");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("the next Compile makes the config's weights from its seed instead");
    } else {
        ImGui::TextDisabled("GPT-2's weights (llm.c's .bin) instead of the seed's");
    }
    if (weights_read_) {
        const WeightsRead& r = *weights_read_;
        const std::string label = "reading " + r.name + ": " + wl::byte_size_text(double(r.read)) + " of " +
                                  wl::byte_size_text(double(r.bytes.size()));
        ImGui::ProgressBar(r.bytes.empty() ? 1.0f : float(double(r.read) / double(r.bytes.size())), ImVec2(-1, 0), label.c_str());
        mark("weights_progress");
    } else if (!weights_error_.empty()) {
        wrapped_text(kErrorText, weights_error_.c_str());
        mark("weights_error");
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
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 19);
    ImGui::InputText("##prompt", prompt_, sizeof prompt_);
    mark("prompt");
    ImGui::SameLine();
    const bool streamed = session_.plan()->streaming;
    int sched = int(session_.schedule());
    const char* const schedules[] = {wl::model::schedule_name(wl::model::Schedule::Sequential),
                                     wl::model::schedule_name(wl::model::Schedule::Pipelined)};
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    ImGui::BeginDisabled(streamed);
    if (ImGui::Combo("##schedule", &sched, schedules, 2)) session_.set_schedule(wl::model::Schedule(sched));
    ImGui::EndDisabled();
    mark("schedule");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(streamed ? "streaming execution runs one op at a time: one layer's ops serve every layer"
                                   : "sequential: one op at a time, each over the whole window.\npipelined: the window cut into chunks "
                                     "of about 8 steps, op k on chunk c while op k+1 works on chunk c-1:\nfewer emulated cycles, but more, shorter "
                                     "vector ops for this computer to emulate (a training step 5 to 6 times as long)\n"
                                     "(wafer.schedule; docs/model-compiler.md, \"Pipelined execution\")");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 2);
    if (ImGui::InputInt("seqs##batch", &batch_, 0, 0)) batch_ = std::clamp(batch_, 1, ModelSession::kMaxBatch);
    mark("batch");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("sequences: the prompt this many times, as a batch; pipelined, they stream through the ops one after another");
    ImGui::SameLine();
    ImGui::BeginDisabled(session_.generation().running());
    if (ImGui::Button("Forward##run")) forward(prompt_, batch_);   // ##run: the section's header is "Forward" too (one ID would take both)
    ImGui::EndDisabled();
    mark("forward_button");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("one forward pass over the prompt on the mesh (fast mode), then the reference's, logit by logit");
    const ForwardReport* report = session_.last_forward();
    if (!report) return;
    const wl::model::ForwardRecord* f = &report->run;
    const double wafer_s = double(f->cycles) / wl::kClockHz;
    const std::string shape = f->B > 1 ? std::to_string(f->B) + " sequences of T = " + std::to_string(f->T) : "T = " + std::to_string(f->T);
    ImGui::TextWrapped("%s: %llu cycles (estimated in fast mode) = %s at %.2f GHz; wall %s on the mesh, %s reference", shape.c_str(),
                       (unsigned long long)f->cycles, format_seconds(wafer_s).c_str(), wl::kClockHz / 1e9,
                       format_seconds(f->mesh_seconds).c_str(), format_seconds(f->reference_seconds).c_str());
    ImGui::TextColored(f->identical == f->logits ? kGoodText : kWarnText, "logits: %zu of %zu bit-identical to the reference (max |diff| %.3g)",
                       f->identical, f->logits, f->max_abs_diff);
    mark("logits_check");
    const uint64_t stream_bytes = f->stream_bytes, stream_cycles = f->stream_cycles;
    if (stream_bytes)
        ImGui::TextWrapped("weights streamed in over the mesh's edge: %llu bytes, %llu of the %llu cycles (%.0f%%): a layer "
                           "waits for its largest op's weights at %.3f bytes a cycle per edge link (docs/weight-streaming.md)",
                           (unsigned long long)stream_bytes, (unsigned long long)stream_cycles, (unsigned long long)f->cycles,
                           100.0 * double(stream_cycles) / double(std::max<uint64_t>(f->cycles, 1)),
                           wl::model::EdgeLink::wse2().bytes_per_cycle);
    draw_timeline();
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
    } else if (ImGui::Button("Generate##run")) {   // ##run: not the section header's ID
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
                           g.cycles_per_token(), format_seconds(g.cycles_per_token() / wl::kClockHz).c_str(),
                           wl::kClockHz / 1e9, format_seconds(g.wall_seconds).c_str(), g.tokens_per_second());
        mark("generation_stats");
    }
}

}  // namespace wlui
