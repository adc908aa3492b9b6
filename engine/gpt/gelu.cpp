// gelu.cpp: see gelu.h. tanh comes from vecmath (same bits native and WASM).
#include "engine/gpt/gelu.h"

#include "engine/gpt/parallel.h"
#include "engine/core/vecmath.h"

namespace wl::gpt {

static const float kGeluScale = 0.7978845608028654f;   // sqrt(2/pi)
static constexpr int kChunk = 256;

void gelu_forward(float* out, const float* inp, long N) {
    parallel_for(int((N + kChunk - 1) / kChunk), 4, [&](int c0, int c1) {
        float th[kChunk];
        for (long s = long(c0) * kChunk; s < N && s < long(c1) * kChunk; s += kChunk) {
            int n = int(N - s < kChunk ? N - s : kChunk);
            const float* x = inp + s;
            for (int i = 0; i < n; i++) th[i] = kGeluScale * (x[i] + 0.044715f * x[i] * x[i] * x[i]);
            math::tanh_array(th, th, n);
            for (int i = 0; i < n; i++) out[s + i] = 0.5f * x[i] * (1.0f + th[i]);
        }
    });
}

void gelu_backward(float* dinp, const float* inp, const float* dout, long N) {
    parallel_for(int((N + kChunk - 1) / kChunk), 4, [&](int c0, int c1) {
        float th[kChunk];
        for (long s = long(c0) * kChunk; s < N && s < long(c1) * kChunk; s += kChunk) {
            int n = int(N - s < kChunk ? N - s : kChunk);
            const float* x = inp + s;
            for (int i = 0; i < n; i++) th[i] = kGeluScale * (x[i] + 0.044715f * x[i] * x[i] * x[i]);
            math::tanh_array(th, th, n);
            for (int i = 0; i < n; i++) {
                float sech2 = 1.0f - th[i] * th[i];
                float local = 0.5f * (1.0f + th[i]) +
                              x[i] * 0.5f * sech2 * kGeluScale * (1.0f + 3.0f * 0.044715f * x[i] * x[i]);
                dinp[s + i] += local * dout[s + i];
            }
        }
    });
}

}  // namespace wl::gpt
