// attention.h: causal multi-head self-attention (the part between the qkv and
// the output projections): att = softmax(q k^T / sqrt(hs)) masked causally, out = att v.
// Legend: B batch, T time, C channels, NH heads, hs = C/NH head size.
#pragma once

namespace wl::gpt {

// out (B,T,C), att (B,NH,T,T) saved for backward (zero above the diagonal), inp (B,T,3C) = [q | k | v]
void attention_forward(float* out, float* att, const float* inp, int B, int T, int C, int NH);
// dinp (B,T,3C) +=. Uses dpreatt[t2] = att[t2] (datt[t2] - sum_t3 att[t3] datt[t3]), O(T) per row.
void attention_backward(float* dinp, const float* dout, const float* inp, const float* att, int B, int T, int C,
                        int NH);

}  // namespace wl::gpt
