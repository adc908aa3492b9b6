// layernorm.cpp: see layernorm.h. Row statistics in fp32 with sequential sums,
// as llm.c; rows are independent, so they split across threads freely.
#include "engine/gpt/layernorm.h"

#include "engine/core/wl_math.h"
#include "engine/gpt/parallel.h"

#include <vector>

namespace wl::gpt {

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C) {
    const float eps = 1e-5f;
    parallel_for(N, 16, [&](int n0, int n1) {
        for (int n = n0; n < n1; n++) {
            const float* x = inp + (long)n * C;
            float m = 0.0f;
            for (int i = 0; i < C; i++) m += x[i];
            m = m / C;
            float v = 0.0f;
            for (int i = 0; i < C; i++) {
                float d = x[i] - m;
                v += d * d;
            }
            v = v / C;
            float s = wl::math::rsqrtf(v + eps);
            float* o = out + (long)n * C;
            for (int i = 0; i < C; i++) o[i] = (s * (x[i] - m)) * weight[i] + bias[i];
            mean[n] = m;
            rstd[n] = s;
        }
    });
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C) {
    // dinp: rows independent.
    parallel_for(N, 16, [&](int n0, int n1) {
        for (int n = n0; n < n1; n++) {
            const float* d = dout + (long)n * C;
            const float* x = inp + (long)n * C;
            float* dx = dinp + (long)n * C;
            float m = mean[n], s = rstd[n];
            float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
            for (int i = 0; i < C; i++) {
                float norm = (x[i] - m) * s;
                float dnorm = weight[i] * d[i];
                dnorm_mean += dnorm;
                dnorm_norm_mean += dnorm * norm;
            }
            dnorm_mean = dnorm_mean / C;
            dnorm_norm_mean = dnorm_norm_mean / C;
            for (int i = 0; i < C; i++) {
                float norm = (x[i] - m) * s;
                float dnorm = weight[i] * d[i];
                float v = dnorm - dnorm_mean;
                v -= norm * dnorm_norm_mean;
                dx[i] += v * s;
            }
        }
    });
    // dweight, dbias: one sequential pass over rows per channel chunk (fixed order).
    parallel_for(C, 16, [&](int c0, int c1) {
        for (int n = 0; n < N; n++) {
            const float* d = dout + (long)n * C;
            const float* x = inp + (long)n * C;
            float m = mean[n], s = rstd[n];
            for (int i = c0; i < c1; i++) {
                dbias[i] += d[i];
                dweight[i] += ((x[i] - m) * s) * d[i];
            }
        }
    });
}

}  // namespace wl::gpt
