// gpt.cpp: see gpt.h. The forward and backward passes read like llm.c's
// gpt2_forward / gpt2_backward; every op is a plain function in its own file.
#include "engine/gpt/gpt.h"

#include "engine/gpt/attention.h"
#include "engine/gpt/crossentropy.h"
#include "engine/gpt/encoder.h"
#include "engine/gpt/gelu.h"
#include "engine/gpt/layernorm.h"
#include "engine/gpt/matmul.h"
#include "engine/gpt/op_table.h"
#include "engine/gpt/residual.h"
#include "engine/gpt/rng.h"
#include "engine/core/memory_limit.h"
#include <cstdio>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace wl::gpt {

std::vector<ParamInfo> param_infos(const GPTConfig& cfg) {
    int V = cfg.vocab_size, C = cfg.n_embd, L = cfg.n_layer, maxT = cfg.block_size;
    std::vector<ParamInfo> p = {
        {"wte", {V, C}, 0, true},           {"wpe", {maxT, C}, 0, true},
        {"ln1w", {L, C}, 0, false},         {"ln1b", {L, C}, 0, false},
        {"qkvw", {L, 3 * C, C}, 0, true},   {"qkvb", {L, 3 * C}, 0, false},
        {"attprojw", {L, C, C}, 0, true},   {"attprojb", {L, C}, 0, false},
        {"ln2w", {L, C}, 0, false},         {"ln2b", {L, C}, 0, false},
        {"fcw", {L, 4 * C, C}, 0, true},    {"fcb", {L, 4 * C}, 0, false},
        {"fcprojw", {L, C, 4 * C}, 0, true}, {"fcprojb", {L, C}, 0, false},
        {"lnfw", {C}, 0, false},            {"lnfb", {C}, 0, false},
    };
    for (auto& i : p) {
        i.count = 1;
        for (int d : i.shape) i.count *= size_t(d);
    }
    return p;
}

size_t count_parameters(const GPTConfig& cfg) {
    size_t n = 0;
    for (auto& i : param_infos(cfg)) n += i.count;
    return n;
}

static void slice_params(ParameterTensors& p, float* base, const GPTConfig& cfg) {
    float** ptrs[kNumParamTensors] = {&p.wte,  &p.wpe, &p.ln1w,    &p.ln1b,    &p.qkvw, &p.qkvb,
                                      &p.attprojw, &p.attprojb, &p.ln2w, &p.ln2b, &p.fcw, &p.fcb,
                                      &p.fcprojw, &p.fcprojb, &p.lnfw, &p.lnfb};
    auto infos = param_infos(cfg);
    for (int i = 0; i < kNumParamTensors; i++) {
        *ptrs[i] = base;
        base += infos[i].count;
    }
}

GPT::GPT(const GPTConfig& c) : cfg(c) {
    cfg.validate("model config");
    check_model_memory(cfg, false);
    if (cfg.vocab_size <= 0) throw std::invalid_argument("GPT: vocab_size must be > 0 (set it from the tokenizer)");
    L = cfg.n_layer;
    NH = cfg.n_head;
    C = cfg.n_embd;
    V = cfg.vocab_size;
    maxT = cfg.block_size;
    num_parameters = count_parameters(cfg);
    params_memory.assign(num_parameters, 0.0f);
    slice_params(params, params_memory.data(), cfg);
}

void GPT::ensure_grads() {   // lazily: inference (GPT-2 small: 500 MB) never needs them
    if (grads_memory.size() == num_parameters) return;
    grads_memory.assign(num_parameters, 0.0f);
    slice_params(grads, grads_memory.data(), cfg);
}

void GPT::init_weights(uint64_t seed) {
    Rng rng(seed);
    const float std0 = 0.02f, std_proj = float(0.02 / std::sqrt(2.0 * L));
    auto normal = [&](float* p, size_t n, float s) { rng.normals(p, n, s); };
    auto fill = [](float* p, size_t n, float v) {
        for (size_t i = 0; i < n; i++) p[i] = v;
    };
    size_t LC = size_t(L) * C;
    normal(params.wte, size_t(V) * C, std0);
    normal(params.wpe, size_t(maxT) * C, std0);
    fill(params.ln1w, LC, 1.0f);
    fill(params.ln1b, LC, 0.0f);
    normal(params.qkvw, LC * 3 * C, std0);
    fill(params.qkvb, LC * 3, 0.0f);
    normal(params.attprojw, LC * C, std_proj);
    fill(params.attprojb, LC, 0.0f);
    fill(params.ln2w, LC, 1.0f);
    fill(params.ln2b, LC, 0.0f);
    normal(params.fcw, LC * 4 * C, std0);
    fill(params.fcb, LC * 4, 0.0f);
    normal(params.fcprojw, LC * 4 * C, std_proj);
    fill(params.fcprojb, LC, 0.0f);
    fill(params.lnfw, C, 1.0f);
    fill(params.lnfb, C, 0.0f);
}

void GPT::slice_activations(ActivationTensors& a, float* base, int B_, int T_) const {
    size_t BT = size_t(B_) * T_, LBT = size_t(L) * BT;
    size_t sizes[kNumActTensors] = {
        BT * C,  LBT * C, LBT, LBT, LBT * 3 * C, LBT * C, LBT * NH * T_, LBT * C, LBT * C, LBT * C, LBT,
        LBT,     LBT * 4 * C, LBT * 4 * C, LBT * C, LBT * C, BT * C, BT, BT, BT * V, BT * V, BT};
    float** ptrs[kNumActTensors] = {&a.encoded, &a.ln1,      &a.ln1_mean, &a.ln1_rstd, &a.qkv,       &a.atty,
                                    &a.att,     &a.attproj,  &a.residual2, &a.ln2,     &a.ln2_mean,  &a.ln2_rstd,
                                    &a.fch,     &a.fch_gelu, &a.fcproj,   &a.residual3, &a.lnf,      &a.lnf_mean,
                                    &a.lnf_rstd, &a.logits,  &a.probs,    &a.losses};
    for (int i = 0; i < kNumActTensors; i++) {
        *ptrs[i] = base;
        base += sizes[i];
    }
}

double activation_floats(const GPTConfig& cfg, int B, int T) {
    const double BT = double(B) * T, LBT = double(cfg.n_layer) * BT, C = cfg.n_embd;
    return BT * C * 2 + BT * 3 + BT * double(cfg.vocab_size) * 2 + LBT * (18 * C + 4 + double(cfg.n_head) * T);
}

size_t GPT::activation_count(int B_, int T_) const { return size_t(activation_floats(cfg, B_, T_)); }

std::string GPT::first_nonfinite() const {
    if (B == 0) return "";
    const size_t BT = size_t(B) * size_t(T);
    const auto bad = [](const float* p, size_t n) { return std::any_of(p, p + n, [](float v) { return !std::isfinite(v); }); };
    if (bad(acts.encoded, BT * C)) return "encoded";
    const std::pair<const char*, std::pair<const float*, size_t>> layer[] = {
        {"ln1", {acts.ln1, C}},       {"qkv", {acts.qkv, 3 * C}},       {"atty", {acts.atty, C}},
        {"attproj", {acts.attproj, C}}, {"residual2", {acts.residual2, C}}, {"ln2", {acts.ln2, C}},
        {"fch", {acts.fch, 4 * C}},   {"fch_gelu", {acts.fch_gelu, 4 * C}}, {"fcproj", {acts.fcproj, C}},
        {"residual3", {acts.residual3, C}}};
    for (int l = 0; l < L; l++)
        for (const auto& [name, t] : layer)
            if (bad(t.first + size_t(l) * BT * t.second, BT * t.second)) return layer_unit_name(l, name);
    if (bad(acts.lnf, BT * C)) return "lnf";
    if (bad(acts.logits, BT * V)) return "logits";
    if (mean_loss != -1.0f && bad(acts.losses, BT)) return "losses";
    return "";
}

void check_model_memory(const GPTConfig& cfg, bool training) {
    GPTConfig c = cfg;
    if (c.vocab_size <= 0) c.vocab_size = c.tokenizer == "bpe" ? 50257 : 256;
    double params = 0;
    for (const ParamInfo& p : param_infos(c)) {
        double n = 1;
        for (int d : p.shape) n *= d;
        params += n;
    }
    const double acts = training ? 2 * activation_floats(c, c.batch_size, c.block_size) : 0;
    const double bytes = 4 * (params * (training ? 4 : 1) + acts);
    const uint64_t limit = host_memory_limit();
    if (bytes <= double(limit)) return;
    char n[32];
    std::snprintf(n, sizeof n, "%.3g", params);
    std::string msg = "the model needs " + byte_size_text(bytes) + ": " + n + " parameters (model.n_layer " + std::to_string(c.n_layer) +
                      ", model.n_embd " + std::to_string(c.n_embd) + ", model.vocab_size " + std::to_string(c.vocab_size) +
                      (cfg.vocab_size <= 0 ? " assumed: the config's 0 takes it from the tokenizer" : "") + ")";
    if (training)
        msg += " with their gradients and AdamW's two moments, and " + byte_size_text(4 * acts) + " of activations for a batch of " +
               "train_input.batch_size " + std::to_string(c.batch_size) + " x model.block_size " + std::to_string(c.block_size);
    throw std::length_error(msg + "; this machine allows " + byte_size_text(double(limit)));
}

void GPT::ensure_activations(int B_, int T_) {
    if (B_ <= act_B_ && T_ <= act_T_) return;
    act_B_ = std::max(B_, act_B_);
    act_T_ = std::max(T_, act_T_);
    acts_memory_.assign(activation_count(act_B_, act_T_), 0.0f);
    grads_acts_memory_.clear();   // sized again by backward
}

void GPT::forward(const int* inputs, const int* targets, int B_, int T_) {
    if (B_ < 1 || T_ < 1 || T_ > maxT)
        throw std::invalid_argument("GPT::forward: need B >= 1 and 1 <= T <= block_size (" + std::to_string(maxT) +
                                    "), got B=" + std::to_string(B_) + " T=" + std::to_string(T_));
    for (int i = 0; i < B_ * T_; i++) {
        if (inputs[i] < 0 || inputs[i] >= V || (targets && (targets[i] < 0 || targets[i] >= V)))
            throw std::invalid_argument("GPT::forward: token id out of range [0, " + std::to_string(V) + ")");
    }
    ensure_activations(B_, T_);
    B = B_;
    T = T_;
    slice_activations(acts, acts_memory_.data(), B, T);
    inputs_.assign(inputs, inputs + B * T);
    have_targets_ = targets != nullptr;
    if (targets) targets_.assign(targets, targets + B * T);

    const int BT = B * T;
    ParameterTensors& p = params;
    ActivationTensors& a = acts;
    if (on_op) on_op("encoder_forward");
    encoder_forward(a.encoded, inputs, p.wte, p.wpe, B, T, C);
    for (int l = 0; l < L; l++) {
        const float* residual = l == 0 ? a.encoded : a.residual3 + size_t(l - 1) * BT * C;
        // this layer's weights
        const float* l_ln1w = p.ln1w + l * C;                         // (C)
        const float* l_ln1b = p.ln1b + l * C;                         // (C)
        const float* l_qkvw = p.qkvw + size_t(l) * 3 * C * C;         // (3C, C)
        const float* l_qkvb = p.qkvb + l * 3 * C;                     // (3C)
        const float* l_attprojw = p.attprojw + size_t(l) * C * C;     // (C, C)
        const float* l_attprojb = p.attprojb + l * C;                 // (C)
        const float* l_ln2w = p.ln2w + l * C;                         // (C)
        const float* l_ln2b = p.ln2b + l * C;                         // (C)
        const float* l_fcw = p.fcw + size_t(l) * 4 * C * C;           // (4C, C)
        const float* l_fcb = p.fcb + l * 4 * C;                       // (4C)
        const float* l_fcprojw = p.fcprojw + size_t(l) * C * 4 * C;   // (C, 4C)
        const float* l_fcprojb = p.fcprojb + l * C;                   // (C)
        // this layer's activations
        float* l_ln1 = a.ln1 + size_t(l) * BT * C;                    // (B, T, C)
        float* l_ln1_mean = a.ln1_mean + size_t(l) * BT;              // (B, T)
        float* l_ln1_rstd = a.ln1_rstd + size_t(l) * BT;              // (B, T)
        float* l_qkv = a.qkv + size_t(l) * BT * 3 * C;                // (B, T, 3C)
        float* l_atty = a.atty + size_t(l) * BT * C;                  // (B, T, C)
        float* l_att = a.att + size_t(l) * BT * NH * T;               // (B, NH, T, T)
        float* l_attproj = a.attproj + size_t(l) * BT * C;            // (B, T, C)
        float* l_residual2 = a.residual2 + size_t(l) * BT * C;        // (B, T, C)
        float* l_ln2 = a.ln2 + size_t(l) * BT * C;                    // (B, T, C)
        float* l_ln2_mean = a.ln2_mean + size_t(l) * BT;              // (B, T)
        float* l_ln2_rstd = a.ln2_rstd + size_t(l) * BT;              // (B, T)
        float* l_fch = a.fch + size_t(l) * BT * 4 * C;                // (B, T, 4C)
        float* l_fch_gelu = a.fch_gelu + size_t(l) * BT * 4 * C;      // (B, T, 4C)
        float* l_fcproj = a.fcproj + size_t(l) * BT * C;              // (B, T, C)
        float* l_residual3 = a.residual3 + size_t(l) * BT * C;        // (B, T, C)

        if (on_op) on_op("layernorm_forward");
        layernorm_forward(l_ln1, l_ln1_mean, l_ln1_rstd, residual, l_ln1w, l_ln1b, BT, C);
        if (on_op) on_op("matmul_forward");
        matmul_forward(l_qkv, l_ln1, l_qkvw, l_qkvb, BT, C, 3 * C);
        if (on_op) on_op("attention_forward");
        attention_forward(l_atty, l_att, l_qkv, B, T, C, NH);
        if (on_op) on_op("matmul_forward");
        matmul_forward(l_attproj, l_atty, l_attprojw, l_attprojb, BT, C, C);
        if (on_op) on_op("residual_forward");
        residual_forward(l_residual2, residual, l_attproj, long(BT) * C);
        if (on_op) on_op("layernorm_forward");
        layernorm_forward(l_ln2, l_ln2_mean, l_ln2_rstd, l_residual2, l_ln2w, l_ln2b, BT, C);
        if (on_op) on_op("matmul_forward");
        matmul_forward(l_fch, l_ln2, l_fcw, l_fcb, BT, C, 4 * C);
        if (on_op) on_op("gelu_forward");
        gelu_forward(l_fch_gelu, l_fch, long(BT) * 4 * C);
        if (on_op) on_op("matmul_forward");
        matmul_forward(l_fcproj, l_fch_gelu, l_fcprojw, l_fcprojb, BT, 4 * C, C);
        if (on_op) on_op("residual_forward");
        residual_forward(l_residual3, l_residual2, l_fcproj, long(BT) * C);
    }
    const float* residual = a.residual3 + size_t(L - 1) * BT * C;   // (B, T, C)
    if (on_op) on_op("layernorm_forward");
    layernorm_forward(a.lnf, a.lnf_mean, a.lnf_rstd, residual, p.lnfw, p.lnfb, BT, C);
    if (on_op) on_op("matmul_forward");
    matmul_forward(a.logits, a.lnf, p.wte, nullptr, BT, C, V);
    if (on_op) on_op("softmax_forward");
    softmax_forward(a.probs, a.logits, B, T, V);
    if (targets) {
        if (on_op) on_op("crossentropy_forward");
        crossentropy_forward(a.losses, a.probs, targets, B, T, V);
        float sum = 0.0f;   // sequential, as llm.c
        for (int i = 0; i < BT; i++) sum += a.losses[i];
        mean_loss = sum / float(BT);
    } else {
        mean_loss = -1.0f;
    }
}

void GPT::zero_grad() {
    ensure_grads();
    std::memset(grads_memory.data(), 0, grads_memory.size() * sizeof(float));
}

void GPT::backward(int micro_batches) {
    if (!have_targets_ || B == 0) throw std::logic_error("GPT::backward: run forward with targets first");
    ensure_grads();
    if (grads_acts_memory_.size() != acts_memory_.size()) grads_acts_memory_.assign(acts_memory_.size(), 0.0f);
    slice_activations(grads_acts, grads_acts_memory_.data(), B, T);
    // Every op adds into its input gradients, so each gradient tensor is zeroed just
    // before its first writer (while it is about to be in cache anyway), not all up front.
    auto zero = [](float* p, size_t n) { std::memset(p, 0, n * sizeof(float)); };

    const int BT = B * T;
    ParameterTensors& p = params;
    ParameterTensors& g = grads;
    ActivationTensors& a = acts;
    ActivationTensors& ga = grads_acts;

    // d(mean loss)/d(loss[b,t]) = 1/(B*T), over N micro-batches 1/(N*B*T)
    if (micro_batches < 1) throw std::invalid_argument("GPT::backward: micro_batches must be >= 1");
    const float dloss_mean = 1.0f / float(int64_t(micro_batches) * BT);
    for (int i = 0; i < BT; i++) ga.losses[i] = dloss_mean;
    zero(ga.logits, size_t(BT) * V);
    zero(ga.lnf, size_t(BT) * C);
    zero(ga.residual3 + size_t(L - 1) * BT * C, size_t(BT) * C);
    if (on_op) on_op("crossentropy_softmax_backward");
    crossentropy_softmax_backward(ga.logits, ga.losses, a.probs, targets_.data(), B, T, V);
    if (on_op) on_op("matmul_backward");
    matmul_backward(ga.lnf, g.wte, nullptr, ga.logits, a.lnf, p.wte, BT, C, V);
    float* residual = a.residual3 + size_t(L - 1) * BT * C;     // (B, T, C)
    float* dresidual = ga.residual3 + size_t(L - 1) * BT * C;   // (B, T, C)
    if (on_op) on_op("layernorm_backward");
    layernorm_backward(dresidual, g.lnfw, g.lnfb, ga.lnf, residual, p.lnfw, a.lnf_mean, a.lnf_rstd, BT, C);

    for (int l = L - 1; l >= 0; l--) {
        residual = l == 0 ? a.encoded : a.residual3 + size_t(l - 1) * BT * C;
        dresidual = l == 0 ? ga.encoded : ga.residual3 + size_t(l - 1) * BT * C;
        const float* l_ln1w = p.ln1w + l * C;
        const float* l_qkvw = p.qkvw + size_t(l) * 3 * C * C;
        const float* l_attprojw = p.attprojw + size_t(l) * C * C;
        const float* l_ln2w = p.ln2w + l * C;
        const float* l_fcw = p.fcw + size_t(l) * 4 * C * C;
        const float* l_fcprojw = p.fcprojw + size_t(l) * C * 4 * C;
        float* dl_ln1w = g.ln1w + l * C;
        float* dl_ln1b = g.ln1b + l * C;
        float* dl_qkvw = g.qkvw + size_t(l) * 3 * C * C;
        float* dl_qkvb = g.qkvb + l * 3 * C;
        float* dl_attprojw = g.attprojw + size_t(l) * C * C;
        float* dl_attprojb = g.attprojb + l * C;
        float* dl_ln2w = g.ln2w + l * C;
        float* dl_ln2b = g.ln2b + l * C;
        float* dl_fcw = g.fcw + size_t(l) * 4 * C * C;
        float* dl_fcb = g.fcb + l * 4 * C;
        float* dl_fcprojw = g.fcprojw + size_t(l) * C * 4 * C;
        float* dl_fcprojb = g.fcprojb + l * C;
        const float* l_ln1 = a.ln1 + size_t(l) * BT * C;
        const float* l_ln1_mean = a.ln1_mean + size_t(l) * BT;
        const float* l_ln1_rstd = a.ln1_rstd + size_t(l) * BT;
        const float* l_qkv = a.qkv + size_t(l) * BT * 3 * C;
        const float* l_atty = a.atty + size_t(l) * BT * C;
        const float* l_att = a.att + size_t(l) * BT * NH * T;
        const float* l_residual2 = a.residual2 + size_t(l) * BT * C;
        const float* l_ln2 = a.ln2 + size_t(l) * BT * C;
        const float* l_ln2_mean = a.ln2_mean + size_t(l) * BT;
        const float* l_ln2_rstd = a.ln2_rstd + size_t(l) * BT;
        const float* l_fch = a.fch + size_t(l) * BT * 4 * C;
        const float* l_fch_gelu = a.fch_gelu + size_t(l) * BT * 4 * C;
        float* dl_ln1 = ga.ln1 + size_t(l) * BT * C;
        float* dl_qkv = ga.qkv + size_t(l) * BT * 3 * C;
        float* dl_atty = ga.atty + size_t(l) * BT * C;
        float* dl_attproj = ga.attproj + size_t(l) * BT * C;
        float* dl_residual2 = ga.residual2 + size_t(l) * BT * C;
        float* dl_ln2 = ga.ln2 + size_t(l) * BT * C;
        float* dl_fch = ga.fch + size_t(l) * BT * 4 * C;
        float* dl_fch_gelu = ga.fch_gelu + size_t(l) * BT * 4 * C;
        float* dl_fcproj = ga.fcproj + size_t(l) * BT * C;
        float* dl_residual3 = ga.residual3 + size_t(l) * BT * C;

        const size_t BTC = size_t(BT) * C;
        zero(dl_residual2, BTC);
        zero(dl_fcproj, BTC);
        zero(dl_fch_gelu, 4 * BTC);
        zero(dl_fch, 4 * BTC);
        zero(dl_ln2, BTC);
        zero(dresidual, BTC);
        zero(dl_attproj, BTC);
        zero(dl_atty, BTC);
        zero(dl_qkv, 3 * BTC);
        zero(dl_ln1, BTC);
        if (on_op) on_op("residual_backward");
        residual_backward(dl_residual2, dl_fcproj, dl_residual3, long(BT) * C);
        if (on_op) on_op("matmul_backward");
        matmul_backward(dl_fch_gelu, dl_fcprojw, dl_fcprojb, dl_fcproj, l_fch_gelu, l_fcprojw, BT, 4 * C, C);
        if (on_op) on_op("gelu_backward");
        gelu_backward(dl_fch, l_fch, dl_fch_gelu, long(BT) * 4 * C);
        if (on_op) on_op("matmul_backward");
        matmul_backward(dl_ln2, dl_fcw, dl_fcb, dl_fch, l_ln2, l_fcw, BT, C, 4 * C);
        if (on_op) on_op("layernorm_backward");
        layernorm_backward(dl_residual2, dl_ln2w, dl_ln2b, dl_ln2, l_residual2, l_ln2w, l_ln2_mean, l_ln2_rstd, BT, C);
        if (on_op) on_op("residual_backward");
        residual_backward(dresidual, dl_attproj, dl_residual2, long(BT) * C);
        if (on_op) on_op("matmul_backward");
        matmul_backward(dl_atty, dl_attprojw, dl_attprojb, dl_attproj, l_atty, l_attprojw, BT, C, C);
        if (on_op) on_op("attention_backward");
        attention_backward(dl_qkv, dl_atty, l_qkv, l_att, B, T, C, NH);
        if (on_op) on_op("matmul_backward");
        matmul_backward(dl_ln1, dl_qkvw, dl_qkvb, dl_qkv, l_ln1, l_qkvw, BT, C, 3 * C);
        if (on_op) on_op("layernorm_backward");
        layernorm_backward(dresidual, dl_ln1w, dl_ln1b, dl_ln1, residual, l_ln1w, l_ln1_mean, l_ln1_rstd, BT, C);
    }
    if (on_op) on_op("encoder_backward");
    encoder_backward(g.wte, g.wpe, ga.encoded, inputs_.data(), B, T, C);
    mask_out(grads_memory.data());
}

void GPT::mask_out(float* state) const {
    for (size_t i = 0; i < mask.size(); i++)
        if (!mask[i]) state[i] = 0.0f;
}

// [SECTION] op list: op_table()'s rows, forward in order, then their backwards in reverse.

// An op's counts by its kind and its widths, forward or backward.
OpInfo op_cost(const OpRow& r, const GPTConfig& cfg, int B, int T, bool bwd, int layer) {
    const double BT = double(B) * T, C = cfg.n_embd, V = cfg.vocab_size, NH = cfg.n_head, hs = C / NH;
    const double pairs = double(B) * NH * T * (T + 1) / 2.0;   // causal (t, t2) pairs
    const double N = BT, IC = r.in_width.of(cfg), OC = r.out_width.of(cfg), W = OC;
    const bool bias = r.kind == OpKind::Matmul && r.params[1];
    OpInfo o{bwd ? r.backward : r.forward, bwd ? grad_name(r, layer) : op_name(r, layer), r.in_block ? layer : -1, 0, 0, &r, bwd};
    switch (r.kind) {
    case OpKind::Embedding:
        o.flops = bwd ? 2 * BT * C : BT * C;
        o.bytes = bwd ? 4 * 5 * BT * C : 4 * (2 * BT * C) + 4 * BT;
        break;
    case OpKind::LayerNorm:
        o.flops = bwd ? 14 * BT * C : 8 * BT * C;
        o.bytes = bwd ? 4 * (4 * BT * C + 5 * C + 2 * BT) : 4 * (2 * BT * C + 2 * C + 2 * BT);
        break;
    case OpKind::Matmul:
        o.flops = (bwd ? 4 : 2) * N * IC * OC + (bias ? N * OC : 0);
        o.bytes = bwd ? 4 * (2 * N * OC + N * IC + 2 * IC * OC + 2 * N * IC + (bias ? 2 * OC : 0))
                      : 4 * (N * IC + IC * OC + (bias ? OC : 0) + N * OC);
        break;
    case OpKind::Attention:
        o.flops = bwd ? pairs * (8 * hs + 6) : pairs * (4 * hs + 5);
        o.bytes = 4 * ((bwd ? 2 : 1) * BT * 3 * C + double(B) * NH * T * T + BT * C);
        break;
    case OpKind::Residual:
        o.flops = bwd ? 2 * BT * W : BT * W;
        o.bytes = bwd ? 4 * 5 * BT * W : 4 * 3 * BT * W;
        break;
    case OpKind::Gelu:
        o.flops = bwd ? 20 * BT * W : 10 * BT * W;
        o.bytes = bwd ? 4 * 4 * BT * W : 4 * 2 * BT * W;
        break;
    case OpKind::Softmax:
        o.flops = 4 * BT * V;
        o.bytes = 4 * 2 * BT * V;
        break;
    case OpKind::Loss:   // its backward is softmax's too
        o.flops = bwd ? 3 * BT * V : BT;
        o.bytes = bwd ? 4 * 3 * BT * V : 4 * 2 * BT;
        break;
    }
    return o;
}

std::vector<OpInfo> op_list(const GPTConfig& cfg, int B, int T, bool with_backward) {
    std::vector<OpInfo> ops;
    const auto each = [&](bool reverse, const auto& f) {   // every row, a block's once per layer
        const std::span<const OpRow> rows = op_table();
        const size_t n = rows.size();
        for (size_t k = 0; k < n;) {
            const size_t i = reverse ? n - 1 - k : k;
            if (!rows[i].in_block) {
                f(rows[i], -1);
                k++;
                continue;
            }
            size_t end = k;   // the block: rows k .. end-1 in this walk's order
            while (end < n && rows[reverse ? n - 1 - end : end].in_block) end++;
            for (int l = 0; l < cfg.n_layer; l++)
                for (size_t j = k; j < end; j++) f(rows[reverse ? n - 1 - j : j], reverse ? cfg.n_layer - 1 - l : l);
            k = end;
        }
    };
    each(false, [&](const OpRow& r, int l) { ops.push_back(op_cost(r, cfg, B, T, false, l)); });
    if (!with_backward) return ops;
    each(true, [&](const OpRow& r, int l) {
        if (r.backward) ops.push_back(op_cost(r, cfg, B, T, true, l));
    });
    const double P = double(count_parameters(cfg));
    ops.push_back({"adamw_update", "params", -1, 12 * P, 4 * 7 * P, nullptr, true});
    return ops;
}

double flops_per_token(const GPTConfig& cfg, int T, bool with_backward) {
    double s = 0;
    for (auto& o : op_list(cfg, 1, T, with_backward)) s += o.flops;
    return s / T;
}

}  // namespace wl::gpt
