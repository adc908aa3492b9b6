// model_fixtures.h: small GPT shapes, token sequences and bit views shared by the
// tests of the GPT on the mesh (inference and training).
#pragma once
#include "engine/gpt/gpt.h"
#include "engine/gpt/gpt_config.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wl::model::testing {

inline const KernelSource& kernels() {
    static const KernelSource k = read_kernels(WAFERLAB_SOURCE_DIR "/models/kernels");
    return k;
}

inline uint32_t float_bits(float f) {   // std::bit_cast is missing from the WASM toolchain's libc++
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline gpt::GPTConfig config(int layers, int heads, int embd, int block, int vocab) {
    gpt::GPTConfig c;
    c.n_layer = layers;
    c.n_head = heads;
    c.n_embd = embd;
    c.block_size = block;
    c.vocab_size = vocab;
    return c;
}

inline gpt::GPTConfig nano() { return config(3, 4, 64, 64, 65); }   // models/gpt-nano.cfg with a 65-character vocabulary

inline gpt::GPTConfig streaming(gpt::GPTConfig c) {   // the same model, its weights streamed (docs/weight-streaming.md)
    c.execution = wl::gpt::Execution::Streaming;
    return c;
}

// n tokens in [0, V), spread over the vocabulary, fixed by the seed.
inline std::vector<int> tokens(int n, int V, uint32_t seed) {
    std::vector<int> t(static_cast<size_t>(n));
    for (int i = 0; i < n; i++) t[size_t(i)] = int((seed + 7919u * uint32_t(i) * uint32_t(i + 3)) % uint32_t(V));
    return t;
}

// The kernels, through a counter: how many times the compiler (or the plan cache's hashing) read each file.
struct CountingKernels {
    std::map<std::string, std::string> edits;   // file -> replacement source
    int reads = 0;
    KernelSource source() {
        return [this](const std::string& f) {
            reads++;
            auto it = edits.find(f);
            return it != edits.end() ? it->second : kernels()(f);
        };
    }
};

// One backward of B sequences of T tokens on the mesh, against model's (already run on the same
// tokens): the loss and every parameter's gradient, bit for bit (a zero of either sign is a zero).
// Call it through ASSERT_NO_FATAL_FAILURE.
inline void expect_backward_bits(MeshTrainer& tr, const gpt::GPT& model, const std::vector<int>& in, const std::vector<int>& tg, int B, int T) {
    float loss = 0;
    ASSERT_TRUE(tr.backward(in.data(), tg.data(), B, T, &loss)) << tr.error();
    EXPECT_EQ(float_bits(loss), float_bits(model.mean_loss));
    std::vector<float> g;
    tr.read_grads(&g);
    ASSERT_EQ(g.size(), model.grads_memory.size());
    int differ = 0;
    for (size_t i = 0; i < g.size(); i++)
        differ += float_bits(g[i]) != float_bits(model.grads_memory[i]) && !(g[i] == 0 && model.grads_memory[i] == 0);
    EXPECT_EQ(differ, 0) << "parameter gradients";
}

// The reference after one forward and backward of B sequences of T tokens (fixed weights and
// tokens): what a mesh training step is checked against.
struct ReferenceStep {
    gpt::GPT model;
    std::vector<int> in, tg;
    ReferenceStep(const gpt::GPTConfig& cfg, int B, int T)
        : model(cfg), in(tokens(B * T, cfg.vocab_size, 4)), tg(tokens(B * T, cfg.vocab_size, 9)) {
        model.init_weights(3);
        model.forward(in.data(), tg.data(), B, T);
        model.zero_grad();
        model.backward();
    }
};

inline void expect_backward_bits(MeshTrainer& tr, const ReferenceStep& ref, int B, int T) {
    expect_backward_bits(tr, ref.model, ref.in, ref.tg, B, T);
}

// A gradient of an activation over T steps, read out of the SRAM of the op that wrote it on the
// mesh, against the reference's (rows per step), bit for bit.
inline void expect_activation_grad_bits(const MeshTrainer& tr, const std::string& name, int T, const float* ref, int rows) {
    const std::vector<float> m = tr.activation_grad(name, T);
    ASSERT_EQ(m.size(), size_t(T) * size_t(rows)) << name;
    int differ = 0;
    for (size_t i = 0; i < m.size(); i++) differ += float_bits(m[i]) != float_bits(ref[i]);
    EXPECT_EQ(differ, 0) << "d" << name;
}

// A trainer's weights and AdamW moments as bits, to compare two runs whole.
struct TrainerBits {
    std::vector<uint32_t> params, m, v;
    bool operator==(const TrainerBits& o) const { return params == o.params && m == o.m && v == o.v; }
};
inline std::vector<uint32_t> bits(const std::vector<float>& f) {
    std::vector<uint32_t> b(f.size());
    for (size_t i = 0; i < f.size(); i++) b[i] = float_bits(f[i]);
    return b;
}
inline TrainerBits state_of(MeshTrainer& t) {
    std::vector<float> p, m, v;
    t.read_params(&p);
    t.transfer(MeshTrainer::State::Moment1, &m, false);
    t.transfer(MeshTrainer::State::Moment2, &v, false);
    return {bits(p), bits(m), bits(v)};
}

// The launches of op `name` that `which` picks (by their kernel function, OpRun::op) moved no
// byte through the host and some over the fabric; `count` of them ran.
inline void expect_fabric_only(const std::vector<OpRun>& runs, const std::string& name,
                               const std::function<bool(const std::string& op)>& which, int count) {
    int seen = 0;
    for (const OpRun& run : runs)
        if (run.name == name && which(run.op)) {
            seen++;
            EXPECT_EQ(run.host_bytes, 0u) << name << " (" << run.op << "): its inputs or outputs crossed the host";
            EXPECT_GT(run.hops, 0u) << name << " (" << run.op << ")";
        }
    EXPECT_EQ(seen, count) << name << ": launches";
}

}  // namespace wl::model::testing
