// encoder.cpp: see encoder.h.
#include "engine/gpt/encoder.h"

namespace wl::gpt {

void encoder_forward(float* out, const int* inp, const float* wte, const float* wpe, int B, int T, int C) {
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            float* o = out + ((long)b * T + t) * C;
            const float* e = wte + (long)inp[b * T + t] * C;
            const float* p = wpe + (long)t * C;
            for (int i = 0; i < C; i++) o[i] = e[i] + p[i];
        }
}

void encoder_backward(float* dwte, float* dwpe, const float* dout, const int* inp, int B, int T, int C) {
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++) {
            const float* d = dout + ((long)b * T + t) * C;
            float* de = dwte + (long)inp[b * T + t] * C;
            float* dp = dwpe + (long)t * C;
            for (int i = 0; i < C; i++) {
                de[i] += d[i];
                dp[i] += d[i];
            }
        }
}

}  // namespace wl::gpt
