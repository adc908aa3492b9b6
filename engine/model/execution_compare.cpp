// execution_compare.cpp: see execution_compare.h.
#include "engine/model/execution_compare.h"

#include <stdexcept>

namespace wl::model {

namespace {
const wl::gpt::Execution kExecutions[2] = {wl::gpt::Execution::Resident, wl::gpt::Execution::Streaming};
}

ExecutionCompare::ExecutionCompare(const wl::gpt::GPT& model, int mesh_w, int mesh_h, KernelSource kernels,
                                   std::vector<int> tokens, wl::RunMode mode)
    : model_(model), w_(mesh_w), h_(mesh_h), kernels_(std::move(kernels)), tokens_(std::move(tokens)), mode_(mode) {
    if (tokens_.empty() || int(tokens_.size()) > model.maxT)
        throw std::invalid_argument("resident against streaming: the forward needs 1.." + std::to_string(model.maxT) +
                                    " tokens, got " + std::to_string(tokens_.size()));
    begin(0);
}

ExecutionCompare::~ExecutionCompare() = default;

void ExecutionCompare::begin(int which) {
    which_ = which;
    build_.reset();
    mesh_.reset();
    if (done()) return;
    runs_[which].execution = kExecutions[which];
    wl::gpt::GPTConfig cfg = model_.cfg;
    cfg.execution = kExecutions[which];
    build_ = std::make_unique<MeshBuild>(cfg, w_, h_, kernels_, false, nullptr, mode_);
}

bool ExecutionCompare::step() {
    if (done()) return false;
    ExecutionRun& run = runs_[which_];
    if (!mesh_) {
        if (build_->step(model_)) return true;
        if (!build_->built()) {
            run.error = build_->error();
            run.too_big = build_->too_big();
            begin(which_ + 1);
            return !done();
        }
        mesh_ = build_->take_gpt();   // the forward is the next unit
        return true;
    }
    const std::unique_ptr<MeshGPT> mesh = std::move(mesh_);
    if (!mesh->forward(tokens_.data(), T(), &run.logits)) {
        run.error = mesh->error();
    } else {
        run.ran = true;
        run.pes = mesh->plan().pes_used();
        run.cycles = mesh->last_cycles();
        run.stream_cycles = mesh->last_stream_cycles();
        run.stream_bytes = mesh->last_stream_bytes();
        run.host_bytes = mesh->last_host_bytes();
    }
    begin(which_ + 1);
    return !done();
}

long long ExecutionCompare::logits_differ() const {
    const ExecutionRun &a = runs_[0], &b = runs_[1];
    if (!a.ran || !b.ran || a.logits.size() != b.logits.size()) return -1;
    long long n = 0;
    for (size_t i = 0; i < a.logits.size(); i++) n += !(a.logits[i] == b.logits[i]);
    return n;
}

std::string ExecutionCompare::activity() const {
    if (done()) return "";
    const std::string head = std::string(wl::gpt::execution_name(kExecutions[which_])) + ": ";
    if (mesh_) return head + "forward of " + std::to_string(T()) + " tokens";
    return head + build_->activity();
}

double ExecutionCompare::progress() const {
    if (done()) return 1;
    return (double(which_) + (mesh_ ? 0.9 : 0.9 * build_->progress())) / 2.0;
}

}  // namespace wl::model
