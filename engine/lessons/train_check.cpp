// train_check.cpp: plan with the student's kernel, train on the mesh, compare the loss (train_check.h).
#include "engine/lessons/train_check.h"

#include "engine/fabric/machine.h"
#include "engine/gpt/trainer.h"
#include "engine/lessons/lesson_files.h"
#include "engine/model/mesh_trainer.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace wl::lessons {

namespace {

std::string loss_text(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
}

}  // namespace

std::string train_files_error(const CheckSpec& spec) {
    if (!spec.trains()) return "";
    const TrainSpec& t = spec.train;
    wl::gpt::GPTConfig cfg;
    if (const std::string why = lesson_model_config(spec.dir, t.config, t.mesh_w, t.mesh_h, /*train=*/true, &cfg); !why.empty()) return why;
    if (wl::model::read_kernels(model_kernels_dir(spec.dir))(spec.train.kernel).empty())
        return "no model kernel " + spec.train.kernel + " in " + model_kernels_dir(spec.dir);
    return "";
}

struct TrainingCheck::State {
    std::unique_ptr<wl::gpt::Trainer> tr;
    std::unique_ptr<wl::model::MeshTrainer> mesh;
    std::vector<int> inputs, targets;
    Verdict v;            // what finish() hands over
    float start = 0, norm = 0;
};

TrainingCheck::~TrainingCheck() = default;

const wl::Machine* TrainingCheck::machine() const { return s_->mesh ? &s_->mesh->mesh().host().machine() : nullptr; }

TrainingCheck::TrainingCheck(const CheckSpec& spec, std::string_view source) : spec_(spec), s_(std::make_unique<State>()) {
    const TrainSpec& t = spec.train;
    Verdict& v = s_->v;
    done_ = true;   // until the plan stands
    try {
        wl::gpt::GPTConfig cfg;
        if (const std::string why = lesson_model_config(spec.dir, t.config, t.mesh_w, t.mesh_h, /*train=*/true, &cfg); !why.empty())
            throw std::runtime_error(why);
        s_->tr = std::make_unique<wl::gpt::Trainer>(cfg);
    } catch (const std::exception& e) {
        lesson_fault(&v, t.line, std::string("its model could not be built: ") + e.what());
        return;
    }
    // The model's kernels, with the student's text for the one this lesson is about.
    const wl::model::KernelSource base = wl::model::read_kernels(model_kernels_dir(spec.dir));
    const std::string mine(source);
    const wl::model::KernelSource kernels = [&](const std::string& f) { return f == t.kernel ? mine : base(f); };
    const auto plan = [&](const wl::model::KernelSource& k) {
        return wl::model::plan_model(s_->tr->cfg, t.mesh_w, t.mesh_h, k, wl::MachineConfig{}.sram_bytes, /*train=*/true);
    };
    wl::model::PlanResult r = plan(kernels);
    // A failure the error places in the student's file is theirs; any other is planned again with
    // the lesson's own kernels, so a failed Check compiles the model twice only when it must.
    if (!r.ok && r.error.find(t.kernel + ":") == std::string::npos && !plan(base).ok) {
        lesson_fault(&v, t.line, r.error);
        return;
    }
    if (!r.ok) {
        v.items.push_back({CheckKind::Compile, false,
                           "The model compiler could not use your kernel as " + t.kernel + ": " + r.error +
                               "\nKeep the exported names and the constants it sets (P, V, NC, ...) as they are."});
        return;
    }
    v.pes = r.plan.pes_used();
    const wl::gpt::GPTConfig& cfg = s_->tr->cfg;
    s_->start = s_->tr->eval_loss(wl::gpt::Split::Train);
    s_->mesh = std::make_unique<wl::model::MeshTrainer>(std::move(r.plan), *s_->tr->model, wl::RunMode::Fast);
    s_->inputs.resize(size_t(s_->tr->sequences_per_step()) * cfg.block_size);
    s_->targets.resize(s_->inputs.size());
    done_ = false;
}

void TrainingCheck::step() {
    if (done_) return;
    wl::gpt::Trainer& tr = *s_->tr;
    const wl::gpt::GPTConfig& cfg = tr.cfg;
    Verdict& v = s_->v;
    tr.step_batches(tr.step, s_->inputs.data(), s_->targets.data());
    wl::model::TrainStep st;
    if (!s_->mesh->step(s_->inputs.data(), s_->targets.data(), tr.sequences_per_step(), cfg.block_size, tr.lr(), &st)) {
        v.items.push_back({CheckKind::Fault, false,
                           "Training step " + std::to_string(steps_done_ + 1) + " stopped with a fault: " + s_->mesh->error()});
        done_ = true;
        return;
    }
    tr.step += 1;
    v.cycles += st.cycles;
    s_->norm = st.grad_norm;
    batch_loss_ = st.loss;
    losses_.push_back(st.loss);
    if (++steps_done_ < spec_.train.steps) return;
    done_ = true;

    const TrainSpec& t = spec_.train;
    s_->mesh->read_params(&tr.model->params_memory);
    const float start = s_->start, end = tr.eval_loss(wl::gpt::Split::Train), norm = s_->norm;
    v.ran = true;
    v.loss_start = start;
    v.loss = end;
    const std::string steps = std::to_string(t.steps) + " steps";
    const std::string was = " (it started at " + loss_text(start) + ")";
    char normb[64];
    std::snprintf(normb, sizeof normb, "%.3g", double(norm));
    if (!std::isfinite(end)) {
        v.items.push_back({CheckKind::Loss, false,
                           "After " + steps + " on the mesh the loss is not a number any more: the weights blew up. "
                           "The last step's gradient norm was " + normb + "."});
        return;
    }
    const bool ok = end < t.loss_below;
    std::string msg = "After " + steps + " on the mesh the loss is " + loss_text(end) + was + "; the check wants it below " +
                      loss_text(t.loss_below) + (ok ? ": the model learned." : ".");
    if (!ok) {
        msg += end < start ? " It fell by " + loss_text(start - end) + "; it needed to fall by more than " +
                                 loss_text(start - t.loss_below) + "."
                           : " It did not fall: the steps moved the weights, but not downhill.";
        msg += " The last step's gradient norm was " + std::string(normb) +
               (cfg.grad_clip > 0 && norm > cfg.grad_clip ? " (clipped to " + loss_text(cfg.grad_clip) + ")" : "") + ".";
        if (!t.when_wrong.empty()) msg += " " + t.when_wrong;
    }
    v.items.push_back({CheckKind::Loss, ok, msg});
}

void TrainingCheck::finish(Verdict* v) const {
    const Verdict& mine = s_->v;
    v->items.insert(v->items.end(), mine.items.begin(), mine.items.end());
    v->ran = mine.ran;
    v->lesson_error = mine.lesson_error;
    v->cycles = mine.cycles;
    v->pes = mine.pes;
    v->loss = mine.loss;
    v->loss_start = mine.loss_start;
}

}  // namespace wl::lessons
