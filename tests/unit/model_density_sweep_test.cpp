// The density sweep (engine/model/density_sweep.h): each point's figures are what the mesh gives
// when the same plan is built and run directly (dense, and pruned at that density), the sparse
// forwards equal the reference on the same weights, the training step is MeshTrainer::step's,
// and a sweep that cannot run says why.
#include "engine/gpt/adamw.h"
#include "engine/gpt/gpt.h"
#include "engine/model/density_sweep.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_measure.h"
#include "engine/model/mesh_trainer.h"
#include "engine/model/sparsity.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using namespace wl::model;
using namespace wl::model::testing;

constexpr int kMesh = 16;

DensitySweepSettings settings(const GPTConfig& cfg, bool train) {
    DensitySweepSettings s;
    s.mesh_w = s.mesh_h = kMesh;
    s.seed = 11;
    s.tokens = bench_tokens(cfg.block_size, cfg.vocab_size);
    if (train) {
        s.B = 2, s.T = cfg.block_size;
        bench_batch(s.B, s.T, cfg.vocab_size, &s.inputs, &s.targets);
        s.lr = 1e-3;
    }
    return s;
}

// The figures of a forward (and its generation step) run directly on a plan.
struct Direct {
    RunFigures op, forward, generation;
};
Direct run_directly(const MeshPlan& plan, const GPT& model, const DensitySweepSettings& s) {
    Direct d;
    MeshGPT mesh(plan, model);
    std::vector<float> logits;
    const int T = int(s.tokens.size());
    EXPECT_TRUE(mesh.forward(s.tokens.data(), T, &logits)) << mesh.error();
    for (const OpRun& r : mesh.last_run()) {
        d.forward.cycles += r.cycles, d.forward.wavelets += r.wavelets;
        if (r.name == s.op) d.op = {r.cycles, r.wavelets};
    }
    EXPECT_TRUE(mesh.forward(s.tokens.data(), T - 1, &logits) && mesh.extend(s.tokens.back(), &logits)) << mesh.error();
    for (const OpRun& r : mesh.last_run()) d.generation.cycles += r.cycles, d.generation.wavelets += r.wavelets;
    return d;
}

TEST(DensitySweep, EachPointIsTheMeshsOwnRunOfThatPlan) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.schedule = "sequential";   // as the sweep runs (density_sweep.cpp): each op's own cycles
    GPT model(cfg);
    model.init_weights(5);
    const DensitySweepSettings s = settings(cfg, true);
    DensitySweep sweep(model, kernels(), s);
    double last = 0;
    int units = 0;
    while (sweep.step()) {
        units++;
        EXPECT_GE(sweep.progress(), last) << "progress goes forward";
        last = sweep.progress();
        EXPECT_FALSE(sweep.activity().empty());
    }
    ASSERT_TRUE(sweep.error().empty()) << sweep.error();
    EXPECT_TRUE(sweep.done());
    EXPECT_EQ(sweep.progress(), 1.0);
    EXPECT_GT(units, 50) << "in units: plan steps, load steps, runs, the step's launches";
    ASSERT_EQ(sweep.points().size(), 1 + sweep_densities().size());

    // The dense point: the resident plan run directly, and one training step on the same batch.
    const DensityPoint& dense = sweep.points()[0];
    EXPECT_FALSE(dense.sparse);
    EXPECT_TRUE(dense.measured && dense.trained);
    PlanResult r = plan_model(cfg, kMesh, kMesh, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    const Direct d = run_directly(r.plan, model, s);
    EXPECT_EQ(dense.forward.cycles, d.forward.cycles);
    EXPECT_EQ(dense.forward.wavelets, d.forward.wavelets);
    EXPECT_EQ(dense.op.cycles, d.op.cycles);
    EXPECT_GT(dense.op.cycles, 0u);
    EXPECT_EQ(dense.generation.cycles, d.generation.cycles);
    EXPECT_LT(dense.matmuls.cycles, dense.forward.cycles);
    EXPECT_GE(dense.matmuls.cycles, dense.op.cycles);
    PlanResult t = plan_model(cfg, kMesh, kMesh, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(t.ok) << t.error;
    MeshTrainer tr(t.plan, model);
    TrainStep st;
    ASSERT_TRUE(tr.step(s.inputs.data(), s.targets.data(), s.B, s.T, s.lr, &st)) << tr.error();
    EXPECT_EQ(dense.train_step.cycles, st.cycles);
    uint64_t wavelets = 0;
    for (const OpRun& run : tr.last_run()) wavelets += run.wavelets;
    EXPECT_EQ(dense.train_step.wavelets, wavelets);
    EXPECT_GT(dense.train_matmuls.cycles, 0u);
    EXPECT_LT(dense.train_matmuls.cycles, dense.train_step.cycles);

    // Each sparse point: the weights pruned to its density, planned SPARSE = 1 and run directly.
    for (size_t i = 1; i < sweep.points().size(); i++) {
        const DensityPoint& p = sweep.points()[i];
        SCOPED_TRACE("density " + std::to_string(sweep_densities()[i - 1]));
        EXPECT_TRUE(p.sparse);
        EXPECT_NEAR(p.density, sweep_densities()[i - 1], 0.01);
        EXPECT_EQ(p.logits_differ, 0) << "the sparse forward is the reference's on the same weights";
        EXPECT_TRUE(p.trained || !p.train_error.empty());
        GPT pruned(cfg);
        pruned.params_memory = model.params_memory;
        prune_linear_weights(pruned, 1 - sweep_densities()[i - 1], s.mask, s.seed);
        PlanBuilder b(cfg, kMesh, kMesh, kernels());
        b.set_sparse(sparse_nonzeros(pruned));
        PlanResult sr = b.take();
        ASSERT_TRUE(sr.ok) << sr.error;
        const Direct sd = run_directly(sr.plan, pruned, s);
        EXPECT_EQ(p.forward.cycles, sd.forward.cycles);
        EXPECT_EQ(p.op.cycles, sd.op.cycles);
        EXPECT_EQ(p.generation.cycles, sd.generation.cycles);
    }
    // Sparser is cheaper for the pruned matmuls between densities 0.5 and 0.1.
    EXPECT_LT(sweep.points()[4].matmuls.cycles, sweep.points()[2].matmuls.cycles);
}

TEST(DensitySweep, WithoutABatchOnlyTheForwardsRun) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    GPT model(cfg);
    model.init_weights(3);
    DensitySweep sweep(model, kernels(), settings(cfg, false));
    while (sweep.step()) {
    }
    ASSERT_TRUE(sweep.error().empty()) << sweep.error();
    for (const DensityPoint& p : sweep.points()) {
        EXPECT_TRUE(p.measured);
        EXPECT_FALSE(p.trained);
        EXPECT_EQ(p.train_step.cycles, 0u);
    }
}

TEST(DensitySweep, WhatCannotRunSaysWhy) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    GPT model(cfg);
    model.init_weights(3);
    DensitySweepSettings s = settings(cfg, false);
    s.op = "l0.attn";
    DensitySweep not_matmul(model, kernels(), s);
    while (not_matmul.step()) {
    }
    EXPECT_EQ(not_matmul.error(), "'l0.attn' is not a matmul of this model");
    EXPECT_FALSE(not_matmul.done());
    EXPECT_EQ(not_matmul.points().size(), 1u);

    s = settings(cfg, false);
    s.mesh_w = s.mesh_h = 2;
    DensitySweep small(model, kernels(), s);
    while (small.step()) {
    }
    EXPECT_TRUE(small.error().find("bytes") != std::string::npos || small.error().find("mesh") != std::string::npos)
        << small.error();   // the planner's words

    s = settings(cfg, false);
    s.tokens.resize(1);
    EXPECT_THROW(DensitySweep(model, kernels(), s), std::invalid_argument);
    s = settings(cfg, true);
    s.targets.pop_back();
    EXPECT_THROW(DensitySweep(model, kernels(), s), std::invalid_argument);
}

}  // namespace
