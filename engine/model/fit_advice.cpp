// fit_advice.cpp: see fit_advice.h.
#include "engine/model/fit_advice.h"

#include <algorithm>

#include "engine/core/thousands.h"

namespace wl::model {

std::optional<WeightOverflow> trains_only_streamed(const gpt::GPTConfig& cfg, uint32_t sram_bytes) {
    if (cfg.execution == wl::gpt::Execution::Streaming) return std::nullopt;
    const auto resident = weights_never_fit(cfg, sram_bytes, true);
    if (!resident) return std::nullopt;
    gpt::GPTConfig s = cfg;
    s.execution = wl::gpt::Execution::Streaming;
    return weights_never_fit(s, sram_bytes, true) ? std::nullopt : resident;
}

FitAdvisor::FitAdvisor(const gpt::GPTConfig& cfg, int mesh_w, int mesh_h, KernelSource kernels, uint32_t sram_bytes, bool train)
    : cfg_(cfg), w_(mesh_w), h_(mesh_h), kernels_(std::move(kernels)), sram_(sram_bytes), train_(train), t_(cfg.block_size / 2),
      n_(plan_sequences(cfg, train) - 1) {
    if (n_ >= 1) trying_ = Trying::Sequences;
    // Weights too big for a PE on any row: no remedy below can help, and trying them costs a plan each.
    // At the shortest context tried: the embedding's positions (wpe) shrink with it.
    gpt::GPTConfig shortest = cfg;
    shortest.block_size = std::min(cfg.block_size, 8);
    if (const auto o = weights_never_fit(shortest, sram_bytes, train)) {
        if (train && trains_only_streamed(cfg, sram_bytes)) {   // every remedy streams
            cfg_.execution = wl::gpt::Execution::Streaming;
            with_ = "wafer.execution=streaming,";
            begin();
            return;
        }
        never_ = ". " + o->op + "'s weights alone need " + thousands(o->bytes) + " bytes on a PE even on a row of " +
                 std::to_string(o->row) + " PEs, the widest a mesh has, so no mesh and no shorter context fits this model; "
                 "streaming does not help either, since a PE holds an op's weights while the op runs";
        trying_ = Trying::Done;
        return;
    }
    begin();
}

// Fewer sequences in flight first, the most that fit (a pipelined training plan's). Then weight
// streaming, where it applies (not streaming already): one layer's ops on the mesh. Then a larger
// mesh: both sides doubled until one fits (more PEs an op, so less on each), up to 256x256. Then a
// shorter context, halved down to 8: activations and attention's keys and values shrink with it.
// The first of each that fits is suggested.
void FitAdvisor::begin() {
    plan_.reset();
    if (trying_ == Trying::Sequences && n_ < 1) trying_ = Trying::Streaming;
    if (trying_ == Trying::Sequences) {
        gpt::GPTConfig c = cfg_;
        c.sequences_in_flight = n_;
        plan_.emplace(c, w_, h_, kernels_, sram_, train_);
    }
    if (trying_ == Trying::Streaming && cfg_.execution == wl::gpt::Execution::Streaming && with_.empty()) trying_ = Trying::Mesh;
    if (trying_ == Trying::Streaming) {   // a streamed model runs sequential, a sequence at a time (GPTConfig::validate)
        gpt::GPTConfig c = cfg_;
        c.execution = wl::gpt::Execution::Streaming;
        c.schedule = "sequential";
        c.sequences_in_flight = 1;
        plan_.emplace(c, w_, h_, kernels_, sram_, train_);
    }
    if (trying_ == Trying::Mesh && (w_ * k_ > 256 || h_ * k_ > 256)) trying_ = Trying::Context;
    if (trying_ == Trying::Context && t_ < 8) trying_ = Trying::Done;
    if (trying_ == Trying::Mesh) plan_.emplace(cfg_, w_ * k_, h_ * k_, kernels_, sram_, train_);
    if (trying_ == Trying::Context) {
        gpt::GPTConfig c = cfg_;
        c.block_size = t_;
        plan_.emplace(c, w_, h_, kernels_, sram_, train_);
    }
}

void FitAdvisor::suggest(const std::string& set, const std::string& what) {
    fits_ += (fits_.empty() ? "" : ", or ") + ("--set " + set + " (" + what + ")");
}

bool FitAdvisor::step() {
    if (trying_ == Trying::Done) return false;
    if (plan_->step()) return true;
    const bool ok = plan_->take().ok;
    if (trying_ == Trying::Sequences) {
        if (ok) suggest("wafer.sequences_in_flight=" + std::to_string(n_), "fewer sequences side by side in every op's columns");
        n_ = ok ? 0 : n_ - 1;
    } else if (trying_ == Trying::Streaming) {
        std::string set = "wafer.execution=streaming";
        if (cfg_.schedule != "sequential") set += ",wafer.schedule=sequential";
        if (cfg_.sequences_in_flight > 1) set += ",wafer.sequences_in_flight=1";
        if (ok) suggest(set, "weights streamed in layer by layer; docs/weight-streaming.md");
        trying_ = Trying::Mesh;
    } else if (trying_ == Trying::Mesh) {
        const std::string m = std::to_string(w_ * k_) + "x" + std::to_string(h_ * k_);
        if (ok) suggest(with_ + "wafer.mesh=" + m, "a larger mesh; the CLI's --mesh " + m);
        k_ *= 2;
        if (ok) trying_ = Trying::Context;
    } else {
        if (ok) suggest(with_ + "model.block_size=" + std::to_string(t_), "a shorter context");
        t_ /= 2;
        if (ok) trying_ = Trying::Done;
    }
    begin();
    return trying_ != Trying::Done;
}

std::string FitAdvisor::activity() const {
    switch (trying_) {
    case Trying::Sequences: return "what would fit: planning with " + std::to_string(n_) + " sequences in flight: " + plan_->activity();
    case Trying::Streaming: return "what would fit: planning with weights streamed in: " + plan_->activity();
    case Trying::Mesh:
        return "what would fit: planning on a " + std::to_string(w_ * k_) + "x" + std::to_string(h_ * k_) + " mesh: " + plan_->activity();
    case Trying::Context: return "what would fit: planning with a context of " + std::to_string(t_) + ": " + plan_->activity();
    case Trying::Done: break;
    }
    return "";
}

std::string FitAdvisor::take() {
    while (step()) {
    }
    const std::string out = !never_.empty() ? never_
                            : fits_.empty() ? ". Neither a mesh up to 256x256 nor a shorter context makes it fit"
                                            : ". It fits with " + fits_;
    if (plan_sequences(cfg_, train_) > 1) return out + ".";
    return out + ". (train_input.batch_size and optimizer.grad_accum_steps, the usual first remedies, change nothing a "
                 "PE holds here: the mesh takes a batch's sequences one at a time.)";
}

std::string fit_advice(const gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels, uint32_t sram_bytes,
                       bool train) {
    return FitAdvisor(cfg, mesh_w, mesh_h, kernels, sram_bytes, train).take();
}

}  // namespace wl::model
