// gpt.h: the reference GPT-2 style model: parameters, gradients, activations,
// forward, backward, zero_grad. Plain C++, fp32, the oracle for the GPT on the mesh.
//
// What it is: llm.c's train_gpt2.c structure. Token + position embeddings,
// L pre-LayerNorm blocks (causal multi-head attention, GELU MLP, residuals),
// a final LayerNorm, an LM head tied to the token embedding, cross-entropy.
// What it is not: dropout (nanoGPT's CPU config uses 0), mixed precision, a KV
// cache, or padded vocabularies (llm.c's Vp padding is stripped on import).
//
// Legend: B batch, T time (<= maxT = block_size), C channels (n_embd),
// V vocab, L layers, NH heads, hs = C/NH.
//
// Usage:
//   GPT model(cfg);  model.init_weights(cfg.seed);          // cfg.vocab_size > 0
//   model.forward(inputs, targets, B, T);   // inputs/targets (B,T); model.mean_loss
//   model.zero_grad(); model.backward();    // grads in model.grads
//   AdamW (adamw.h) updates model.params from model.grads.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/gpt/gpt_config.h"
#include "engine/gpt/op_table.h"

namespace wl::gpt {

constexpr int kNumParamTensors = 16;

// In llm.c's order (the gpt2_124M.bin layout).
struct ParameterTensors {
    float* wte;       // (V, C)
    float* wpe;       // (maxT, C)
    float* ln1w;      // (L, C)
    float* ln1b;      // (L, C)
    float* qkvw;      // (L, 3C, C)
    float* qkvb;      // (L, 3C)
    float* attprojw;  // (L, C, C)
    float* attprojb;  // (L, C)
    float* ln2w;      // (L, C)
    float* ln2b;      // (L, C)
    float* fcw;       // (L, 4C, C)
    float* fcb;       // (L, 4C)
    float* fcprojw;   // (L, C, 4C)
    float* fcprojb;   // (L, C)
    float* lnfw;      // (C)
    float* lnfb;      // (C)
};

constexpr int kNumActTensors = 22;

struct ActivationTensors {
    float* encoded;    // (B, T, C)
    float* ln1;        // (L, B, T, C)
    float* ln1_mean;   // (L, B, T)
    float* ln1_rstd;   // (L, B, T)
    float* qkv;        // (L, B, T, 3C)
    float* atty;       // (L, B, T, C)
    float* att;        // (L, B, NH, T, T)
    float* attproj;    // (L, B, T, C)
    float* residual2;  // (L, B, T, C)
    float* ln2;        // (L, B, T, C)
    float* ln2_mean;   // (L, B, T)
    float* ln2_rstd;   // (L, B, T)
    float* fch;        // (L, B, T, 4C)
    float* fch_gelu;   // (L, B, T, 4C)
    float* fcproj;     // (L, B, T, C)
    float* residual3;  // (L, B, T, C)
    float* lnf;        // (B, T, C)
    float* lnf_mean;   // (B, T)
    float* lnf_rstd;   // (B, T)
    float* logits;     // (B, T, V)
    float* probs;      // (B, T, V)
    float* losses;     // (B, T)
};

struct ParamInfo {
    const char* name;
    std::vector<int> shape;
    size_t count;
    bool decay;   // AdamW weight decay applies (matrices and embeddings)
};
std::vector<ParamInfo> param_infos(const GPTConfig& cfg);   // the 16 tensors, in order
size_t count_parameters(const GPTConfig& cfg);

// One step of the computation, for cost models (the GPU model, the wafer estimate).
// flops counts multiplies and adds separately; bytes = fp32 operands read + results written,
// each tensor once (no cache model).
struct OpInfo {
    std::string op;      // "matmul_forward", "attention_backward", ...
    std::string tensor;  // what it computes, e.g. "l0.qkv" (a backward: the gradient, "l0.dln1")
    int layer;           // -1 outside the blocks
    double flops;
    double bytes;
    const OpRow* row;    // its row of op_table(); nullptr: the AdamW update
    bool backward;
};
// The ops forward() (and, with backward, backward() then the AdamW update) runs, in order:
// op_table()'s rows, then their backwards in reverse.
std::vector<OpInfo> op_list(const GPTConfig& cfg, int B, int T, bool with_backward);
// One row's entry of op_list, in layer `layer` (ignored outside the blocks).
OpInfo op_cost(const OpRow& r, const GPTConfig& cfg, int B, int T, bool backward, int layer);
double flops_per_token(const GPTConfig& cfg, int T, bool with_backward);   // from op_list

// Floats of a B x T batch's activations (forward()'s; backward() takes as many again), in
// double so that no config's product wraps.
double activation_floats(const GPTConfig& cfg, int B, int T);
// Checks, before anything is allocated, that the model fits host_memory_limit(): its weights,
// and with `training` its gradients, AdamW's two moments and a batch_size x block_size batch's
// activations. A vocab_size of 0 counts the tokenizer's (256 for char, 50257 for bpe). Throws
// std::length_error naming the keys that ask for the bytes, how many, and the limit.
void check_model_memory(const GPTConfig& cfg, bool training);

class GPT {
public:
    explicit GPT(const GPTConfig& cfg);   // cfg.vocab_size must be > 0
    GPT(const GPT&) = delete;
    GPT& operator=(const GPT&) = delete;

    void init_weights(uint64_t seed);   // nanoGPT's init: N(0, 0.02), residual projections / sqrt(2L)
    // inputs (B,T) token ids < V; targets (B,T) or null (then no loss). B, T >= 1, T <= maxT.
    void forward(const int* inputs, const int* targets, int B, int T);
    void zero_grad();
    // Needs a forward with targets; adds into grads. micro_batches N: the gradient of the mean
    // loss over N such forwards (each row's loss weighs 1/(N*B*T)), so N backwards after one
    // zero_grad() give one batch N times larger's gradient (gradient accumulation).
    // Masked parameters (mask below) end with a zero gradient.
    void backward(int micro_batches = 1);
    // Zeroes state[i] (num_parameters floats: gradients, AdamW moments) wherever mask[i] is 0.
    void mask_out(float* state) const;

    GPTConfig cfg;
    int L, NH, C, V, maxT;
    size_t num_parameters = 0;
    std::vector<float> params_memory;   // (num_parameters)
    std::vector<float> grads_memory;    // (num_parameters), allocated by the first zero_grad()/backward()
    // Empty, or (num_parameters): 0 = held at zero. A fixed sparsity mask (engine/model/sparsity.h
    // sets it when it prunes): backward() zeroes those gradients, so AdamW leaves them at zero.
    std::vector<uint8_t> mask;
    ParameterTensors params{}, grads{};   // grads' pointers are null until then

    int B = 0, T = 0;                // shape of the last forward
    float mean_loss = -1.0f;         // -1 when the last forward had no targets
    ActivationTensors acts{}, grads_acts{};
    const float* logits() const { return acts.logits; }   // (B, T, V) of the last forward
    // The first tensor of the last forward, in the order it computes them, that holds a NaN or an
    // infinity ("l2.fch", "logits", "losses"), or "" when every one is finite: where a diverging
    // run's numbers first left the floats.
    std::string first_nonfinite() const;
    const float* probs() const { return acts.probs; }
    // Called with each op's name as forward()/backward() run it (tests check op_list against it).
    std::function<void(const char* op)> on_op;

private:
    void ensure_grads();
    void ensure_activations(int B, int T);
    void slice_activations(ActivationTensors& a, float* base, int B, int T) const;
    size_t activation_count(int B, int T) const;
    std::vector<float> acts_memory_, grads_acts_memory_;
    int act_B_ = 0, act_T_ = 0;
    std::vector<int> inputs_, targets_;
    bool have_targets_ = false;
};

}  // namespace wl::gpt
