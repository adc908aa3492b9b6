// sampler.cpp: see sampler.h.
#include "engine/gpt/sampler.h"

#include "engine/gpt/gpt.h"
#include "engine/core/vecmath.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wl::gpt {

int sample_token(const float* logits, int V, float temperature, int top_k, Rng& rng) {
    // A NaN or infinite logit has no probability to draw by: the weights overflowed (finite but huge
    // ones do too) or are NaN. Said, rather than token 0 forever.
    for (int i = 0; i < V; i++)
        if (!std::isfinite(logits[i]))
            throw std::runtime_error("logit " + std::to_string(i) + " of " + std::to_string(V) + " is " + (std::isnan(logits[i]) ? "NaN" : "infinite") +
                                     ": the model's weights overflow the forward (or are not finite), so no token can be sampled");
    if (temperature <= 0.0f) {
        int best = 0;
        for (int i = 1; i < V; i++)
            if (logits[i] > logits[best]) best = i;
        return best;
    }
    std::vector<float> p(logits, logits + V);
    float cut = -3.4e38f;
    if (top_k > 0 && top_k < V) {   // keep logits >= the k-th largest (ties kept)
        std::vector<float> s(p);
        std::nth_element(s.begin(), s.begin() + (top_k - 1), s.end(), std::greater<float>());
        cut = s[top_k - 1];
    }
    float maxval = -3.4e38f;
    for (float x : p) maxval = std::max(maxval, x);
    for (int i = 0; i < V; i++) p[i] = p[i] >= cut ? (p[i] - maxval) / temperature : -1e30f;
    math::exp_array(p.data(), p.data(), V);
    for (int i = 0; i < V; i++)
        if (logits[i] < cut) p[i] = 0.0f;
    double sum = 0;
    for (float x : p) sum += x;
    double u = rng.uniform() * sum, c = 0;
    for (int i = 0; i < V; i++) {
        c += p[i];
        if (u < c) return i;
    }
    for (int i = V - 1; i >= 0; i--)   // u rounded up to sum: the last kept token
        if (p[i] > 0) return i;
    return 0;
}

std::vector<int> generate(const NextLogits& forward, int V, int max_context, std::vector<int> tokens, int n,
                          const SampleOptions& opt, const std::function<void(int)>& on_token) {
    if (tokens.empty()) throw std::invalid_argument("generate: empty prompt");
    Rng rng(opt.seed);
    for (int i = 0; i < n; i++) {
        int T = std::min<int>(int(tokens.size()), max_context);
        const float* logits = forward(tokens.data() + tokens.size() - T, T);
        int next = sample_token(logits, V, opt.temperature, opt.top_k, rng);
        tokens.push_back(next);
        if (on_token) on_token(next);
    }
    return tokens;
}

std::vector<int> generate(GPT& model, std::vector<int> tokens, int n, const SampleOptions& opt,
                          const std::function<void(int)>& on_token) {
    auto forward = [&model](const int* ctx, int T) {
        model.forward(ctx, nullptr, 1, T);
        return model.logits() + size_t(T - 1) * model.V;
    };
    return generate(forward, model.V, model.maxT, std::move(tokens), n, opt, on_token);
}

}  // namespace wl::gpt
