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

float AdamW::step(GPT& model, double lr, const GPTConfig& cfg) {
    const size_t n = model.num_parameters;
    if (model.grads_memory.size() != n) throw std::logic_error("AdamW::step: no gradients (run backward first)");
    if (m.size() != n) {
        m.assign(n, 0.0f);
        v.assign(n, 0.0f);
    }
    float norm = grad_norm(model);
    float clip = 1.0f;
    if (cfg.grad_clip > 0) {
        float coef = float(cfg.grad_clip) / (norm + 1e-6f);   // as torch.nn.utils.clip_grad_norm_
        if (coef < 1.0f) clip = coef;
    }
    t += 1;
    const float b1 = float(cfg.beta1), b2 = float(cfg.beta2), eps = float(cfg.adam_eps);
    const float wd = float(cfg.weight_decay);
    const double bc1 = 1.0 - wl::math::powi_d(cfg.beta1, t), bc2 = 1.0 - wl::math::powi_d(cfg.beta2, t);
    const float step_size = float(lr / bc1);
    const float bc2_sqrt = float(std::sqrt(bc2));
    const float decay = float(1.0 - lr * cfg.weight_decay);

    auto infos = param_infos(model.cfg);
    size_t off = 0;
    for (const ParamInfo& info : infos) {
        float* p = model.params_memory.data() + off;
        float* g = model.grads_memory.data() + off;
        float* mm = m.data() + off;
        float* vv = v.data() + off;
        bool dec = info.decay && wd != 0.0f;
        parallel_for(int(info.count), 4096, [&](int i0, int i1) {
            for (int i = i0; i < i1; i++) {
                float grad = clip == 1.0f ? g[i] : g[i] * clip;
                if (clip != 1.0f) g[i] = grad;   // clip in place, as PyTorch
                mm[i] = b1 * mm[i] + (1.0f - b1) * grad;
                vv[i] = b2 * vv[i] + (1.0f - b2) * (grad * grad);
                float param = dec ? p[i] * decay : p[i];
                float denom = std::sqrt(vv[i]) / bc2_sqrt + eps;
                p[i] = param - step_size * (mm[i] / denom);
            }
        });
        off += info.count;
    }
    return norm;
}

}  // namespace wl::gpt
