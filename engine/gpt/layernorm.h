// layernorm.h: y = (x - mean) * rstd * w + b over the last axis (eps 1e-5, as GPT-2).
// Legend: N rows (B*T), C channels.
#pragma once

namespace wl::gpt {

// out (N,C), mean (N), rstd (N) saved for backward, inp (N,C), weight (C), bias (C)
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, int N, int C);
// dinp (N,C) +=, dweight (C) +=, dbias (C) +=. The (C) sums run over rows in order 0..N-1.
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, int N, int C);

}  // namespace wl::gpt
