// model_fit_advice_test.cpp: a model that does not fit gets advice that was tried: each
// suggested --set makes it fit, and the batch remedies that change nothing here are not offered.
#include "engine/model/fit_advice.h"
#include "engine/model/plan_cache.h"
#include "engine/core/thousands.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

namespace {

using namespace wl::model;
using namespace wl::model::testing;

const uint32_t kSram = wl::MachineConfig{}.sram_bytes;

TEST(FitAdvice, TooSmallAMeshSuggestsTheSmallestLargerOneThatFits) {
    PlanResult r = plan_model(nano(), 16, 16, kernels(), kSram, /*train=*/true);
    ASSERT_FALSE(r.ok);
    EXPECT_TRUE(r.too_big) << r.error;
    const std::string advice = fit_advice(nano(), 16, 16, kernels(), kSram, true);
    EXPECT_NE(advice.find("--set wafer.mesh=32x32 (a larger mesh; the CLI's --mesh 32x32)"), std::string::npos)
        << advice;
    EXPECT_TRUE(plan_model(nano(), 32, 32, kernels(), kSram, true).ok);   // what it says is so
    EXPECT_NE(advice.find("change nothing a PE holds here"), std::string::npos) << advice;
    EXPECT_EQ(advice.find("--set train_input.batch_size"), std::string::npos) << advice;
    // Streaming is tried first, and suggested exactly when it fits.
    wl::gpt::GPTConfig streamed = nano();
    streamed.execution = wl::gpt::Execution::Streaming;
    EXPECT_EQ(advice.find("--set wafer.execution=streaming") != std::string::npos,
              plan_model(streamed, 16, 16, kernels(), kSram, true).ok) << advice;
}

// gpt-micro (4 layers, C = 128) with a context of 32 trains on 32x32 only streamed.
TEST(FitAdvice, TrainingTriesWeightStreamingFirst) {
    wl::gpt::GPTConfig cfg = config(4, 4, 128, 32, 65);
    ASSERT_TRUE(plan_model(cfg, 32, 32, kernels(), kSram, true).too_big);
    const std::string advice = fit_advice(cfg, 32, 32, kernels(), kSram, true);
    EXPECT_EQ(advice.find(". It fits with --set wafer.execution=streaming (weights streamed in layer by layer"), 0u) << advice;
    cfg.execution = wl::gpt::Execution::Streaming;
    EXPECT_TRUE(plan_model(cfg, 32, 32, kernels(), kSram, true).ok);   // what it says is so
}

TEST(FitAdvice, InferenceTriesWeightStreamingFirst) {
    wl::gpt::GPTConfig cfg = nano();
    cfg.n_layer = 8;   // eight layers' ops do not fit 16x16 at once; one layer's do
    ASSERT_TRUE(plan_model(cfg, 16, 16, kernels(), kSram, false).too_big);
    const std::string advice = fit_advice(cfg, 16, 16, kernels(), kSram, false);
    EXPECT_EQ(advice.find(". It fits with --set wafer.execution=streaming (weights streamed in layer by layer"), 0u) << advice;
    EXPECT_EQ(advice.find("inference only"), std::string::npos) << advice;
    cfg.execution = wl::gpt::Execution::Streaming;
    EXPECT_TRUE(plan_model(cfg, 16, 16, kernels(), kSram, false).ok);   // what it says is so
}

TEST(FitAdvice, TooLongAContextSuggestsTheLongestThatFits) {
    wl::gpt::GPTConfig cfg = nano();
    cfg.block_size = 512;
    ASSERT_TRUE(plan_model(cfg, 32, 32, kernels(), kSram, true).too_big);
    const std::string advice = fit_advice(cfg, 32, 32, kernels(), kSram, true);
    EXPECT_NE(advice.find("--set model.block_size=256 (a shorter context)"), std::string::npos) << advice;
    cfg.block_size = 256;   // the longest that fits: its heads over several PEs, its MLP's GELU over tiers
    EXPECT_TRUE(plan_model(cfg, 32, 32, kernels(), kSram, true).ok);
}

// A pipelined training plan with sequences side by side in every op's columns: fewer in flight is
// tried first and suggested where it fits; the batch's note does not apply (the mesh takes several
// at once), and streaming comes with the schedule it needs.
TEST(FitAdvice, TooManySequencesInFlightSuggestsFewer) {
    wl::gpt::GPTConfig cfg = nano();
    cfg.schedule = "pipelined";
    cfg.sequences_in_flight = 6;
    ASSERT_TRUE(plan_model(cfg, 32, 32, kernels(), kSram, true).too_big);
    const std::string advice = fit_advice(cfg, 32, 32, kernels(), kSram, true);
    EXPECT_EQ(advice.find(". It fits with --set wafer.sequences_in_flight=4 (fewer sequences side by side"), 0u) << advice;
    EXPECT_EQ(advice.find("change nothing a PE holds"), std::string::npos) << advice;
    const size_t s = advice.find("--set wafer.execution=streaming");
    if (s != std::string::npos) {
        EXPECT_EQ(advice.find("--set wafer.execution=streaming,wafer.schedule=sequential,wafer.sequences_in_flight=1"), s) << advice;
    }
    cfg.sequences_in_flight = 5;
    EXPECT_TRUE(plan_model(cfg, 32, 32, kernels(), kSram, true).too_big);   // the most that fits
    cfg.sequences_in_flight = 4;
    EXPECT_TRUE(plan_model(cfg, 32, 32, kernels(), kSram, true).ok);   // what it says is so
}

TEST(FitAdvice, ThePlanCacheAppendsItToTheError) {
    PlanCache cache;
    CompileInfo info;
    PlanResult r = cache.plan(nano(), 16, 16, kernels(), kSram, true, false, &info);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("the mesh is full at l0.fch: 16x16 PEs are too few (placing its 34 ops needs 16x29)"),
              std::string::npos) << r.error;   // the place, as before
    EXPECT_NE(r.error.find("needs 16x29). It fits with --set wafer.execution=streaming"), std::string::npos) << r.error;
}

TEST(FitAdvice, AKernelErrorIsNotTooBig) {
    PlanResult r = plan_model(nano(), 32, 32, [](const std::string&) { return std::string("not a kernel"); }, kSram, true);
    ASSERT_FALSE(r.ok);
    EXPECT_FALSE(r.too_big) << r.error;
}

}  // namespace

// A vocabulary whose embedding overflows a PE even cut over the widest row (GPT-2 small's, and
// here a smaller model's 20,000 rows at C = 32): resident training cannot hold it on any mesh, so
// no resident remedy is tried; streamed, wte is the store's (docs/weight-streaming.md, "The
// vocabulary"), and every remedy offered streams. In inference the tiers hold it.
TEST(FitAdvice, WeightsThatFitNoRowResidentAreStreamed) {
    wl::gpt::GPTConfig cfg = config(1, 2, 32, 16, 20000);
    const auto o = weights_never_fit(cfg, kSram, true);
    ASSERT_TRUE(o.has_value());
    EXPECT_EQ(o->op, "encoded");
    EXPECT_EQ(o->row, 32);   // C = 32: one channel a PE
    EXPECT_GT(o->bytes, kSram);
    wl::gpt::GPTConfig streamed = cfg;
    streamed.execution = wl::gpt::Execution::Streaming;
    EXPECT_FALSE(weights_never_fit(streamed, kSram, true).has_value());
    const std::string advice = fit_advice(cfg, 32, 64, kernels(), kSram, true);
    EXPECT_EQ(advice.find(". It fits with --set wafer.execution=streaming (weights streamed"), 0u) << advice;
    EXPECT_TRUE(plan_model(streamed, 32, 64, kernels(), kSram, true).ok);   // what it says is so
    // So train --on-mesh and the app's Train stream it without being told; not what fits resident.
    ASSERT_TRUE(trains_only_streamed(cfg, kSram).has_value());
    EXPECT_EQ(trains_only_streamed(cfg, kSram)->op, "encoded");
    EXPECT_FALSE(trains_only_streamed(streamed, kSram).has_value());
    EXPECT_FALSE(trains_only_streamed(nano(), kSram).has_value());
    const std::string taller = fit_advice(cfg, 32, 16, kernels(), kSram, true);
    EXPECT_NE(taller.find("--set wafer.execution=streaming,wafer.mesh=64x32 (a larger mesh"), std::string::npos) << taller;
    EXPECT_TRUE(plan_model(streamed, 64, 32, kernels(), kSram, true).ok);
    EXPECT_EQ(taller.find("--set wafer.mesh="), std::string::npos) << taller;   // never resident

    const wl::gpt::GPTConfig small = config(12, 12, 768, 64, 50257);
    EXPECT_TRUE(weights_never_fit(small, kSram, true).has_value());
    EXPECT_FALSE(weights_never_fit(small, kSram, false).has_value());   // tiers
    wl::gpt::GPTConfig small_streamed = small;
    small_streamed.execution = wl::gpt::Execution::Streaming;
    EXPECT_FALSE(weights_never_fit(small_streamed, kSram, true).has_value());
    // Models that fit somewhere are not refused by it.
    EXPECT_FALSE(weights_never_fit(nano(), kSram, true).has_value());
    EXPECT_FALSE(weights_never_fit(config(4, 4, 128, 32, 65), kSram, true).has_value());
}
