// crossentropy.h: softmax over the vocabulary and the cross-entropy loss,
// losses[b,t] = -log probs[b,t,targets[b,t]]; the backward uses the fused
// form dlogits = (probs - onehot) * dloss.
// Legend: B batch, T time, V vocab.
#pragma once

namespace wl::gpt {

// probs (B,T,V), logits (B,T,V)
void softmax_forward(float* probs, const float* logits, int B, int T, int V);
// losses (B,T), probs (B,T,V), targets (B,T)
void crossentropy_forward(float* losses, const float* probs, const int* targets, int B, int T, int V);
// dlogits (B,T,V) +=, dlosses (B,T)
void crossentropy_softmax_backward(float* dlogits, const float* dlosses, const float* probs, const int* targets,
                                   int B, int T, int V);

}  // namespace wl::gpt
