// The sliced training step (MeshTrainer::begin_step / run_slice), which the app runs a few
// launches per frame, against the unsliced one (step()): the same loss, gradient norm,
// weights and AdamW moments, bit for bit, whatever the slice size, with another trainer's
// slices and reads of the weights between this one's.
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <set>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshTrainer;
using wl::model::TrainPhase;
using namespace wl::model::testing;

TEST(MeshTrainSlice, SlicedStepsGiveTheUnslicedBits) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.warmup_iters = 1;
    GPT model(cfg);
    model.init_weights(5);
    auto r = wl::model::plan_model(cfg, 16, 16, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const int B = 3, T = 16;
    MeshTrainer whole(r.plan, model), one(r.plan, model), seven(r.plan, model);
    for (int s = 0; s < 3; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(10 + s)),
                               tg = tokens(B * T, cfg.vocab_size, uint32_t(20 + s));
        const double lr = 1e-3 * (s + 1);
        wl::model::TrainStep ref;
        ASSERT_TRUE(whole.step(in.data(), tg.data(), B, T, lr, &ref)) << whole.error();

        ASSERT_TRUE(one.begin_step(in.data(), tg.data(), B, T, lr)) << one.error();
        ASSERT_TRUE(seven.begin_step(in.data(), tg.data(), B, T, lr)) << seven.error();
        EXPECT_FALSE(one.begin_step(in.data(), tg.data(), B, T, lr));   // one step at a time
        EXPECT_NE(one.error().find("in progress"), std::string::npos) << one.error();
        const size_t units = one.work_total();
        std::set<TrainPhase> phases;
        std::set<int> sequences;
        int slices = 0;
        while (one.stepping() || seven.stepping()) {   // the two interleaved, reads between slices
            if (one.stepping()) {
                phases.insert(one.next_work()->phase);
                sequences.insert(one.next_work()->sequence);
                ASSERT_TRUE(one.run_slice(1)) << one.error();
                slices++;
            }
            if (seven.stepping()) {
                ASSERT_TRUE(seven.run_slice(7)) << seven.error();
            }
            if (slices % 50 == 0) state_of(one);
        }
        EXPECT_EQ(size_t(slices), units);
        EXPECT_GT(units, size_t(B) * r.plan.ops.size());   // at least a launch per op per sequence
        EXPECT_EQ(phases, (std::set<TrainPhase>{TrainPhase::Forward, TrainPhase::Backward, TrainPhase::Optimiser}));
        EXPECT_EQ(sequences, (std::set<int>{-1, 0, 1, 2}));
        for (MeshTrainer* t : {&one, &seven}) {
            EXPECT_EQ(float_bits(t->last_step().loss), float_bits(ref.loss)) << "step " << s;
            EXPECT_EQ(float_bits(t->last_step().grad_norm), float_bits(ref.grad_norm)) << "step " << s;
            EXPECT_EQ(t->last_step().cycles, ref.cycles);
            EXPECT_EQ(t->updates(), whole.updates());
        }
        const TrainerBits w = state_of(whole), a = state_of(one), b = state_of(seven);
        EXPECT_TRUE(a.params == w.params && a.m == w.m && a.v == w.v) << "step " << s;
        EXPECT_TRUE(b.params == w.params && b.m == w.m && b.v == w.v) << "step " << s;
    }
}

// Streaming (docs/weight-streaming.md, "Training"): the sliced step against step(), bit for bit,
// and the units that move a layer as a whole say so (the app's progress line reads them).
TEST(MeshTrainSlice, SlicedStreamingStepsGiveTheUnslicedBits) {
    GPTConfig cfg = streaming(config(2, 2, 16, 8, 11));
    cfg.warmup_iters = 1;
    GPT model(cfg);
    model.init_weights(6);
    auto r = wl::model::plan_model(cfg, 16, 16, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_TRUE(r.plan.streaming);
    const int B = 2, T = 8;
    MeshTrainer whole(r.plan, model), one(r.plan, model);
    for (int s = 0; s < 2; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(30 + s)),
                               tg = tokens(B * T, cfg.vocab_size, uint32_t(40 + s));
        const double lr = 1e-3 * (s + 1);
        wl::model::TrainStep ref;
        ASSERT_TRUE(whole.step(in.data(), tg.data(), B, T, lr, &ref)) << whole.error();
        ASSERT_TRUE(one.begin_step(in.data(), tg.data(), B, T, lr)) << one.error();
        std::set<std::string> said;   // "l1 backward, gradients out" ...
        while (one.stepping()) {
            const wl::model::TrainWork& w = *one.next_work();
            if (w.streaming) said.insert("l" + std::to_string(w.layer) + " " + wl::model::train_phase_name(w.phase) + ", " + w.streaming);
            ASSERT_TRUE(one.run_slice(1)) << one.error();
        }
        // The last layer's backward follows each sequence's forward and loss: nothing of it recomputed.
        EXPECT_EQ(said, (std::set<std::string>{"l0 forward, weights in", "l1 forward, weights in", "l0 backward, weights in again",
                                               "l0 backward, activations back", "l0 backward, gradients out",
                                               "l1 backward, gradients out"}));
        EXPECT_EQ(float_bits(one.last_step().loss), float_bits(ref.loss)) << "step " << s;
        EXPECT_EQ(float_bits(one.last_step().grad_norm), float_bits(ref.grad_norm)) << "step " << s;
        EXPECT_EQ(one.last_step().cycles, ref.cycles);
        EXPECT_EQ(one.last_step().stream_bytes, ref.stream_bytes);
        EXPECT_EQ(one.last_step().stream_cycles, ref.stream_cycles);
        EXPECT_GT(ref.stream_bytes, 0u);
        EXPECT_GT(ref.stream_cycles, 0u);
        EXPECT_LT(ref.stream_cycles, ref.cycles);
        EXPECT_TRUE(state_of(one) == state_of(whole)) << "step " << s;
    }
}

TEST(MeshTrainSlice, BadBatchQueuesNothing) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    GPT model(cfg);
    model.init_weights(3);
    auto r = wl::model::plan_model(cfg, 8, 8, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    MeshTrainer tr(r.plan, model);
    std::vector<int> in = tokens(8, 11, 1), tg = tokens(8, 11, 2);
    tg[3] = 99;
    EXPECT_FALSE(tr.begin_step(in.data(), tg.data(), 1, 8, 1e-3));
    EXPECT_NE(tr.error().find("target 99 at position 3"), std::string::npos) << tr.error();
    EXPECT_FALSE(tr.stepping());
    EXPECT_EQ(tr.next_work(), nullptr);
}

}  // namespace
