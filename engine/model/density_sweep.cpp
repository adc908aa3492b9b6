// density_sweep.cpp: see density_sweep.h.
#include "engine/model/density_sweep.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace wl::model {

const std::vector<double>& sweep_densities() {
    static const std::vector<double> d = {1.0, 0.5, 0.25, 0.1};
    return d;
}

bool pruned_matmul(const PlannedOp& o) { return o.row().prunable; }

DensitySweep::DensitySweep(const wl::gpt::GPT& model, KernelSource kernels, DensitySweepSettings s)
    : s_(std::move(s)), kernels_(std::move(kernels)), initial_(model.params_memory) {
    const int T = int(s_.tokens.size());
    if (T < 2 || T > model.maxT)
        throw std::invalid_argument("density sweep: the forward needs 2.." + std::to_string(model.maxT) + " tokens, got " +
                                    std::to_string(T));
    if (s_.B < 0 || (s_.B > 0 && (s_.T < 1 || s_.T > model.maxT || s_.inputs.size() != size_t(s_.B) * size_t(s_.T) ||
                                  s_.targets.size() != s_.inputs.size())))
        throw std::invalid_argument("density sweep: the training batch must be B x T tokens and as many targets, 1 <= T <= " +
                                    std::to_string(model.maxT));
    wl::gpt::GPTConfig cfg = model.cfg;
    cfg.execution = wl::gpt::Execution::Resident;   // the pruned matmuls keep their own PEs (sparse streaming is not planned)
    cfg.schedule = "sequential";  // each matmul's own cycles over the window, not its share of a pipeline's
    model_ = std::make_unique<wl::gpt::GPT>(cfg);
}

DensitySweep::~DensitySweep() = default;

void DensitySweep::fail(const std::string& why) {
    error_ = why;
    build_.reset();
    mesh_.reset();
    trainer_.reset();
}

bool DensitySweep::step() {
    if (done() || !error_.empty()) return false;
    const int T = int(s_.tokens.size());
    auto next_point = [&] {
        build_.reset();
        mesh_.reset();
        trainer_.reset();
        point_++;
        stage_ = Stage::Prune;
        return !done();
    };
    switch (stage_) {
    case Stage::Prune: {
        DensityPoint p;
        p.sparse = point_ > 0;
        model_->params_memory = initial_;
        model_->mask.clear();
        if (p.sparse)
            p.density = prune_linear_weights(*model_, 1 - sweep_densities()[size_t(point_ - 1)], s_.mask, s_.seed).density();
        points_.push_back(p);
        build_ = std::make_unique<MeshBuild>(model_->cfg, s_.mesh_w, s_.mesh_h, kernels_, false, p.sparse ? model_.get() : nullptr,
                                             s_.mode);
        stage_ = Stage::PlanForward;
        return true;
    }
    case Stage::PlanForward: {
        if (build_->step(*model_)) return true;
        if (!build_->built()) {
            fail(build_->error());
            return false;
        }
        mesh_ = build_->take_gpt();
        build_.reset();
        const PlannedOp* op = mesh_->plan().find(s_.op);
        if (!op || !op->is(gpt::OpKind::Matmul)) {
            fail("'" + s_.op + "' is not a matmul of this model");
            return false;
        }
        cur().op_weight_bytes = op->memory.weights;
        stage_ = Stage::Forward;
        return true;
    }
    case Stage::Forward: {
        std::vector<float> logits;
        if (!mesh_->forward(s_.tokens.data(), T, &logits)) {
            fail(mesh_->error());
            return false;
        }
        model_->forward(s_.tokens.data(), nullptr, 1, T);
        DensityPoint& p = cur();
        for (size_t i = 0; i < logits.size(); i++) p.logits_differ += !(logits[i] == model_->logits()[i]);
        for (const OpRun& r : mesh_->last_run()) {
            p.forward.cycles += r.cycles;
            p.forward.wavelets += r.wavelets;
            const PlannedOp* o = mesh_->plan().find(r.name);
            if (o && r.op == "matmul_forward" && pruned_matmul(*o)) {
                p.matmuls.cycles += r.cycles;
                p.matmuls.wavelets += r.wavelets;
            }
            if (r.name == s_.op) p.op = {r.cycles, r.wavelets};
        }
        gen_unit_ = 0;
        stage_ = Stage::Generate;
        return true;
    }
    case Stage::Generate: {   // the cache of the first T - 1 tokens, then the last token from it
        std::vector<float> logits;
        const bool ok = gen_unit_ == 0 ? mesh_->forward(s_.tokens.data(), T - 1, &logits) : mesh_->extend(s_.tokens.back(), &logits);
        if (!ok) {
            fail(mesh_->error());
            return false;
        }
        if (gen_unit_++ == 0) return true;
        DensityPoint& p = cur();
        for (const OpRun& r : mesh_->last_run()) {
            p.generation.cycles += r.cycles;
            p.generation.wavelets += r.wavelets;
        }
        p.measured = true;
        mesh_.reset();
        if (s_.B == 0) return next_point();
        build_ = std::make_unique<MeshBuild>(model_->cfg, s_.mesh_w, s_.mesh_h, kernels_, true, p.sparse ? model_.get() : nullptr,
                                             s_.mode);
        stage_ = Stage::PlanTrain;
        return true;
    }
    case Stage::PlanTrain: {
        if (build_->step(*model_)) return true;
        if (!build_->built()) {   // the training layout does not fit: said in the point, the sweep goes on
            cur().train_error = build_->error();
            return next_point();
        }
        trainer_ = build_->take_trainer();
        build_.reset();
        if (!trainer_->begin_step(s_.inputs.data(), s_.targets.data(), s_.B, s_.T, s_.lr)) {
            fail(trainer_->error());
            return false;
        }
        stage_ = Stage::Train;
        return true;
    }
    case Stage::Train: {
        if (!trainer_->run_slice(1)) {
            fail(trainer_->error());
            return false;
        }
        if (trainer_->busy()) return true;
        DensityPoint& p = cur();
        p.train_step.cycles = trainer_->last_step().cycles;
        for (const OpRun& r : trainer_->last_run()) {
            p.train_step.wavelets += r.wavelets;
            const PlannedOp* o = trainer_->mesh().plan().find(r.name);
            if (o && o->is(gpt::OpKind::Matmul) && pruned_matmul(*o)) {
                p.train_matmuls.cycles += r.cycles;
                p.train_matmuls.wavelets += r.wavelets;
            }
        }
        p.trained = true;
        return next_point();
    }
    }
    return false;
}

std::string DensitySweep::activity() const {
    if (done() || !error_.empty()) return "";
    char head[48];
    if (point_ == 0) std::snprintf(head, sizeof head, "dense plan: ");
    else std::snprintf(head, sizeof head, "density %.2f: ", sweep_densities()[size_t(point_ - 1)]);
    switch (stage_) {
    case Stage::Prune: return head + std::string(point_ ? "pruning the weights" : "planning");
    case Stage::PlanForward: return head + std::string("forward plan, ") + build_->activity();
    case Stage::Forward: return head + std::string("forward of ") + std::to_string(s_.tokens.size()) + " tokens";
    case Stage::Generate: return head + std::string("one generation step");
    case Stage::PlanTrain: return head + std::string("training plan, ") + build_->activity();
    case Stage::Train: {
        const TrainWork* w = trainer_->next_work();
        std::string what = "training step";
        if (w) {
            what += std::string(", ") + train_phase_name(w->phase) + " " + w->op;
            if (w->sequence >= 0) what += ", sequence " + std::to_string(w->sequence + 1) + " of " + std::to_string(s_.B);
        }
        return head + what;
    }
    }
    return "";
}

double DensitySweep::progress() const {
    if (done()) return 1;
    // A point's share, by stage: the forward's plan, its runs, the training plan, the step.
    const bool train = s_.B > 0;
    double in = 0;
    switch (stage_) {
    case Stage::Prune: in = 0; break;
    case Stage::PlanForward: in = (train ? 0.2 : 0.6) * build_->progress(); break;
    case Stage::Forward: in = train ? 0.2 : 0.6; break;
    case Stage::Generate: in = train ? 0.25 : 0.8; break;
    case Stage::PlanTrain: in = 0.3 + 0.3 * build_->progress(); break;
    case Stage::Train:
        in = 0.6 + 0.4 * double(trainer_->work_done()) / double(std::max<size_t>(trainer_->work_total(), 1));
        break;
    }
    return std::min(1.0, (double(point_) + in) / double(total_points()));
}

}  // namespace wl::model
