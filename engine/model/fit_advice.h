// fit_advice.h: what would make a model fit the mesh when it does not, tried rather than guessed.
//
// The seeds' remedies for a model too big for the wafer come in an order (ModelZoo's
// troubleshooting; docs/configs.md): a smaller batch_size, then gradient accumulation, then
// weight streaming. On this emulator a batch's sequences go through the same executable one at
// a time, so the first two change nothing a PE holds: the advice says so, rather than suggest
// them (unless a pipelined training plan holds several sequences at once). What does change it is
// tried by planning: fewer sequences in flight (wafer.sequences_in_flight: each is a block_size of
// every op's time columns), weight streaming (inference: one layer's ops serve every layer), a
// larger mesh, then a shorter context. Only remedies that fit are suggested, each as a key the
// user can --set.
//
//   PlanResult r = plan_model(cfg, 16, 16, kernels, sram, true);
//   if (r.too_big) r.error += fit_advice(cfg, 16, 16, kernels, sram, true);
//   // "...; 49,152 available. It fits with --set wafer.mesh=32x32, or --set model.block_size=16; ..."
//
// Each remedy is a whole plan, so the advice takes as long as several: FitAdvisor tries them in
// steps (a PlanBuilder's), for a UI that draws between them; fit_advice is it run to its end.
//
//   FitAdvisor a(cfg, 16, 16, kernels, sram, true);
//   while (a.step()) show(a.activity());   // "what would fit: planning on a 64x64 mesh: compiling kernels: ..."
//   r.error += a.take();
#pragma once
#include "engine/model/mesh_plan.h"

#include <optional>
#include <string>

namespace wl::model {

// Training whose weights fit no row of PEs resident but do streamed, where wte is the store's
// (GPT-2's vocabulary; docs/weight-streaming.md, "The vocabulary"): the op that overflows
// resident, so the caller can stream without being told (train --on-mesh, the app's Train when
// the config names no execution). nullopt when resident can hold them, or streaming cannot either.
std::optional<WeightOverflow> trains_only_streamed(const wl::gpt::GPTConfig& cfg, uint32_t sram_bytes);

class FitAdvisor {
public:
    FitAdvisor(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, KernelSource kernels, uint32_t sram_bytes, bool train);
    bool step();                  // one unit of the plan being tried; false once done
    std::string activity() const; // the remedy being tried and its plan's step, in words; "" when done
    std::string take();           // runs what is left; the sentences (they start with ". ")

private:
    enum class Trying : uint8_t { Sequences, Streaming, Mesh, Context, Done };
    void begin();                 // the next remedy's plan, or Done
    void suggest(const std::string& set, const std::string& what);

    wl::gpt::GPTConfig cfg_;
    int w_, h_;
    KernelSource kernels_;
    uint32_t sram_;
    bool train_;
    Trying trying_ = Trying::Streaming;
    int k_ = 2, t_ = 0;           // the mesh's scale, the context tried
    int n_ = 0;                   // the sequences in flight tried (wafer.sequences_in_flight), down from one fewer
    std::optional<PlanBuilder> plan_;
    std::string fits_;
    std::string never_;           // why nothing can fit, found before trying (weights_never_fit)
    std::string with_;            // what every remedy needs too ("wafer.execution=streaming,": only streamed do the weights fit)
};

// FitAdvisor run to its end: the sentences to append to a too_big plan's error.
std::string fit_advice(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                       uint32_t sram_bytes, bool train);

}  // namespace wl::model
