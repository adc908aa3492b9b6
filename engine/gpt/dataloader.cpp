// dataloader.cpp: see dataloader.h.
#include "engine/gpt/dataloader.h"

#include "engine/gpt/rng.h"

#include <stdexcept>
#include <string>

namespace wl::gpt {

DataLoader::DataLoader(std::vector<int> tokens, int B_, int T_, uint64_t seed, int split)
    : B(B_), T(T_), tokens_(std::move(tokens)), seed_(seed), split_(split) {
    if (B < 1 || T < 1) throw std::runtime_error("data loader: B and T must be >= 1");
    if (tokens_.size() < size_t(T) + 1)
        throw std::runtime_error("data loader: split " + std::to_string(split) + " has " + std::to_string(tokens_.size()) +
                                 " tokens, needs at least T + 1 = " + std::to_string(T + 1));
}

void DataLoader::batch(int64_t k, int* inputs, int* targets) const {
    Rng r = derive_rng(seed_, uint64_t(k), uint64_t(split_));
    const uint64_t starts = tokens_.size() - size_t(T);   // i in [0, N - T - 1]
    for (int b = 0; b < B; b++) {
        size_t i = size_t(r.below(starts));
        for (int t = 0; t < T; t++) {
            inputs[b * T + t] = tokens_[i + t];
            targets[b * T + t] = tokens_[i + t + 1];
        }
    }
}

}  // namespace wl::gpt
