// adamw.cpp: see adamw.h.
#include "engine/gpt/adamw.h"

#include "engine/core/wl_math.h"
#include "engine/gpt/parallel.h"

#include <cmath>
#include <stdexcept>

namespace wl::gpt {

double learning_rate_at(const GPTConfig& cfg, int64_t step) {
    if (step < cfg.warmup_iters) return cfg.learning_rate * double(step + 1) / double(cfg.warmup_iters + 1);
    if (step > cfg.lr_decay_iters || cfg.lr_decay_iters <= cfg.warmup_iters) return cfg.min_lr;
    double ratio = double(step - cfg.warmup_iters) / double(cfg.lr_decay_iters - cfg.warmup_iters);
    constexpr double kPi = 3.14159265358979323846;
    double coeff = 0.5 * (1.0 + wl::math::cos_small_d(kPi * ratio));   // |pi ratio| <= pi: in range
    return cfg.min_lr + coeff * (cfg.learning_rate - cfg.min_lr);
}

float grad_norm(const GPT& model) {
    double total = 0.0;
    for (size_t i = 0; i < model.grads_memory.size(); i++) {   // empty before the first backward
        double g = model.grads_memory[i];
        total += g * g;
    }
    return float(std::sqrt(total));
}

AdamWStep AdamWStep::at(const GPTConfig& cfg, double lr, int64_t t) {
    AdamWStep s;
    const double bc1 = 1.0 - wl::math::powi_d(cfg.beta1, t), bc2 = 1.0 - wl::math::powi_d(cfg.beta2, t);
    s.b1 = float(cfg.beta1);
    s.one_minus_b1 = 1.0f - s.b1;
    s.b2 = float(cfg.beta2);
    s.one_minus_b2 = 1.0f - s.b2;
    s.eps = float(cfg.adam_eps);
    s.step_size = float(lr / bc1);
    s.bc2_sqrt = float(std::sqrt(bc2));
    s.decay = float(1.0 - lr * cfg.weight_decay);
    return s;
}

void AdamWStep::set_clip(const GPTConfig& cfg, float norm) {
    clip = 1.0f;
    if (cfg.grad_clip > 0) {
        float coef = float(cfg.grad_clip) / (norm + 1e-6f);   // as torch.nn.utils.clip_grad_norm_
        if (coef < 1.0f) clip = coef;
    }
}

void adamw_update(const AdamWStep& s, bool decay, float* p, float* g, float* m, float* v, size_t n) {
    parallel_for(int(n), 4096, [&](int i0, int i1) {
        for (int i = i0; i < i1; i++) {
            float grad = s.clip == 1.0f ? g[i] : g[i] * s.clip;
            if (s.clip != 1.0f) g[i] = grad;   // clip in place, as PyTorch
            m[i] = s.b1 * m[i] + s.one_minus_b1 * grad;
            v[i] = s.b2 * v[i] + s.one_minus_b2 * (grad * grad);
            float param = decay ? p[i] * s.decay : p[i];
            float denom = std::sqrt(v[i]) / s.bc2_sqrt + s.eps;
            p[i] = param - s.step_size * (m[i] / denom);
        }
    });
}

float AdamW::step(GPT& model, double lr, const GPTConfig& cfg) {
    const size_t n = model.num_parameters;
    if (model.grads_memory.size() != n) throw std::logic_error("AdamW::step: no gradients (run backward first)");
    if (m.size() != n) {
        m.assign(n, 0.0f);
        v.assign(n, 0.0f);
    }
    const float norm = grad_norm(model);
    t += 1;
    AdamWStep s = AdamWStep::at(cfg, lr, t);
    s.set_clip(cfg, norm);
    size_t off = 0;
    for (const ParamInfo& info : param_infos(model.cfg)) {
        adamw_update(s, info.decay && float(cfg.weight_decay) != 0.0f, model.params_memory.data() + off, model.grads_memory.data() + off,
                     m.data() + off, v.data() + off, info.count);
        off += info.count;
    }
    return norm;
}

}  // namespace wl::gpt
