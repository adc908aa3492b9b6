// gelu.h: GELU, tanh form as GPT-2: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
#pragma once

namespace wl::gpt {

void gelu_forward(float* out, const float* inp, long N);               // out (N), inp (N)
void gelu_backward(float* dinp, const float* inp, const float* dout, long N);   // dinp (N) +=

}  // namespace wl::gpt
