// train_session.cpp: see train_session.h.
#include "ui/train_session.h"

#include "engine/core/atomic_file.h"
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/tokenizer_char.h"
#include "engine/gpu/wafer_estimate.h"
#include "engine/model/fit_advice.h"
#include "engine/model/mesh_plan.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace wlui {

using Clock = std::chrono::steady_clock;

// A char-level model's text may split a multi-byte character: invalid UTF-8 becomes U+FFFD, so
// that dumping the JSON never throws.
static nlohmann::json utf8(const std::string& s) {
    return nlohmann::json::parse(nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

const char* TrainSession::status_name(Status s) {
    static const char* kNames[] = {"idle", "running", "pausing", "paused", "done", "failed"};
    return kNames[int(s)];
}

// [SECTION] the user's text

std::string check_train_text(const std::string& name, const std::string& text) {
    if (text.empty()) return name + " is empty: there is nothing to train on";
    if (text.size() > kMaxTrainTextBytes)
        return name + " is too big to train on here (" + std::to_string(text.size() >> 20) + " MiB; at most " +
               std::to_string(kMaxTrainTextBytes >> 20) + " MiB)";
    // Text has no NUL bytes and few control characters besides tab, newline and carriage return.
    size_t control = 0;
    for (unsigned char c : text) {
        if (c == 0) return name + " looks binary (it has NUL bytes): train on a text file";
        control += c < 32 && c != '\n' && c != '\r' && c != '\t';
    }
    if (control * 100 > text.size()) return name + " looks binary (" + std::to_string(control) + " control bytes): train on a text file";
    return "";
}

TrainSession::TrainSession(std::string models_dir) : dir_(std::move(models_dir)) {}

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

// [SECTION] runs

bool TrainSession::start(const TrainSettings& s) {
    try {
        if (s.steps < 1 || s.eval_every < 1 || s.sample_every < 1 || s.sample_tokens < 0)
            throw std::invalid_argument("steps, eval_every and sample_every must be >= 1");
        const bool is_path = s.config.find('/') != std::string::npos || s.config.find(".yaml") != std::string::npos;
        wl::gpt::GPTConfig cfg = wl::gpt::load_config(is_path ? s.config : dir_ + "/" + s.config + ".yaml");
        wl::gpt::apply_overrides(cfg, s.set, "set");
        cfg.max_iters = int(s.steps);   // as the CLI's --steps; the schedule's other keys stay the config's
        std::unique_ptr<wl::gpt::Trainer> tr;
        if (text_) {
            cfg.corpus = "file";
            cfg.data = text_name_;
            tr = std::make_unique<wl::gpt::Trainer>(cfg, wl::gpt::corpus_from_text(text_name_, *text_, cfg));
        } else {
            tr = std::make_unique<wl::gpt::Trainer>(cfg);
        }
        wl::model::PlanResult r = wl::model::plan_model(tr->cfg, s.mesh_w, s.mesh_h, wl::model::read_kernels(dir_ + "/kernels"),
                                                        wl::MachineConfig{}.sram_bytes, /*train=*/true);
        if (r.too_big) r.error += wl::model::fit_advice(tr->cfg, s.mesh_w, s.mesh_h, wl::model::read_kernels(dir_ + "/kernels"),
                                                        wl::MachineConfig{}.sram_bytes, true);
        if (!r.ok) throw std::runtime_error(r.error);
        auto mesh = std::make_unique<wl::model::MeshTrainer>(std::move(r.plan), *tr->model);
        // Everything worked: the new run replaces the old one.
        mesh_ = std::move(mesh);
        tr_ = std::move(tr);
        set_ = s;
        corpus_ = CorpusInfo{tr_->corpus.name, tr_->corpus.text.size(), tr_->tokenizer->vocab_size()};
        first_step_ = tr_->step;
        target_ = tr_->step + s.steps;
        inputs_.assign(size_t(tr_->sequences_per_step()) * tr_->cfg.block_size, 0);
        targets_.assign(inputs_.size(), 0);
        losses_.clear();
        val_.clear();
        last_ = {};
        mesh_seconds_ = run_seconds_ = 0;
        last_tick_.reset();
        sample_ = sample_next_ = {};
        eval_next_ = 0;   // the loss before training, and a sample of the untrained model
        eval_sum_ = 0;
        const std::string val = tr_->corpus.val();
        sample_next_.prompt = val.substr(0, std::min<size_t>(val.size(), 16));
        sample_next_.step = 0;
        sampling_ = s.sample_tokens > 0;
        status_ = Status::Running;
        error_.clear();
        return true;
    } catch (const std::exception& e) {
        error_ = e.what();
        return false;
    }
}

void TrainSession::pause() {
    if (status_ == Status::Running) status_ = mesh_->stepping() ? Status::Pausing : Status::Paused;
}

bool TrainSession::resume() {
    if (status_ != Status::Paused && status_ != Status::Pausing) return false;
    status_ = Status::Running;
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

bool TrainSession::begin_next_step() {
    tr_->step_batches(tr_->step, inputs_.data(), targets_.data());   // grad_accum_steps micro-batches
    if (mesh_->begin_step(inputs_.data(), targets_.data(), tr_->sequences_per_step(), tr_->cfg.block_size, tr_->lr())) return true;
    fail("step " + std::to_string(tr_->step + 1) + ": " + mesh_->error());
    return false;
}

void TrainSession::finish_step() {
    last_ = mesh_->last_step();
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
    if (mesh_->busy()) {
        const wl::model::MeshJob job = mesh_->job();
        if (!mesh_->run_slice(1)) {
            const std::string what = job == wl::model::MeshJob::Step ? "step " + std::to_string(tr_->step + 1)
                                     : job == wl::model::MeshJob::Eval ? "validation loss at step " + std::to_string(tr_->step)
                                                                        : "sample at step " + std::to_string(tr_->step);
            fail(what + ": " + mesh_->error());
            return false;
        }
        if (!mesh_->busy()) finish_job(job);
        if (status_ == Status::Pausing && !mesh_->stepping()) {
            status_ = Status::Paused;   // the step boundary; what finish_step scheduled runs after resume
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

void TrainSession::tick(double budget_s) {
    const bool active = status_ == Status::Running || status_ == Status::Pausing;
    const auto now = Clock::now();
    if (!active) {
        last_tick_.reset();
        return;
    }
    if (last_tick_) run_seconds_ += std::chrono::duration<double>(now - *last_tick_).count();
    last_tick_ = now;
    try {
        while (unit() && std::chrono::duration<double>(Clock::now() - now).count() < budget_s) {
        }
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

bool TrainSession::save(const std::string& path) {
    std::string bytes;
    if (!checkpoint(&bytes)) return false;
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
    if (mesh_->stepping()) {
        error_ = "the checkpoint is taken at a step boundary: pause first (training is mid-step)";
        return false;
    }
    sync_model();
    *bytes = wl::gpt::checkpoint_bytes(*tr_->model, &tr_->opt, tr_->step, tr_->tokenizer->kind(), tr_->tokenizer->state());
    return true;
}

// [SECTION] what it shows

std::string TrainSession::activity() const {
    if (!tr_) return "";
    char b[160];
    const wl::model::TrainWork* w = mesh_->next_work();
    const std::string what = w ? std::string(wl::model::train_phase_name(w->phase)) + " " + w->op : "";
    if (w && mesh_->job() == wl::model::MeshJob::Eval) {
        std::snprintf(b, sizeof b, "evaluating on the mesh: batch %d/%d, sequence %d/%d, %s", eval_next_ + 1, tr_->cfg.eval_iters,
                      std::max(w->sequence, 0) + 1, tr_->cfg.batch_size, what.c_str());
        return b;
    }
    if (w && mesh_->job() == wl::model::MeshJob::Sample) {
        std::snprintf(b, sizeof b, "sampling on the mesh: token %d/%d, %s", w->token + 1, set_.sample_tokens, what.c_str());
        return b;
    }
    if (w) {
        std::string s = what;
        if (w->sequence >= 0) s += ", sequence " + std::to_string(w->sequence + 1) + " of " + std::to_string(tr_->sequences_per_step());
        return s;
    }
    return "";
}

double TrainSession::steps_per_s() const { return run_seconds_ > 0 ? double(losses_.size()) / run_seconds_ : 0.0; }
double TrainSession::tokens_per_s() const { return tr_ ? steps_per_s() * double(tr_->tokens_per_step()) : 0.0; }
double TrainSession::mesh_tokens_per_s() const {
    return tr_ && mesh_seconds_ > 0 ? double(losses_.size()) * double(tr_->tokens_per_step()) / mesh_seconds_ : 0.0;
}

nlohmann::json TrainSession::to_json() const {
    using nlohmann::json;
    json val = json::array();
    for (const EvalPoint& p : val_) val.push_back({{"step", p.step}, {"loss", p.loss}});
    const wl::model::TrainWork* w = mesh_ ? mesh_->next_work() : nullptr;
    const double clock = wl::gpu::wse2().clock_hz;
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
            {"last", losses_.empty() ? json(nullptr)
                                     : json{{"loss", last_.loss}, {"grad_norm", last_.grad_norm}, {"cycles", last_.cycles},
                                            {"wafer_s", double(last_.cycles) / clock}, {"seconds", last_.seconds}}},
            {"activity", activity()},
            {"phase", w ? json(wl::model::train_phase_name(w->phase)) : json(nullptr)},
            {"op", w ? json(w->op) : json(nullptr)},
            {"progress", mesh_ && mesh_->work_total() ? double(mesh_->work_done()) / double(mesh_->work_total()) : 0.0},
            {"sample", sample_.step >= 0 ? json{{"step", sample_.step}, {"prompt", utf8(sample_.prompt)}, {"text", utf8(sample_.text)},
                                                {"by", "the mesh (the training plan's forward)"}}
                                         : json(nullptr)},
            {"error", error_.empty() ? json(nullptr) : json(error_)}};
}

}  // namespace wlui
