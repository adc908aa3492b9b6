// residual.h: out = a + b; the backward sends dout to both inputs.
#pragma once

namespace wl::gpt {

void residual_forward(float* out, const float* a, const float* b, long N);       // all (N)
void residual_backward(float* da, float* db, const float* dout, long N);         // da, db (N) +=

}  // namespace wl::gpt
