// trainer.h: the training loop the CLI, the tests and the app share: corpus ->
// tokenizer -> model -> (batch, forward, backward, AdamW) per step, with
// evaluation and checkpoints.
//
//   Trainer tr(load_config("models/gpt-nano.yaml"));   // builds everything from the config
//   while (tr.step < tr.cfg.max_iters) tr.train_step();
//   float val = tr.eval_loss(Split::Val);
//   tr.save("run.ckpt");   Trainer::resume("run.ckpt") continues bit-identically.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "engine/gpt/adamw.h"
#include "engine/gpt/corpus.h"
#include "engine/gpt/dataloader.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/tokenizer.h"

namespace wl::gpt {

enum class Split { Train, Val };

// The sequences an optimiser step takes: grad_accum_steps micro-batches of batch_size.
inline int sequences_per_step(const GPTConfig& cfg) { return cfg.grad_accum_steps * cfg.batch_size; }

// A config's model with its seeded initial weights and its tokenizer, for inference: what a
// Trainer builds, without the optimizer's moments and the batches (GPT-2 small: 1 GB less), and
// the corpus only where the char tokenizer's vocabulary comes from it.
struct InitialModel {
    std::unique_ptr<GPT> model;
    std::unique_ptr<Tokenizer> tokenizer;
};
InitialModel initial_model(const GPTConfig& cfg, const std::string& bpe_dir = "");

class Trainer {
public:
    // Builds the corpus (make_corpus), the tokenizer (char: from the corpus; bpe: GPT-2's files in
    // bpe_dir), then the model (vocab_size from the tokenizer when 0) with init_weights(seed).
    explicit Trainer(const GPTConfig& cfg, const std::string& bpe_dir = "");
    // The same, on a corpus the caller built (corpus_from_text) instead of cfg's.
    Trainer(const GPTConfig& cfg, Corpus corpus, const std::string& bpe_dir = "");
    // From a checkpoint: same config and tokenizer, corpus rebuilt, model and optimizer restored.
    // overrides (as --set's, parse_overrides) may change training settings (runconfig.max_steps,
    // train_input.data, ...), not the shape.
    static std::unique_ptr<Trainer> resume(const std::string& path, const Overrides& overrides = {},
                                           const std::string& bpe_dir = "");

    // One optimizer step on micro-batches step*N .. step*N+N-1 (N = grad_accum_steps), their
    // gradients summed; returns their mean loss.
    float train_step();
    // Those micro-batches' tokens, (N*batch_size, block_size) each, for a trainer elsewhere (the mesh).
    void step_batches(int64_t step, int* inputs, int* targets) const;
    float eval_loss(Split split);       // mean loss over eval_iters fixed batches (no gradient)
    // The same mean with another forward (the mesh's): batch_loss gives one batch's mean loss.
    using BatchLoss = std::function<float(const int* inputs, const int* targets, int B, int T)>;
    float eval_loss(Split split, const BatchLoss& batch_loss);
    // eval_loss's batch k (0 .. eval_iters-1) of a split, (batch_size, block_size) each.
    void eval_batch(Split split, int k, int* inputs, int* targets) const;
    void save(const std::string& path) const;
    double lr() const { return learning_rate_at(cfg, step); }
    int64_t tokens_per_step() const { return int64_t(cfg.grad_accum_steps) * cfg.batch_size * cfg.block_size; }
    int sequences_per_step() const { return wl::gpt::sequences_per_step(cfg); }

    GPTConfig cfg;
    Corpus corpus;
    std::unique_ptr<Tokenizer> tokenizer;
    std::unique_ptr<GPT> model;
    AdamW opt;
    std::unique_ptr<DataLoader> train_data, val_data;
    int64_t step = 0;          // optimizer steps done
    float last_grad_norm = 0;

private:
    Trainer() = default;
    void build_data();
    std::vector<int> inputs_, targets_;
};

}  // namespace wl::gpt
