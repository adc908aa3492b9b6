// sampler.h: next-token sampling (temperature, top-k, seeded) and text generation.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/gpt/rng.h"

namespace wl::gpt {

class GPT;

struct SampleOptions {
    float temperature = 1.0f;   // 0: greedy (argmax)
    int top_k = 0;              // 0: all tokens
    uint64_t seed = 1337;
};

// One token from logits (V): softmax(logits / temperature) restricted to the top_k largest.
int sample_token(const float* logits, int V, float temperature, int top_k, Rng& rng);

// A forward pass seen from the sampler: the logits (V) of the last of T context tokens.
using NextLogits = std::function<const float*(const int* context, int T)>;

// Appends n tokens to prompt (non-empty), feeding at most max_context tokens of context.
// on_token (optional) sees each new token as it is made. Returns prompt + new tokens.
std::vector<int> generate(const NextLogits& forward, int V, int max_context, std::vector<int> prompt, int n,
                          const SampleOptions& opt, const std::function<void(int)>& on_token = {});
// The same with the reference model's forward.
std::vector<int> generate(GPT& model, std::vector<int> prompt, int n, const SampleOptions& opt,
                          const std::function<void(int)>& on_token = {});

}  // namespace wl::gpt
