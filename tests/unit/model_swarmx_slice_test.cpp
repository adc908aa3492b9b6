// The sliced SwarmX step (SwarmX::begin_step / run_slice), which the app's Train runs a few
// launches per frame, against the step done by hand from MeshTrainer's unsliced halves
// (backward on each shard, the gradients the wafers hold summed in wafer order and written back,
// update on each wafer: swarmx.h's three steps; streamed, the wafers share one store): the same loss, norm, weights and moments, bit for bit,
// whatever the slice size, resident and streaming; and the shards' parts of the step.
#include "engine/gpt/adamw.h"
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/swarmx.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <set>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshTrainer;
using wl::model::SwarmX;
using wl::model::SwarmXStage;
using wl::model::SwarmXStep;
using namespace wl::model::testing;

// swarmx.h's step by hand, from the unsliced halves: the shards' loss sums in wafer order over B*T, the norm.
void by_hand(std::vector<std::unique_ptr<MeshTrainer>>& w, const std::vector<int>& in, const std::vector<int>& tg, int B, int T,
             double lr, float* loss, float* norm) {
    const int N = int(w.size()), b = B / N;
    float lsum = 0;
    for (int k = 0; k < N; k++) {
        float l = 0;
        const size_t at = size_t(k) * b * T;
        ASSERT_TRUE(w[size_t(k)]->backward(in.data() + at, tg.data() + at, b, T, &l, B * T)) << w[size_t(k)]->error();
        lsum = k == 0 ? w[0]->loss_sum() : lsum + w[size_t(k)]->loss_sum();
    }
    *loss = lsum / float(B * T);
    std::vector<float> sum = w[0]->read_own(MeshTrainer::State::Grads);   // streamed: the store summed its part
    for (int k = 1; k < N; k++) {
        const std::vector<float> g = w[size_t(k)]->read_own(MeshTrainer::State::Grads);
        for (size_t i = 0; i < sum.size(); i++) sum[i] += g[i];
    }
    for (auto& t : w) t->write_own(MeshTrainer::State::Grads, sum);
    for (auto& t : w) ASSERT_TRUE(t->update(lr, norm)) << t->error();
}

void sliced_against_by_hand(const GPTConfig& cfg, int mesh, int N, int B, int T) {
    GPT model(cfg);
    model.init_weights(9);
    auto r = wl::model::plan_model(cfg, mesh, mesh, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    std::vector<std::unique_ptr<MeshTrainer>> hand;
    for (int k = 0; k < N; k++) {   // streamed, the wafers share the first's store (swarmx.h)
        hand.push_back(std::make_unique<MeshTrainer>(r.plan, wl::RunMode::Fast, wl::model::MeshGPT::InSteps{}));
        if (k > 0 && r.plan.streaming) hand.back()->share_store(*hand[0]);
        while (hand.back()->load_step(model)) {
        }
    }
    SwarmX one(r.plan, model, N), seven(r.plan, model, N), whole(r.plan, model, N);
    for (int s = 0; s < 2; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(60 + s)), tg = tokens(B * T, cfg.vocab_size, uint32_t(70 + s));
        const double lr = wl::gpt::learning_rate_at(cfg, s);
        float loss = 0, norm = 0;
        by_hand(hand, in, tg, B, T, lr, &loss, &norm);
        SwarmXStep st;
        ASSERT_TRUE(whole.step(in.data(), tg.data(), B, T, lr, &st)) << whole.error();
        ASSERT_TRUE(one.begin_step(in.data(), tg.data(), B, T, lr)) << one.error();
        ASSERT_TRUE(seven.begin_step(in.data(), tg.data(), B, T, lr)) << seven.error();
        EXPECT_FALSE(one.begin_step(in.data(), tg.data(), B, T, lr));   // one step at a time
        EXPECT_NE(one.error().find("in progress"), std::string::npos) << one.error();
        std::set<std::pair<SwarmXStage, int>> seen;   // stage, wafer
        double progress = 0;
        while (one.stepping() || seven.stepping()) {
            if (one.stepping()) {
                const wl::model::SwarmXWork w = one.next_work();
                seen.insert({w.stage, w.wafer});
                EXPECT_GE(one.progress(), progress);
                progress = one.progress();
                ASSERT_TRUE(one.run_slice(1)) << one.error();
            }
            if (seven.stepping()) {
                ASSERT_TRUE(seven.run_slice(7)) << seven.error();
            }
        }
        EXPECT_GT(progress, s == 0 ? 0.5 : 0.9);   // the last unit's; from the second step, units over the first's
        EXPECT_EQ(one.progress(), 0.0);   // idle
        std::set<std::pair<SwarmXStage, int>> want;
        for (int k = 0; k < N; k++) want.insert({SwarmXStage::Shard, k}), want.insert({SwarmXStage::Update, k});
        if (N > 1) want.insert({SwarmXStage::Reduce, -1}), want.insert({SwarmXStage::Check, -1});
        EXPECT_EQ(seen, want);
        for (const SwarmXStep* x : {&one.last_step(), &seven.last_step(), static_cast<const SwarmXStep*>(&st)}) {
            EXPECT_EQ(float_bits(x->loss), float_bits(loss)) << "step " << s;
            EXPECT_EQ(float_bits(x->grad_norm), float_bits(norm)) << "step " << s;
            EXPECT_EQ(x->cycles, st.cycles);
            ASSERT_EQ(x->shards.size(), size_t(N));
        }
        // The shards' parts: each wafer's loss share and cycles, the slowest wafer's the step's compute.
        float shares = 0;
        uint64_t slowest = 0;
        for (int k = 0; k < N; k++) {
            const wl::model::SwarmXShard& sh = st.shards[size_t(k)];
            EXPECT_EQ(float_bits(sh.loss), float_bits(hand[size_t(k)]->loss_sum() / float(B * T)));
            EXPECT_EQ(sh.cycles, hand[size_t(k)]->last_step().cycles);
            EXPECT_EQ(sh.stream_cycles, hand[size_t(k)]->last_step().stream_cycles);
            EXPECT_GT(sh.cycles, 0u);
            shares += sh.loss;
            slowest = std::max(slowest, sh.cycles);
        }
        EXPECT_NEAR(shares, loss, 1e-6f * loss);
        EXPECT_EQ(st.compute_cycles, slowest);
        const TrainerBits h = state_of(*hand[0]);
        for (SwarmX* x : {&one, &seven, &whole})
            for (int k = 0; k < N; k++) EXPECT_TRUE(state_of(x->wafer(k)) == h) << "step " << s << ", wafer " << k;
    }
}

TEST(SwarmXSlice, SlicedStepsGiveTheBitsOfTheStepByHand) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    cfg.warmup_iters = 1;
    sliced_against_by_hand(cfg, 8, 2, 4, 8);
}

TEST(SwarmXSlice, OneWaferSliced) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    cfg.warmup_iters = 1;
    sliced_against_by_hand(cfg, 8, 1, 2, 8);
}

TEST(SwarmXSlice, StreamingSlicedStepsGiveTheBitsOfTheStepByHand) {
    GPTConfig cfg = streaming(config(2, 2, 16, 8, 11));
    cfg.warmup_iters = 1;
    sliced_against_by_hand(cfg, 16, 2, 2, 8);
}

TEST(SwarmXSlice, ABatchThatDoesNotSplitQueuesNothing) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    GPT model(cfg);
    model.init_weights(3);
    auto r = wl::model::plan_model(cfg, 8, 8, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    SwarmX sx(r.plan, model, 2);
    const std::vector<int> in = tokens(3 * 8, 11, 1), tg = tokens(3 * 8, 11, 2);
    EXPECT_FALSE(sx.begin_step(in.data(), tg.data(), 3, 8, 1e-3));
    EXPECT_EQ(sx.error(), SwarmX::split_error(3, 2));
    EXPECT_FALSE(sx.stepping());
    EXPECT_EQ(sx.next_work().stage, SwarmXStage::Idle);
}

TEST(SwarmXSlice, LoadedWafersMakeASwarm) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    GPT model(cfg);
    model.init_weights(3);
    auto r = wl::model::plan_model(cfg, 8, 8, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    std::vector<std::unique_ptr<MeshTrainer>> w;
    w.push_back(std::make_unique<MeshTrainer>(r.plan, wl::RunMode::Fast, wl::model::MeshGPT::InSteps{}));
    EXPECT_THROW(SwarmX{std::move(w)}, std::invalid_argument);   // not loaded
    w.clear();
    for (int k = 0; k < 2; k++) {
        w.push_back(std::make_unique<MeshTrainer>(r.plan, wl::RunMode::Fast, wl::model::MeshGPT::InSteps{}));
        while (w.back()->load_step(model)) {}
    }
    SwarmX sx(std::move(w)), ref(r.plan, model, 2);
    const std::vector<int> in = tokens(2 * 8, 11, 4), tg = tokens(2 * 8, 11, 5);
    SwarmXStep a, b;
    ASSERT_TRUE(sx.step(in.data(), tg.data(), 2, 8, 1e-3, &a)) << sx.error();
    ASSERT_TRUE(ref.step(in.data(), tg.data(), 2, 8, 1e-3, &b)) << ref.error();
    EXPECT_EQ(float_bits(a.loss), float_bits(b.loss));
    EXPECT_TRUE(state_of(sx.wafer(1)) == state_of(ref.wafer(1)));
}

}  // namespace
