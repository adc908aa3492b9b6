// Unstructured sparsity on the mesh (engine/model/sparsity.h, matmul.wk's SPARSE = 1): the
// sparse forward equals the reference run on the same pruned weights, its cost falls with the
// density, and the masks are deterministic and as dense as asked.
#include "engine/gpt/gpt.h"
#include "engine/gpt/rng.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/sparsity.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using namespace wl::model;
using namespace wl::model::testing;

PlanResult plan_sparse(const GPT& model, int mesh, bool train = false) {
    PlanBuilder b(model.cfg, mesh, mesh, kernels(), wl::MachineConfig{}.sram_bytes, train);
    b.set_sparse(sparse_nonzeros(model));
    return b.take();
}

bool is_sparse(const PlannedOp& o) { return o.constants.count("SPARSE") && o.constants.at("SPARSE") == 1; }

// Mesh logits against the reference's on the same weights, as floats (a zero of either sign is
// a zero): how many differ.
int differ(const std::vector<float>& mesh, const float* ref) {
    int n = 0;
    for (size_t i = 0; i < mesh.size(); i++) n += !(mesh[i] == ref[i]);
    return n;
}

// The prompt's logits (T tokens) and then `steps` generation steps (the gemv path) on a pruned model.
void expect_sparse_matches(const GPTConfig& cfg, int mesh, double sparsity, MaskKind kind, int T, int steps) {
    GPT model(cfg);
    model.init_weights(7);
    const PruneStats s = prune_linear_weights(model, sparsity, kind, 11);
    EXPECT_NEAR(s.density(), 1 - sparsity, 1e-3);
    PlanResult r = plan_sparse(model, mesh);
    ASSERT_TRUE(r.ok) << r.error;
    int sparse_ops = 0;
    for (const PlannedOp& o : r.plan.ops) {
        sparse_ops += is_sparse(o);
        if (o.name == "logits") {
            EXPECT_FALSE(is_sparse(o)) << "the logits' wte is the embedding too: left dense";
        }
    }
    EXPECT_EQ(sparse_ops, 4 * cfg.n_layer);
    const std::vector<int> in = tokens(T + steps, cfg.vocab_size, 5);
    MeshGPT m(r.plan, model);
    std::vector<float> logits;
    ASSERT_TRUE(m.forward(in.data(), T, &logits)) << m.error();
    model.forward(in.data(), nullptr, 1, T);
    EXPECT_EQ(differ(logits, model.logits()), 0) << "prompt of " << T << ", sparsity " << sparsity;
    for (int t = T; t < T + steps; t++) {
        ASSERT_TRUE(m.extend(in[size_t(t)], &logits)) << m.error();
        model.forward(in.data(), nullptr, 1, t + 1);
        EXPECT_EQ(differ(logits, model.logits() + size_t(t) * size_t(cfg.vocab_size)), 0) << "step " << t;
    }
}

TEST(MeshSparse, LogitsEqualTheReferenceOnThePrunedWeights) {
    expect_sparse_matches(nano(), 32, 0.5, MaskKind::Magnitude, 64, 0);
    expect_sparse_matches(nano(), 32, 0.9, MaskKind::Random, 17, 3);   // a shorter prompt, then the gemv path
    // OC not a multiple of P (the last PE's padding rows), another head count and width
    expect_sparse_matches(config(2, 3, 48, 32, 37), 16, 0.75, MaskKind::Magnitude, 20, 2);
}

TEST(MeshSparse, NoSparsityStillMatches) {   // SPARSE = 1 with every weight kept: the same sums as dense
    expect_sparse_matches(config(1, 2, 32, 16, 23), 16, 0.0, MaskKind::Magnitude, 16, 0);
}

// Cycle mode: every router and CE each cycle, so the PEs' uneven non-zero counts change the
// timing of the broadcast rounds; the sums, and so the logits, stay the same.
TEST(MeshSparse, CycleModeGivesTheSameLogits) {
    GPT model(config(2, 2, 32, 16, 23));
    model.init_weights(2);
    prune_linear_weights(model, 0.7, MaskKind::Random, 4);
    PlanResult r = plan_sparse(model, 16);
    ASSERT_TRUE(r.ok) << r.error;
    const std::vector<int> in = tokens(16, 23, 8);
    std::vector<float> fast, cycle;
    MeshGPT f(r.plan, model, wl::RunMode::Fast), c(r.plan, model, wl::RunMode::Cycle);
    ASSERT_TRUE(f.forward(in.data(), 16, &fast)) << f.error();
    ASSERT_TRUE(c.forward(in.data(), 16, &cycle)) << c.error();
    EXPECT_EQ(bits(fast), bits(cycle));
    model.forward(in.data(), nullptr, 1, 16);
    EXPECT_EQ(differ(cycle, model.logits()), 0);
}

struct Cost {
    uint64_t cycles = 0, vector_flops = 0, wavelets = 0;   // the pruned matmuls' launches
    uint32_t weight_bytes = 0;                             // their weights' SRAM, most loaded PE, summed
};

Cost forward_cost(double density) {
    const GPTConfig cfg = nano();
    GPT model(cfg);
    model.init_weights(3);
    PlanResult r;
    if (density < 1) {
        prune_linear_weights(model, 1 - density, MaskKind::Random, 5);
        r = plan_sparse(model, 32);
    } else {
        r = plan_model(cfg, 32, 32, kernels());
    }
    EXPECT_TRUE(r.ok) << r.error;
    Cost c;
    if (!r.ok) return c;
    r.plan.cfg.schedule = "sequential";   // each matmul's own cycles over the whole window (a pipeline's overlap)
    MeshGPT m(r.plan, model);
    const std::vector<int> in = tokens(64, cfg.vocab_size, 2);
    std::vector<float> logits;
    EXPECT_TRUE(m.forward(in.data(), 64, &logits)) << m.error();
    for (const OpRun& run : m.last_run()) {
        const PlannedOp* o = r.plan.find(run.name);
        if (run.op != "matmul_forward" || run.name == "logits") continue;
        c.cycles += run.cycles;
        c.vector_flops += run.vector_flops;
        c.wavelets += run.wavelets;
        c.weight_bytes += o->memory.weights;
    }
    return c;
}

// A comparison within one run: the same model at densities 1 (the dense plan), 0.5 and 0.1.
TEST(MeshSparse, CyclesAndFmacsFallWithDensity) {
    const Cost d1 = forward_cost(1), d5 = forward_cost(0.5), d1_10 = forward_cost(0.1);
    EXPECT_LT(d5.cycles, d1.cycles);
    EXPECT_LT(d1_10.cycles, d5.cycles);
    // The fmacs: one per non-zero, T elements each, 2 flops an element; the bias adds T per row
    // whatever the density. So the flops fall with the density, nearly in proportion.
    EXPECT_NEAR(double(d5.vector_flops) / double(d1.vector_flops), 0.5, 0.02);
    EXPECT_NEAR(double(d1_10.vector_flops) / double(d1.vector_flops), 0.1, 0.02);
    // The weights' SRAM: a value and an index per non-zero, and the counts. At half the weights,
    // about as much as dense; at a tenth, far less.
    EXPECT_LT(d1_10.weight_bytes, d1.weight_bytes / 3);
    // Activations are dense: the x broadcast moves as many wavelets at any density.
    EXPECT_EQ(d5.wavelets, d1.wavelets);
    EXPECT_EQ(d1_10.wavelets, d1.wavelets);
}

TEST(MeshSparse, MagnitudeMaskKeepsTheLargest) {
    std::vector<float> w(1000);
    wl::gpt::Rng rng(4);
    for (float& v : w) v = float(rng.normal());
    w[10] = w[11] = 0.5f;   // ties go to the lower index
    for (double d : {0.0, 0.1, 0.25, 0.5, 1.0}) {
        const std::vector<uint8_t> m = prune_mask(w.data(), w.size(), d, MaskKind::Magnitude, 0);
        size_t kept = 0;
        float least_kept = INFINITY, most_dropped = 0;
        for (size_t i = 0; i < w.size(); i++) {
            kept += m[i];
            if (m[i]) least_kept = std::min(least_kept, std::fabs(w[i]));
            else most_dropped = std::max(most_dropped, std::fabs(w[i]));
        }
        EXPECT_EQ(kept, size_t(std::llround(d * 1000))) << d;
        if (kept && kept < w.size()) {
            EXPECT_GE(least_kept, most_dropped) << d;
        }
        if (m[11]) {
            EXPECT_TRUE(m[10]) << "a tie keeps the lower index first";
        }
    }
}

TEST(MeshSparse, RandomMasksAreDeterministicBySeedAndHaveTheDensity) {
    std::vector<float> w(4096, 1.0f);
    const auto a = prune_mask(w.data(), w.size(), 0.3, MaskKind::Random, 42);
    const auto b = prune_mask(w.data(), w.size(), 0.3, MaskKind::Random, 42);
    const auto c = prune_mask(w.data(), w.size(), 0.3, MaskKind::Random, 43);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_EQ(std::count(a.begin(), a.end(), 1), std::llround(0.3 * 4096));
    EXPECT_EQ(std::count(c.begin(), c.end(), 1), std::llround(0.3 * 4096));
    // Spread over the matrix, not a block: each quarter keeps about its share.
    for (int q = 0; q < 4; q++) {
        const long n = std::count(a.begin() + q * 1024, a.begin() + (q + 1) * 1024, 1);
        EXPECT_NEAR(double(n) / 1024, 0.3, 0.06) << "quarter " << q;
    }
    // The whole model: the same seed prunes the same weights; another seed others.
    GPT m1(nano()), m2(nano()), m3(nano());
    for (GPT* m : {&m1, &m2, &m3}) m->init_weights(1);
    const PruneStats s1 = prune_linear_weights(m1, 0.6, MaskKind::Random, 9);
    prune_linear_weights(m2, 0.6, MaskKind::Random, 9);
    prune_linear_weights(m3, 0.6, MaskKind::Random, 10);
    EXPECT_EQ(bits(m1.params_memory), bits(m2.params_memory));
    EXPECT_NE(bits(m1.params_memory), bits(m3.params_memory));
    EXPECT_NEAR(s1.density(), 0.4, 1e-3);
    EXPECT_EQ(s1.weights, size_t(3) * (64 * 192 + 64 * 64 + 64 * 256 + 256 * 64));
    EXPECT_THROW(prune_linear_weights(m1, 0.96, MaskKind::Random, 9), std::invalid_argument);
}

}  // namespace
