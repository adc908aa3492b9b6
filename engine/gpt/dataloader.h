// dataloader.h: random (B, T) windows of a token stream, nanoGPT's get_batch:
// inputs = tokens[i : i+T], targets = tokens[i+1 : i+T+1], i uniform.
// Batch number k of a split is a pure function of (seed, split, k), so training
// resumes bit-identically from a step count alone.
#pragma once
#include <cstdint>
#include <vector>

namespace wl::gpt {

class DataLoader {
public:
    // Throws std::runtime_error when the stream is shorter than T + 1 tokens.
    DataLoader(std::vector<int> tokens, int B, int T, uint64_t seed, int split);
    void batch(int64_t k, int* inputs, int* targets) const;   // inputs, targets (B, T)
    const std::vector<int>& tokens() const { return tokens_; }
    int B, T;

private:
    std::vector<int> tokens_;
    uint64_t seed_;
    int split_;
};

}  // namespace wl::gpt
