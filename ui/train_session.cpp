// train_session.cpp: see train_session.h.
#include "ui/train_session.h"

#include "engine/core/atomic_file.h"
#include "engine/core/json_text.h"
#include "engine/core/output_guard.h"
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/corpus.h"
#include "engine/gpt/tokenizer_char.h"
#include "engine/gpu/wafer_estimate.h"
#include "engine/model/fit_advice.h"
#include "engine/model/mesh_plan.h"
#include "ui/frame_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

namespace wlui {

using Clock = std::chrono::steady_clock;

// A char-level model's text may split a multi-byte character: invalid UTF-8 becomes U+FFFD, so
// that dumping the JSON never throws.
static nlohmann::json utf8(const std::string& s) {
    return nlohmann::json::parse(wl::json_text(nlohmann::json(s)));
}

const char* TrainSession::status_name(Status s) {
    static const char* kNames[] = {"idle", "running", "pausing", "paused", "done", "failed", "starting"};
    return kNames[int(s)];
}

// [SECTION] the user's text

std::string check_train_text(const std::string& name, const std::string& text) {
    if (text.empty()) return name + " is empty: there is nothing to train on";
    if (text.size() > kMaxTrainTextBytes)
        return name + " is too big to train on here (" + std::to_string(text.size() >> 20) + " MiB; at most " +
               std::to_string(kMaxTrainTextBytes >> 20) + " MiB)";
    return wl::gpt::binary_text(name, text);
}

// What a start builds aside, in this order, a unit a tick: the corpus, the model (the trainer,
// its tokenizer and data), plan_model's steps, the mesh's loading.
struct TrainSession::Starting {
    enum class Stage { Corpus, Model, Plan, Advice, Warm, Load };
    TrainSettings s;
    wl::gpt::GPTConfig cfg;
    std::optional<std::string> text;   // the user's text when the start was asked for
    std::string text_name;
    Stage stage = Stage::Corpus;
    std::optional<wl::gpt::Corpus> corpus;
    std::unique_ptr<wl::gpt::Trainer> tr;
    wl::model::KernelSource kernels;              // models/kernels, for the plan and the advice
    std::optional<wl::model::PlanBuilder> plan;
    std::string too_big;                          // a plan that did not fit: its error, while the advice is tried
    std::optional<wl::model::FitAdvisor> advice;
    std::optional<wl::model::MeshPlan> planned;   // between the plan and the last wafer's loading
    std::unique_ptr<uint8_t[]> warm;   // the heap's pages the machine will take, touched a slice a unit
    size_t warm_bytes = 0, warm_done = 0;
    std::vector<std::unique_ptr<wl::model::MeshTrainer>> meshes;   // the wafers made so far; the last one loading
};

// WebAssembly's memory costs a page fault the first time a page is touched: 0.25-0.47 s for 48 MiB
// under node here, and 0.9 s in the page (the DevTools sampler: memset in the Machine's calloc of
// a 32x32 mesh's SRAM, in one unit). So before the machine is made, a block of its size is taken
// from the heap, touched a slice a unit and given back; the machine's calloc then reuses those
// pages (dlmalloc's top chunk), already faulted in. Natively glibc maps such a block afresh and
// unmaps it on free, so the touching would be lost: it is on in WebAssembly only (set_warm_heap).
#ifdef __EMSCRIPTEN__
constexpr bool kWarmDefault = true;
#else
constexpr bool kWarmDefault = false;
#endif
constexpr size_t kWarmSlice = 1u << 20;   // bytes touched a unit

TrainSession::TrainSession(std::string models_dir) : dir_(std::move(models_dir)), warm_heap_(kWarmDefault) {}
TrainSession::~TrainSession() = default;

bool TrainSession::set_text(const std::string& name, const std::string& text) {
    const std::string why = check_train_text(name, text);
    if (!why.empty()) {
        error_ = why;
        return false;
    }
    error_.clear();
    text_ = text;
    text_name_ = name;
    text_info_ = CorpusInfo{name, text.size(), wl::gpt::CharTokenizer::from_text(text).vocab_size()};
    return true;
}

// [SECTION] units in words

// [SECTION] runs

bool TrainSession::start(const TrainSettings& s) {
    try {
        if (s.steps < 1 || s.eval_every < 1 || s.sample_every < 1 || s.sample_tokens < 0)
            throw std::invalid_argument("steps, eval_every and sample_every must be >= 1");
        if (s.wafers < 1 || s.wafers > wl::model::SwarmX::kMaxWafers)
            throw std::invalid_argument("wafers must be 1 to " + std::to_string(wl::model::SwarmX::kMaxWafers) + ", got " +
                                        std::to_string(s.wafers));
        wl::gpt::GPTConfig cfg = wl::gpt::load_config(config_path(s.config));
        wl::gpt::apply_overrides(cfg, s.set, "set");
        if (s.execution) cfg.execution = *s.execution;
        cfg.max_iters = int(s.steps);   // as the CLI's --steps; the schedule's other keys stay the config's
        if (text_) cfg.corpus = "file", cfg.data = text_name_;
        cfg.validate("config");         // as the trainer will, before its corpus is built
        const std::string split = wl::model::SwarmX::split_error(wl::gpt::sequences_per_step(cfg), s.wafers);
        if (!split.empty()) throw std::invalid_argument(split + "; a step's B is batch_size x grad_accum_steps");
        auto st = std::make_unique<Starting>();
        st->s = s;
        st->cfg = cfg;
        st->text = text_;
        st->text_name = text_name_;
        if (!starting_) before_ = status_;   // a start asked for during a start replaces it
        starting_ = std::move(st);
        start_units_ = 0;
        status_ = Status::Starting;
        error_.clear();
        return true;
    } catch (const std::exception& e) {
        error_ = e.what();
        return false;
    }
}

// One unit of the start. Everything is built in starting_, aside: the current run is not touched
// until commit(). A failure ends the start: error(), and the status goes back to the run's.
bool TrainSession::start_unit() {
    Starting& st = *starting_;
    start_units_++;
    try {
        switch (st.stage) {
        case Starting::Stage::Corpus:
            st.corpus = st.text ? wl::gpt::corpus_from_text(st.text_name, *st.text, st.cfg) : wl::gpt::make_corpus(st.cfg);
            st.stage = Starting::Stage::Model;
            return true;
        case Starting::Stage::Model:
            st.tr = std::make_unique<wl::gpt::Trainer>(st.cfg, std::move(*st.corpus));
            st.corpus.reset();
            st.kernels = wl::model::read_kernels(dir_ + "/kernels");
            // GPT-2's vocabulary trains streamed, as the CLI's train (fit_advice.h), unless the settings say.
            if (!st.s.execution && wl::model::trains_only_streamed(st.tr->cfg, wl::MachineConfig{}.sram_bytes))
                st.tr->cfg.execution = wl::gpt::Execution::Streaming;
            st.plan.emplace(st.tr->cfg, st.s.mesh_w, st.s.mesh_h, st.kernels, wl::MachineConfig{}.sram_bytes, /*train=*/true);
            st.stage = Starting::Stage::Plan;
            return true;
        case Starting::Stage::Plan: {
            if (st.plan->step()) return true;
            wl::model::PlanResult r = st.plan->take();
            st.plan.reset();
            if (r.too_big) {   // what would fit is tried in units too: a plan a remedy
                st.too_big = r.error;
                st.advice.emplace(st.tr->cfg, st.s.mesh_w, st.s.mesh_h, st.kernels, wl::MachineConfig{}.sram_bytes, true);
                st.stage = Starting::Stage::Advice;
                return true;
            }
            if (!r.ok) throw std::runtime_error(r.error);
            const wl::MachineConfig mc{r.plan.mesh_w, r.plan.mesh_h, r.plan.sram_bytes};
            st.planned = std::move(r.plan);
            st.warm_bytes = warm_heap_ ? size_t(mc.w) * size_t(mc.h) * (mc.sram_bytes + wl::Machine::state_bytes_per_pe()) : 0;
            st.warm_done = 0;
            if (st.warm_bytes) st.warm.reset(new uint8_t[st.warm_bytes]);   // not touched yet
            st.stage = Starting::Stage::Warm;
            return true;
        }
        case Starting::Stage::Advice:
            if (st.advice->step()) return true;
            throw std::runtime_error(st.too_big + st.advice->take());
        case Starting::Stage::Warm:
            if (st.warm_done < st.warm_bytes) {
                const size_t n = std::min(kWarmSlice, st.warm_bytes - st.warm_done);
                std::memset(st.warm.get() + st.warm_done, 0, n);
                st.warm_done += n;
                return true;
            }
            st.warm.reset();
            if (int(st.meshes.size()) + 1 < st.s.wafers)   // every wafer the same plan: a copy for all but the last
                st.meshes.push_back(std::make_unique<wl::model::MeshTrainer>(*st.planned, wl::RunMode::Fast, wl::model::MeshGPT::InSteps{}));
            else {
                st.meshes.push_back(std::make_unique<wl::model::MeshTrainer>(std::move(*st.planned), wl::RunMode::Fast, wl::model::MeshGPT::InSteps{}));
                st.planned.reset();
            }
            if (st.meshes.size() > 1 && st.meshes.back()->mesh().plan().streaming)
                st.meshes.back()->share_store(*st.meshes.front());   // one MemoryX for every wafer (swarmx.h)
            st.stage = Starting::Stage::Load;
            return true;
        case Starting::Stage::Load:
            if (st.meshes.back()->load_step(*st.tr->model)) return true;
            if (int(st.meshes.size()) < st.s.wafers) {   // the next wafer: its heap warmed, made, loaded
                st.warm_done = 0;
                if (st.warm_bytes) st.warm.reset(new uint8_t[st.warm_bytes]);
                st.stage = Starting::Stage::Warm;
                return true;
            }
            commit(st);
            starting_.reset();
            return true;
        }
    } catch (const std::exception& e) {
        starting_.reset();
        status_ = before_;
        error_ = e.what();
    }
    return false;
}

// Everything worked: the new run replaces the old one.
void TrainSession::commit(Starting& st) {
    swarm_ = std::make_unique<wl::model::SwarmX>(std::move(st.meshes));
    mesh_ = &swarm_->wafer(0);
    tr_ = std::move(st.tr);
    set_ = st.s;
    corpus_ = CorpusInfo{tr_->corpus.name, tr_->corpus.text.size(), tr_->tokenizer->vocab_size()};
    first_step_ = tr_->step;
    target_ = tr_->step + set_.steps;
    inputs_.assign(size_t(tr_->sequences_per_step()) * tr_->cfg.block_size, 0);
    targets_.assign(inputs_.size(), 0);
    losses_.clear();
    val_.clear();
    last_ = {};
    last_units_.clear();
    busy_.clear();
    mesh_seconds_ = run_seconds_ = 0;
    last_tick_.reset();
    sample_ = sample_next_ = {};
    eval_next_ = 0;   // the loss before training, and a sample of the untrained model
    eval_sum_ = 0;
    const std::string val = tr_->corpus.val();
    sample_next_.prompt = val.substr(0, std::min<size_t>(val.size(), 16));
    sample_next_.step = 0;
    sampling_ = set_.sample_tokens > 0;
    status_ = Status::Running;
    error_.clear();
    run_id_++;
}

bool TrainSession::cancel_start() {
    if (!starting_) return false;
    starting_.reset();
    status_ = before_;
    return true;
}

double TrainSession::start_progress() const {
    if (!starting_) return 0;
    const Starting& st = *starting_;
    if (st.stage == Starting::Stage::Plan) return st.plan->progress();
    if (st.stage == Starting::Stage::Warm) return st.warm_bytes ? double(st.warm_done) / double(st.warm_bytes) : 1.0;
    if (st.stage == Starting::Stage::Load) return double(st.meshes.back()->load_done()) / double(st.meshes.back()->load_total());
    return 0;
}

void TrainSession::pause() {
    if (status_ == Status::Running) status_ = stepping() ? Status::Pausing : Status::Paused;
    if (status_ == Status::Starting) status_ = Status::Paused;   // between two of the start's units
}

bool TrainSession::resume() {
    if (status_ != Status::Paused && status_ != Status::Pausing) return false;
    status_ = starting_ ? Status::Starting : Status::Running;
    return true;
}

void TrainSession::fail(const std::string& why) {
    error_ = why;
    status_ = Status::Failed;
}

void TrainSession::sync_model() {
    mesh_->read_params(&tr_->model->params_memory);
    mesh_->transfer(wl::model::MeshTrainer::State::Moment1, &tr_->opt.m, false);
    mesh_->transfer(wl::model::MeshTrainer::State::Moment2, &tr_->opt.v, false);
    tr_->opt.t = mesh_->updates();
}

// A wafer's busy cycles per PE so far (CoreStats::busy, row-major).
static std::vector<uint64_t> busy_of(const wl::model::MeshTrainer& t) {
    const wl::Machine& m = t.mesh().host().machine();
    const wl::Mesh mesh = m.mesh();
    std::vector<uint64_t> out(size_t(mesh.w) * size_t(mesh.h));
    for (int y = 0; y < mesh.h; y++)
        for (int x = 0; x < mesh.w; x++) out[size_t(y) * size_t(mesh.w) + size_t(x)] = m.core(x, y).stats.busy;
    return out;
}

std::vector<uint64_t> TrainSession::wafer_busy_now(int wafer) const {
    const size_t k = size_t(wafer);
    if (!stepping() || k >= busy0_.size()) return k < busy_.size() ? busy_[k] : std::vector<uint64_t>{};
    std::vector<uint64_t> b = busy_of(swarm_->wafer(wafer));
    for (size_t i = 0; i < b.size(); i++) b[i] -= busy0_[k][i];
    return b;
}

bool TrainSession::begin_next_step() {
    tr_->step_batches(tr_->step, inputs_.data(), targets_.data());   // grad_accum_steps micro-batches
    if (swarm_->begin_step(inputs_.data(), targets_.data(), tr_->sequences_per_step(), tr_->cfg.block_size, tr_->lr())) {
        step_units_.clear();
        busy0_.clear();
        for (int k = 0; k < swarm_->wafers(); k++) busy0_.push_back(busy_of(swarm_->wafer(k)));
        return true;
    }
    fail("step " + std::to_string(tr_->step + 1) + ": " + swarm_->error());
    return false;
}

void TrainSession::finish_step() {
    if (!swarm_->last_step().applied) {   // the wafers keep the weights from before it
        const float loss = swarm_->last_step().loss;
        fail("step " + std::to_string(tr_->step + 1) + ": the loss is " + (std::isnan(loss) ? "NaN" : "infinite") +
             ", so the step was not applied: the weights are step " + std::to_string(tr_->step) +
             "'s (a smaller learning rate, or clipping, usually helps; `waferlab-cli train --on-mesh` names the op where it first appears)");
        return;
    }
    last_ = swarm_->last_step();
    last_units_ = std::move(step_units_);
    step_units_.clear();
    busy_.assign(size_t(swarm_->wafers()), {});
    for (int k = 0; k < swarm_->wafers(); k++) {
        busy_[size_t(k)] = busy_of(swarm_->wafer(k));
        for (size_t i = 0; i < busy_[size_t(k)].size(); i++) busy_[size_t(k)][i] -= busy0_[size_t(k)][i];
    }
    tr_->step += 1;
    tr_->last_grad_norm = last_.grad_norm;
    losses_.push_back(last_.loss);
    mesh_seconds_ += last_.seconds;
    const int64_t done = tr_->step - first_step_;
    if (done % set_.eval_every == 0 || tr_->step == target_) eval_next_ = 0, eval_sum_ = 0;
    if (set_.sample_tokens > 0 && (done % set_.sample_every == 0 || tr_->step == target_)) {
        sample_next_.step = tr_->step;
        sampling_ = true;
    }
}

// Queues the next job that is due on the mesh, in this order: an evaluation batch (Trainer::
// eval_loss's, on the mesh), the sample, the step. False when nothing is due (done) or on a failure.
bool TrainSession::begin_next_job() {
    if (eval_next_ >= 0) {
        tr_->eval_batch(wl::gpt::Split::Val, eval_next_, inputs_.data(), targets_.data());
        if (mesh_->begin_eval(inputs_.data(), targets_.data(), tr_->cfg.batch_size, tr_->cfg.block_size)) return true;
        fail("validation loss at step " + std::to_string(tr_->step) + ": " + mesh_->error());
        return false;
    }
    if (sampling_) {
        const std::vector<int> prompt = tr_->tokenizer->encode(sample_next_.prompt);
        const wl::gpt::SampleOptions opt{set_.temperature, 0, tr_->cfg.seed};
        if (!prompt.empty() && mesh_->begin_sample(prompt, set_.sample_tokens, opt)) return true;
        if (prompt.empty()) {   // nothing to start from: no sample
            sampling_ = false;
            return begin_next_job();
        }
        fail("sample at step " + std::to_string(tr_->step) + ": " + mesh_->error());
        return false;
    }
    if (tr_->step >= target_) {
        status_ = Status::Done;
        return false;
    }
    return begin_next_step();
}

// A job's units all ran: its result into the session.
void TrainSession::finish_job(wl::model::MeshJob job) {
    if (job == wl::model::MeshJob::Step) {
        finish_step();
    } else if (job == wl::model::MeshJob::Eval) {
        eval_sum_ += mesh_->last_eval();
        if (++eval_next_ == tr_->cfg.eval_iters) {   // Trainer::eval_loss's mean
            val_.push_back({tr_->step, float(eval_sum_ / tr_->cfg.eval_iters)});
            eval_next_ = -1;
        }
    } else {
        const std::vector<int>& ids = mesh_->sampled();
        const size_t prompt = ids.size() - size_t(set_.sample_tokens);
        sample_next_.text = tr_->tokenizer->decode(std::vector<int>(ids.begin() + long(prompt), ids.end()));
        sample_ = sample_next_;
        sampling_ = false;
    }
}

// One unit: the next op launch of the job on the mesh (a step, an evaluation batch, a sample),
// or, between jobs, the next job queued. False when nothing is due, paused, or on a failure.
bool TrainSession::unit() {
    if (starting_) return start_unit();   // once started, the run's units follow in the same tick
    if (swarm_->stepping()) {   // a step: its wafers' shards, SwarmX's reduction, their updates
        const std::string u = wl::model::step_unit_text(swarm_->next_work(), swarm_->wafers(), true);
        if (!u.empty() && std::find(step_units_.begin(), step_units_.end(), u) == step_units_.end()) step_units_.push_back(u);
        if (!swarm_->run_slice(1)) {
            fail("step " + std::to_string(tr_->step + 1) + ": " + swarm_->error());
            return false;
        }
        if (!swarm_->stepping()) finish_step();
        if (status_ == Status::Failed) return false;   // a loss that is not finite
        if (status_ == Status::Pausing && !swarm_->stepping()) {
            status_ = Status::Paused;   // the step boundary; what finish_step scheduled runs after resume
            return false;
        }
        return true;
    }
    if (mesh_->busy()) {   // an evaluation batch or a sample, on wafer 0
        const wl::model::MeshJob job = mesh_->job();
        if (!mesh_->run_slice(1)) {
            const std::string what = job == wl::model::MeshJob::Step ? "step " + std::to_string(tr_->step + 1)
                                     : job == wl::model::MeshJob::Eval ? "validation loss at step " + std::to_string(tr_->step)
                                                                        : "sample at step " + std::to_string(tr_->step);
            fail(what + ": " + mesh_->error());
            return false;
        }
        if (!mesh_->busy()) finish_job(job);
        if (status_ == Status::Pausing) {
            status_ = Status::Paused;   // between two launches of an evaluation or a sample
            return false;
        }
        return true;
    }
    if (status_ == Status::Pausing) {
        status_ = Status::Paused;
        return false;
    }
    return begin_next_job();
}

// The next unit, by what it runs: the job, the phase and the op of the next launch (the same
// op's launch costs about the same each time), the start's stage, or the next job's beginning.
std::string TrainSession::unit_key() const {
    if (starting_) return "start " + std::to_string(int(starting_->stage));
    if (stepping()) {   // the same launch costs about the same on every wafer
        const wl::model::SwarmXWork sw = swarm_->next_work();
        const wl::model::TrainWork* w = sw.work;
        return std::string("step ") + wl::model::swarmx_stage_name(sw.stage) +
               (w ? std::string(" ") + wl::model::train_phase_name(w->phase) + " " + w->op : std::string());
    }
    const wl::model::TrainWork* w = mesh_ ? mesh_->next_work() : nullptr;
    if (!w) return "next job";
    return std::string(wl::model::mesh_job_name(mesh_->job())) + " " + wl::model::train_phase_name(w->phase) + " " + w->op;
}

void TrainSession::tick(double budget_s) {
    const bool active = running();
    const auto now = Clock::now();
    if (!active) {
        last_tick_.reset();
        return;
    }
    if (last_tick_ && !starting_) run_seconds_ += std::chrono::duration<double>(now - *last_tick_).count();
    last_tick_ = now;
    // Units while the budget lasts, at least one. A unit may end past the budget (by less than
    // itself), but not by more than the margin between the budget's frame period and the frame-rate
    // floor (frame_budget.h): one that the last run of its kind says would, waits for the next frame.
    const double slack = (FrameBudget::kFloorMs - FrameBudget::kPeriodMs) / 1000;
    try {
        for (bool first = true;; first = false) {
            const std::string key = unit_key();
            const auto cost = unit_seconds_.find(key);
            const double spent = std::chrono::duration<double>(Clock::now() - now).count();
            if (!first && (spent >= budget_s || spent + (cost == unit_seconds_.end() ? 0.0 : cost->second) > budget_s + slack)) break;
            const auto u0 = Clock::now();
            const bool more = unit();
            unit_seconds_[key] = std::chrono::duration<double>(Clock::now() - u0).count();
            if (!more) break;
        }
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::string TrainSession::config_path(const std::string& config) const {
    const bool is_path = config.find('/') != std::string::npos || config.find(".yaml") != std::string::npos;
    return is_path ? config : dir_ + "/" + config + ".yaml";
}

bool TrainSession::save(const std::string& path) {
    std::string bytes;
    if (!checkpoint(&bytes)) return false;
    try {   // never over the config, nor over anything but a checkpoint
        wl::guard_output({"the checkpoint's path", path}, wl::kCheckpointOutput, {{"the run's config", config_path(set_.config)}});
    } catch (const std::exception& e) {
        error_ = e.what();
        return false;
    }
    std::string why;   // a crash mid-save keeps the file as it was
    if (wl::write_file_atomically(path, bytes, &why)) return true;
    error_ = why;
    return false;
}

bool TrainSession::checkpoint(std::string* bytes) {
    if (!tr_) {
        error_ = "nothing to save: start training first";
        return false;
    }
    if (stepping()) {
        error_ = "the checkpoint is taken at a step boundary: pause first (training is mid-step)";
        return false;
    }
    sync_model();
    *bytes = wl::gpt::checkpoint_bytes(*tr_->model, &tr_->opt, tr_->step, tr_->tokenizer->kind(), tr_->tokenizer->state());
    return true;
}

// [SECTION] what it shows

std::string TrainSession::activity() const {
    if (starting_) {
        const Starting& st = *starting_;
        const int n = st.s.wafers;   // "the mesh", or with several wafers "wafer 2 of 4's mesh"
        auto wafer = [n](size_t k) { return n == 1 ? std::string("the ") : "wafer " + std::to_string(k + 1) + " of " + std::to_string(n) + "'s "; };
        switch (st.stage) {
        case Starting::Stage::Corpus: return "starting: preparing the corpus (" + (st.text ? st.text_name : st.cfg.corpus) + ")";
        case Starting::Stage::Model: return "starting: initialising the model (" + st.s.config + ")";
        case Starting::Stage::Plan: return "starting: " + st.plan->activity();
        case Starting::Stage::Advice: return "starting: it does not fit; " + st.advice->activity();
        case Starting::Stage::Warm:
            return "starting: reserving memory for " + wafer(st.meshes.size()) + "mesh: " + std::to_string(st.warm_done >> 20) +
                   " of " + std::to_string((st.warm_bytes + (1u << 20) - 1) >> 20) + " MiB";
        case Starting::Stage::Load:
            return "starting: loading " + wafer(st.meshes.size() - 1) + "mesh (programs, routes, weights): " +
                   std::to_string(st.meshes.back()->load_done()) + " of " + std::to_string(st.meshes.back()->load_total());
        }
    }
    if (!tr_) return "";
    if (stepping()) {   // wafer k's shard or update, or SwarmX's reduction between them
        const wl::model::SwarmXWork sw = swarm_->next_work();
        const int N = swarm_->wafers();
        std::string s = wl::model::step_unit_text(sw, N, false);
        if (sw.work && sw.work->sequence >= 0)
            s += ", sequence " + std::to_string(sw.work->sequence + 1) + " of " + std::to_string(tr_->sequences_per_step() / N);
        return s;
    }
    char b[160];
    const wl::model::TrainWork* w = mesh_->next_work();
    const std::string what = w ? wl::model::work_text(*w) : "";
    if (w && mesh_->job() == wl::model::MeshJob::Eval) {
        std::snprintf(b, sizeof b, "evaluating on the mesh: batch %d/%d, sequence %d/%d, %s", eval_next_ + 1, tr_->cfg.eval_iters,
                      std::max(w->sequence, 0) + 1, tr_->cfg.batch_size, what.c_str());
        return b;
    }
    if (w && mesh_->job() == wl::model::MeshJob::Sample) {
        std::snprintf(b, sizeof b, "sampling on the mesh: token %d/%d, %s", w->token + 1, set_.sample_tokens, what.c_str());
        return b;
    }
    return what;   // a step's units are the SwarmX's, above
}

double TrainSession::steps_per_s() const { return run_seconds_ > 0 ? double(losses_.size()) / run_seconds_ : 0.0; }
double TrainSession::tokens_per_s() const { return tr_ ? steps_per_s() * double(tr_->tokens_per_step()) : 0.0; }
double TrainSession::mesh_tokens_per_s() const {
    return tr_ && mesh_seconds_ > 0 ? double(losses_.size()) * double(tr_->tokens_per_step()) / mesh_seconds_ : 0.0;
}

const wl::model::TrainWork* TrainSession::next_work() const {
    if (stepping()) return swarm_->next_work().work;
    return mesh_ ? mesh_->next_work() : nullptr;
}

std::optional<double> TrainSession::job_progress() const {
    if (stepping()) return swarm_->progress();
    if (!mesh_ || !mesh_->busy()) return std::nullopt;
    return mesh_->work_total() ? double(mesh_->work_done()) / double(mesh_->work_total()) : 0.0;
}

// The last step: its time split into compute (of which streaming) and SwarmX's, and each wafer's part.
nlohmann::json TrainSession::last_json() const {
    nlohmann::json j = wl::model::to_json(last_);   // the engine's step record; each wafer's PEs added here
    for (size_t k = 0; k < last_.shards.size() && k < busy_.size(); k++) {
        uint64_t active = 0, busy = 0, most = 0;
        for (uint64_t b : busy_[k]) active += b > 0, busy += b, most = std::max(most, b);
        j["shards"][k]["pes_active"] = active;
        j["shards"][k]["busy_cycles"] = busy;
        j["shards"][k]["busy_max"] = most;
    }
    j["units"] = last_units_;
    return j;
}

nlohmann::json TrainSession::to_json() const {
    using nlohmann::json;
    json val = json::array();
    for (const EvalPoint& p : val_) val.push_back({{"step", p.step}, {"loss", p.loss}});
    const wl::model::TrainWork* w = next_work();
    auto corpus = [](const CorpusInfo& c) { return json{{"name", utf8(c.name)}, {"bytes", c.bytes}, {"vocab", c.vocab}}; };
    return {{"status", status_name(status_)},
            {"step", step()},
            {"target", target_},
            {"config", tr_ ? json(set_.config) : json(nullptr)},
            {"mesh", tr_ ? json(std::to_string(set_.mesh_w) + "x" + std::to_string(set_.mesh_h)) : json(nullptr)},
            {"corpus", tr_ ? corpus(corpus_) : json(nullptr)},
            {"text", text_info_ ? corpus(*text_info_) : json(nullptr)},
            {"losses", losses_},
            {"val_losses", val},
            {"steps_per_s", steps_per_s()},
            {"tokens_per_s", tokens_per_s()},
            {"mesh_tokens_per_s", mesh_tokens_per_s()},
            {"execution", tr_ ? json(wl::gpt::execution_name(streaming() ? wl::gpt::Execution::Streaming : wl::gpt::Execution::Resident)) : json(nullptr)},
            {"wafers", tr_ ? json(swarm_->wafers()) : json(nullptr)},
            {"last", losses_.empty() ? json(nullptr) : last_json()},
            {"activity", activity()},
            {"phase", w ? json(wl::model::train_phase_name(w->phase)) : json(nullptr)},
            {"op", w ? json(w->op) : json(nullptr)},
            {"progress", starting_ ? start_progress() : job_progress().value_or(0.0)},
            {"sample", sample_.step >= 0 ? json{{"step", sample_.step}, {"prompt", utf8(sample_.prompt)}, {"text", utf8(sample_.text)},
                                                {"by", "the mesh (the training plan's forward)"}}
                                         : json(nullptr)},
            {"error", error_.empty() ? json(nullptr) : json(error_)}};
}

}  // namespace wlui
