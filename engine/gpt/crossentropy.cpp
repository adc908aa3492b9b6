// crossentropy.cpp: see crossentropy.h. exp from vecmath, log from wl_math (both platform-exact).
#include "engine/gpt/crossentropy.h"

#include "engine/core/wl_math.h"
#include "engine/gpt/parallel.h"
#include "engine/core/vecmath.h"

namespace wl::gpt {

void softmax_forward(float* probs, const float* logits, int B, int T, int V) {
    parallel_for(B * T, 4, [&](int r0, int r1) {
        for (int r = r0; r < r1; r++) {
            const float* l = logits + (long)r * V;
            float* p = probs + (long)r * V;
            float maxval = -3.4e38f;
            for (int i = 0; i < V; i++)
                if (l[i] > maxval) maxval = l[i];
            float sum = 0.0f;
            for (int i = 0; i < V; i++) p[i] = l[i] - maxval;
            math::exp_array(p, p, V);
            for (int i = 0; i < V; i++) sum += p[i];
            float inv = 1.0f / sum;
            for (int i = 0; i < V; i++) p[i] *= inv;
        }
    });
}

void crossentropy_forward(float* losses, const float* probs, const int* targets, int B, int T, int V) {
    for (int r = 0; r < B * T; r++) losses[r] = -wl::math::logf(probs[(long)r * V + targets[r]]);
}

void crossentropy_softmax_backward(float* dlogits, const float* dlosses, const float* probs, const int* targets,
                                   int B, int T, int V) {
    parallel_for(B * T, 4, [&](int r0, int r1) {
        for (int r = r0; r < r1; r++) {
            const float* p = probs + (long)r * V;
            float* dl = dlogits + (long)r * V;
            float d = dlosses[r];
            int ix = targets[r];
            for (int i = 0; i < V; i++) dl[i] += (p[i] - (i == ix ? 1.0f : 0.0f)) * d;
        }
    });
}

}  // namespace wl::gpt
