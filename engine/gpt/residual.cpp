// residual.cpp: see residual.h.
#include "engine/gpt/residual.h"

namespace wl::gpt {

void residual_forward(float* out, const float* a, const float* b, long N) {
    for (long i = 0; i < N; i++) out[i] = a[i] + b[i];
}

void residual_backward(float* da, float* db, const float* dout, long N) {
    for (long i = 0; i < N; i++) {
        da[i] += dout[i];
        db[i] += dout[i];
    }
}

}  // namespace wl::gpt
