// adamw.h: AdamW (decoupled weight decay) with nanoGPT's schedule and
// gradient clipping, matching torch.optim.AdamW + clip_grad_norm_.
//
// Per parameter p with gradient g (after clipping), at step t = 1, 2, ...:
//   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
//   p = p * (1 - lr wd)                      (decay tensors only: matrices, embeddings)
//   p = p - (lr / (1-b1^t)) * m / (sqrt(v) / sqrt(1-b2^t) + eps)
// which is PyTorch's operation order, so the fixture agrees to a few ulps.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/gpt/gpt.h"

namespace wl::gpt {

// nanoGPT's get_lr: linear warmup, cosine decay to min_lr at lr_decay_iters, then min_lr. step counts from 0.
double learning_rate_at(const GPTConfig& cfg, int64_t step);

// One update's constants, from the config, the learning rate and the step t (1, 2, ...), in the
// reference's precision: the floats the mesh's kernels take (mesh_trainer.h's AdamHp) are these.
struct AdamWStep {
    float b1 = 0, one_minus_b1 = 0, b2 = 0, one_minus_b2 = 0, eps = 0;
    float step_size = 0;   // lr / (1 - b1^t)
    float bc2_sqrt = 0;    // sqrt(1 - b2^t)
    float decay = 1;       // 1 - lr * weight_decay
    float clip = 1;        // the clipping coefficient: 1, or grad_clip / (norm + 1e-6) when that is less
    static AdamWStep at(const GPTConfig& cfg, double lr, int64_t t);
    void set_clip(const GPTConfig& cfg, float norm);
};

// n parameters p updated in place from their gradients g (clipped in place, as PyTorch) and
// moments m, v; decay: the tensor takes weight decay (info.decay).
void adamw_update(const AdamWStep& s, bool decay, float* p, float* g, float* m, float* v, size_t n);

struct AdamW {
    std::vector<float> m, v;   // (num_parameters) each
    int64_t t = 0;             // updates done

    explicit AdamW(size_t num_parameters = 0) : m(num_parameters, 0.0f), v(num_parameters, 0.0f) {}
    // Clips model.grads to cfg.grad_clip (global L2 norm; 0 = off), then one update. Returns the pre-clip norm.
    float step(GPT& model, double lr, const GPTConfig& cfg);
};

// The global L2 norm of all gradients: per-tensor sums in double in index order, then in tensor order.
float grad_norm(const GPT& model);

}  // namespace wl::gpt
