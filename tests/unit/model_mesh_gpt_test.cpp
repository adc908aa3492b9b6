// The GPT's forward pass on the emulated mesh against the reference (engine/gpt):
// the kernels follow the reference's order of operations, and exp/tanh are one
// definition, so the logits match bit for bit (docs/model-compiler.md).
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"

#include <gtest/gtest.h>
#include <bit>
#include <cmath>
#include <set>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshGPT;
using wl::model::MeshPlan;
using wl::model::plan_model;

const wl::model::KernelSource kKernels = wl::model::read_kernels(WAFERLAB_SOURCE_DIR "/models/kernels");

GPTConfig config(int layers, int heads, int embd, int block, int vocab) {
    GPTConfig c;
    c.n_layer = layers;
    c.n_head = heads;
    c.n_embd = embd;
    c.block_size = block;
    c.vocab_size = vocab;
    return c;
}

GPTConfig nano() { return config(3, 4, 64, 64, 65); }   // models/gpt-nano.cfg with a 65-character vocabulary

std::vector<int> tokens(int T, int V, uint32_t seed) {
    std::vector<int> t(static_cast<size_t>(T));
    for (int i = 0; i < T; i++) t[size_t(i)] = int((seed + 7919u * uint32_t(i) * uint32_t(i + 3)) % uint32_t(V));
    return t;
}

// Reference and mesh logits for one forward; returns how many of them differ in any bit.
int compare(const GPTConfig& cfg, int mesh, int T, uint64_t seed, wl::RunMode mode = wl::RunMode::Fast,
            uint64_t* cycles = nullptr) {
    GPT model(cfg);
    model.init_weights(seed);
    const std::vector<int> in = tokens(T, cfg.vocab_size, uint32_t(seed));
    model.forward(in.data(), nullptr, 1, T);
    auto r = plan_model(cfg, mesh, mesh, kKernels);
    EXPECT_TRUE(r.ok) << r.error;
    if (!r.ok) return -1;
    MeshGPT m(r.plan, model, mode);
    std::vector<float> logits;
    EXPECT_TRUE(m.forward(in.data(), T, &logits)) << m.error();
    if (cycles) *cycles = m.last_cycles();
    int differ = 0;
    double worst = 0;
    for (size_t i = 0; i < logits.size(); i++) {
        const float a = logits[i], b = model.logits()[i];
        if (std::bit_cast<uint32_t>(a) != std::bit_cast<uint32_t>(b)) differ++;
        worst = std::max(worst, std::fabs(double(a) - b) / std::max(1e-6, std::fabs(double(b))));
    }
    EXPECT_LE(worst, 1e-4) << "relative difference";
    return differ;
}

TEST(MeshGpt, NanoLogitsMatchTheReferenceBitForBit) {
    EXPECT_EQ(compare(nano(), 32, 64, 1), 0);
    EXPECT_EQ(compare(nano(), 32, 17, 2), 0);   // a shorter context: the kernels' tlen
}

TEST(MeshGpt, AnotherWidthHeadCountAndContext) {
    EXPECT_EQ(compare(config(2, 3, 48, 32, 37), 16, 32, 3), 0);
    EXPECT_EQ(compare(config(2, 3, 48, 32, 37), 16, 1, 4), 0);
}

}  // namespace
