// Training with a fixed sparsity mask on the mesh (matmul.wk's SPARSE = 1 with TRAIN = 1) against
// the reference's masked training (gpt::GPT::mask: backward() zeroes the masked gradients).
// Only the non-zeros are parameters on the PEs, and every sum runs in the dense code's order
// with the zero products skipped, so the gradients, and AdamW's steps without clipping, are the
// reference's bit for bit (a zero of either sign is a zero). The masked weights stay exactly zero,
// and a step's emulated cycles fall as the density falls (docs/model-compiler.md, "Sparsity").
#include "engine/gpt/adamw.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/trainer.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"
#include "engine/model/sparsity.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using namespace wl::model;
using namespace wl::model::testing;

PlanResult plan_sparse_train(const GPT& model, int mesh) {
    PlanBuilder b(model.cfg, mesh, mesh, kernels(), wl::MachineConfig{}.sram_bytes, /*train=*/true);
    b.set_sparse(sparse_nonzeros(model));
    return b.take();
}

bool is_sparse(const PlannedOp& o) { return sparse_matmul(o); }

// Elements whose bits differ (+0 and -0 count as equal).
int differ(const std::vector<float>& a, const std::vector<float>& b) {
    int n = 0;
    for (size_t i = 0; i < a.size(); i++) n += float_bits(a[i]) != float_bits(b[i]) && !(a[i] == 0 && b[i] == 0);
    return n;
}

// How many masked parameters are not exactly zero.
int masked_nonzero(const GPT& model, const std::vector<float>& state) {
    int n = 0;
    for (size_t i = 0; i < model.mask.size(); i++) n += !model.mask[i] && state[i] != 0.0f;
    return n;
}

TEST(MeshSparseTrain, GradientsMatchTheMaskedReferenceBitForBit) {
    struct Case {
        GPTConfig cfg;
        int mesh, B, T;
        double sparsity;
        MaskKind kind;
    };
    for (const Case& c : {Case{config(2, 3, 48, 32, 37), 16, 3, 20, 0.75, MaskKind::Random},
                          Case{nano(), 32, 2, 64, 0.5, MaskKind::Magnitude}}) {
        SCOPED_TRACE("sparsity " + std::to_string(c.sparsity));
        GPT model(c.cfg);
        model.init_weights(5);
        prune_linear_weights(model, c.sparsity, c.kind, 3);
        PlanResult r = plan_sparse_train(model, c.mesh);
        ASSERT_TRUE(r.ok) << r.error;
        int sparse_ops = 0;
        for (const PlannedOp& o : r.plan.ops)
            if (is_sparse(o)) {
                sparse_ops++;
                EXPECT_TRUE(o.constants.count("NZT")) << o.name << ": a training plan sizes the transposed columns";
            }
        EXPECT_EQ(sparse_ops, 4 * c.cfg.n_layer);
        const std::vector<int> in = tokens(c.B * c.T, c.cfg.vocab_size, 8), tg = tokens(c.B * c.T, c.cfg.vocab_size, 13);
        model.forward(in.data(), tg.data(), c.B, c.T);
        model.zero_grad();
        model.backward();
        EXPECT_EQ(masked_nonzero(model, model.grads_memory), 0) << "the reference's masked gradients";
        MeshTrainer tr(r.plan, model);
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, model, in, tg, c.B, c.T));
        // dx went through the transposed non-zeros: the first layer's input gradient too.
        const std::vector<float> dln1 = tr.activation_grad("l0.ln1", c.T);
        const float* ref = model.grads_acts.ln1 + size_t(c.B - 1) * size_t(c.T) * size_t(c.cfg.n_embd);
        ASSERT_EQ(dln1.size(), size_t(c.T) * size_t(c.cfg.n_embd));
        EXPECT_EQ(differ(dln1, std::vector<float>(ref, ref + dln1.size())), 0) << "dl0.ln1, the last sequence's";
    }
}

// Four AdamW steps without clipping: the mesh's weights, m and v are the reference's bit for bit,
// the masked weights (and their moments) are exactly zero in both, and the kept ones moved. The
// mesh's own forward on its trained weights gives the reference's loss on the same weights: the
// PEs hold nothing but the non-zeros. A trainer rebuilt from the read-back state (a checkpoint's)
// takes the next step to the same bits.
TEST(MeshSparseTrain, MaskedWeightsStayZeroAndStepsMatchTheReference) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.grad_clip = 0;   // the norm then decides nothing: every step is exact
    cfg.warmup_iters = 2;
    cfg.weight_decay = 0.1;
    const int B = 2, T = 16, steps = 4;
    GPT model(cfg);
    model.init_weights(11);
    const PruneStats ps = prune_linear_weights(model, 0.8, MaskKind::Magnitude, 1);
    const std::vector<float> initial = model.params_memory;
    PlanResult r = plan_sparse_train(model, 16);
    ASSERT_TRUE(r.ok) << r.error;
    MeshTrainer tr(r.plan, model);
    wl::gpt::AdamW opt(model.num_parameters);
    std::vector<int> in, tg;
    for (int s = 0; s < steps; s++) {
        in = tokens(B * T, cfg.vocab_size, uint32_t(31 * s + 1));
        tg = tokens(B * T, cfg.vocab_size, uint32_t(31 * s + 6));
        const double lr = wl::gpt::learning_rate_at(cfg, s);
        model.forward(in.data(), tg.data(), B, T);
        model.zero_grad();
        model.backward();
        opt.step(model, lr, cfg);
        TrainStep st;
        ASSERT_TRUE(tr.step(in.data(), tg.data(), B, T, lr, &st)) << tr.error();
        EXPECT_EQ(float_bits(st.loss), float_bits(model.mean_loss)) << "step " << s;
    }
    std::vector<float> p, m, v;
    tr.read_params(&p);
    tr.transfer(MeshTrainer::State::Moment1, &m, false);
    tr.transfer(MeshTrainer::State::Moment2, &v, false);
    EXPECT_EQ(differ(p, model.params_memory), 0);
    EXPECT_EQ(differ(m, opt.m), 0);
    EXPECT_EQ(differ(v, opt.v), 0);
    EXPECT_EQ(masked_nonzero(model, model.params_memory), 0) << "the reference's masked weights";
    EXPECT_EQ(masked_nonzero(model, opt.m), 0);
    int masked = 0, moved = 0, kept = 0;
    for (size_t i = 0; i < model.mask.size(); i++) {
        masked += !model.mask[i];
        kept += model.mask[i];
        moved += model.mask[i] && p[i] != initial[i];
    }
    EXPECT_EQ(size_t(kept), model.num_parameters - (ps.weights - ps.kept));
    EXPECT_GT(masked, 0);
    EXPECT_GT(moved, kept * 9 / 10) << "the kept weights train";
    float mesh_loss = 0;
    ASSERT_TRUE(tr.eval_loss(in.data(), tg.data(), B, T, &mesh_loss)) << tr.error();
    model.forward(in.data(), tg.data(), B, T);
    EXPECT_EQ(float_bits(mesh_loss), float_bits(model.mean_loss)) << "the mesh's forward on its trained weights";

    GPT again(cfg);
    again.params_memory = p;
    again.mask = model.mask;
    MeshTrainer b(r.plan, again);
    b.transfer(MeshTrainer::State::Moment1, &m, true);
    b.transfer(MeshTrainer::State::Moment2, &v, true);
    b.set_updates(tr.updates());
    TrainStep sa, sb;
    ASSERT_TRUE(tr.step(tg.data(), in.data(), B, T, 2e-3, &sa)) << tr.error();
    ASSERT_TRUE(b.step(tg.data(), in.data(), B, T, 2e-3, &sb)) << b.error();
    std::vector<float> pa, pb;
    tr.read_params(&pa);
    b.read_params(&pb);
    EXPECT_EQ(differ(pb, pa), 0) << "resumed from the read-back state";
}

// With clipping (gpt-nano's grad_clip 1, which these steps reach), the global norm differs as it
// does dense: the reference adds the squares in double, a PE in fp32 (the masked gradients add
// nothing either way). So, as MeshTrain.NanoStepsWithClippingTrackTheReference holds dense: the
// norm within 1e-5 (relative), the losses within 1e-4, each weight within 1e-3 of its tensor's
// largest; and the masked weights are exactly zero on both sides.
TEST(MeshSparseTrain, NanoStepsWithClippingTrackTheMaskedReference) {
    GPTConfig cfg = nano();
    cfg.warmup_iters = 2;   // larger steps sooner
    const int B = 2, T = 64;
    GPT model(cfg);
    model.init_weights(1);
    prune_linear_weights(model, 0.75, MaskKind::Magnitude, 1);
    PlanResult r = plan_sparse_train(model, 32);
    ASSERT_TRUE(r.ok) << r.error;
    MeshTrainer tr(r.plan, model);
    wl::gpt::AdamW opt(model.num_parameters);
    int clipped = 0;
    for (int s = 0; s < 3; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(31 * s + 1)),
                               tg = tokens(B * T, cfg.vocab_size, uint32_t(31 * s + 6));
        const double lr = wl::gpt::learning_rate_at(cfg, s);
        model.forward(in.data(), tg.data(), B, T);
        model.zero_grad();
        model.backward();
        const float norm = opt.step(model, lr, cfg);
        TrainStep st;
        ASSERT_TRUE(tr.step(in.data(), tg.data(), B, T, lr, &st)) << tr.error();
        clipped += norm > cfg.grad_clip;
        EXPECT_LE(std::fabs(st.grad_norm - norm) / norm, 1e-5f) << "step " << s;
        EXPECT_LE(std::fabs(st.loss - model.mean_loss) / model.mean_loss, 1e-4f) << "step " << s;
    }
    EXPECT_GT(clipped, 0) << "no step clipped";
    std::vector<float> p;
    tr.read_params(&p);
    EXPECT_EQ(masked_nonzero(model, p), 0);
    EXPECT_EQ(masked_nonzero(model, model.params_memory), 0);
    size_t off = 0;
    double worst = 0;
    for (const wl::gpt::ParamInfo& info : wl::gpt::param_infos(cfg)) {
        double diff = 0, scale = 0;
        for (size_t i = off; i < off + info.count; i++) {
            diff = std::max(diff, std::fabs(double(p[i]) - model.params_memory[i]));
            scale = std::max(scale, std::fabs(double(model.params_memory[i])));
        }
        worst = std::max(worst, diff / scale);
        off += info.count;
    }
    EXPECT_LE(worst, 1e-3);
}

// Cycle mode steps every router and CE: two sparse training steps give fast mode's bits.
TEST(MeshSparseTrain, CycleModeStepsGiveTheSameBits) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    cfg.warmup_iters = 1;
    GPT model(cfg);
    model.init_weights(4);
    prune_linear_weights(model, 0.7, MaskKind::Random, 2);
    PlanResult r = plan_sparse_train(model, 8);
    ASSERT_TRUE(r.ok) << r.error;
    std::vector<std::vector<float>> weights;
    std::vector<uint64_t> cycles;
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        MeshTrainer tr(r.plan, model, mode);
        for (int s = 0; s < 2; s++) {
            const std::vector<int> in = tokens(16, cfg.vocab_size, uint32_t(s + 1)), tg = tokens(16, cfg.vocab_size, uint32_t(s + 7));
            TrainStep st;
            ASSERT_TRUE(tr.step(in.data(), tg.data(), 2, 8, 1e-2, &st)) << tr.error();
            if (s == 0) cycles.push_back(st.cycles);
        }
        weights.emplace_back();
        tr.read_params(&weights.back());
    }
    EXPECT_EQ(differ(weights[1], weights[0]), 0);
    EXPECT_EQ(masked_nonzero(model, weights[1]), 0);
    EXPECT_GT(cycles[1], 0u);
}

// One training step (B = 1) of the same model at falling densities, beside the dense plan: the
// emulated cycles of the whole step (forward, backward, norm, AdamW) fall with the density.
TEST(MeshSparseTrain, StepCyclesFallWithDensity) {
    const GPTConfig cfg = nano();
    const std::vector<int> in = tokens(64, cfg.vocab_size, 2), tg = tokens(64, cfg.vocab_size, 3);
    auto step_cycles = [&](double sparsity) {
        GPT model(cfg);
        model.init_weights(1);
        PlanResult r;
        if (sparsity < 0) {
            r = plan_model(cfg, 32, 32, kernels(), wl::MachineConfig{}.sram_bytes, true);
        } else {
            prune_linear_weights(model, sparsity, MaskKind::Magnitude, 1);
            r = plan_sparse_train(model, 32);
        }
        EXPECT_TRUE(r.ok) << r.error;
        if (!r.ok) return uint64_t(0);
        MeshTrainer tr(r.plan, model);
        TrainStep st;
        EXPECT_TRUE(tr.step(in.data(), tg.data(), 1, 64, 1e-3, &st)) << tr.error();
        std::printf("[ info ] sparsity %.2f: %llu cycles\n", sparsity, (unsigned long long)st.cycles);
        return st.cycles;
    };
    const uint64_t dense = step_cycles(-1), half = step_cycles(0.5), tenth = step_cycles(0.9);
    EXPECT_LT(half, dense);
    EXPECT_LT(tenth, half);
}

// The reference's masked training alone (gpt::Trainer, clipping on, two accumulated micro-batches):
// backward() zeroes the masked gradients before the norm, so the norm is the kept ones' and
// AdamW leaves the masked weights, and their moments, at exactly zero.
TEST(MeshSparseTrain, TheReferenceHoldsTheMaskedWeightsAtZero) {
    GPTConfig c = wl::gpt::parse_config_text(
        "model: {n_layer: 1, n_head: 2, n_embd: 32, block_size: 16}\n"
        "train_input: {batch_size: 2, corpus: addition, addition_digits: 2, corpus_chars: 4000}\n"
        "optimizer: {learning_rate: 1e-2, warmup_steps: 1, max_gradient_norm: 0.5, grad_accum_steps: 2}\n",
        "tiny-sparse");
    wl::gpt::Trainer t(c);
    prune_linear_weights(*t.model, 0.6, MaskKind::Random, 4);
    const std::vector<float> initial = t.model->params_memory;
    for (int s = 0; s < 3; s++) {
        t.train_step();
        // AdamW clipped the gradients in place to norm 0.5: the kept ones alone have it, so the
        // masked ones were zero before the norm.
        double sq = 0;
        for (size_t i = 0; i < t.model->num_parameters; i++)
            if (t.model->mask[i]) sq += double(t.model->grads_memory[i]) * t.model->grads_memory[i];
        EXPECT_GT(t.last_grad_norm, 0.5f) << "clipped";
        EXPECT_NEAR(std::sqrt(sq), 0.5, 1e-5);
        EXPECT_EQ(masked_nonzero(*t.model, t.model->grads_memory), 0);
    }
    EXPECT_EQ(masked_nonzero(*t.model, t.model->params_memory), 0);
    EXPECT_EQ(masked_nonzero(*t.model, t.opt.m), 0);
    EXPECT_EQ(masked_nonzero(*t.model, t.opt.v), 0);
    int moved = 0, kept = 0;
    for (size_t i = 0; i < t.model->num_parameters; i++) {
        kept += t.model->mask[i];
        moved += t.model->mask[i] && t.model->params_memory[i] != initial[i];
    }
    EXPECT_GT(moved, kept * 9 / 10);
}

TEST(MeshSparseTrain, TheMemoryPlanCountsOnlyTheNonZeros) {
    GPT model(config(1, 2, 32, 16, 23));
    model.init_weights(1);
    prune_linear_weights(model, 0.75, MaskKind::Magnitude, 1);
    const PlanResult sparse = plan_sparse_train(model, 16);
    ASSERT_TRUE(sparse.ok) << sparse.error;
    const PlanResult dense = plan_model(model.cfg, 16, 16, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(dense.ok) << dense.error;
    for (const PlannedOp& o : sparse.plan.ops) {
        if (!is_sparse(o)) continue;
        const PlannedOp& d = *dense.plan.find(o.name);
        const uint32_t nz = uint32_t(o.constants.at("NZ")), nc = uint32_t(o.constants.at("NC"));
        SCOPED_TRACE(o.name);
        // dwv (NZ) and db (NC), and the dense dw's one element; m and v of both
        EXPECT_EQ(o.memory.gradients, 4 * (nz + nc + 1));
        EXPECT_EQ(o.memory.adam, 8 * (nz + nc + 1));
        EXPECT_LT(o.memory.gradients, d.memory.gradients);
        EXPECT_LT(o.memory.adam, d.memory.adam);
    }
}

}  // namespace
