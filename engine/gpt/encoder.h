// encoder.h: token + position embedding, out[b,t,:] = wte[inp[b,t],:] + wpe[t,:].
// Legend: B batch, T time, C channels, V vocab.
#pragma once

namespace wl::gpt {

// out (B,T,C), inp (B,T) token ids, wte (V,C), wpe (maxT,C)
void encoder_forward(float* out, const int* inp, const float* wte, const float* wpe, int B, int T, int C);
// dwte (V,C) += ..., dwpe (maxT,C) += ...; sequential over (b,t) so the sum order is fixed.
void encoder_backward(float* dwte, float* dwpe, const float* dout, const int* inp, int B, int T, int C);

}  // namespace wl::gpt
