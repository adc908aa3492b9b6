// model_plan_cache_test.cpp: compile once, run many (engine/model/plan_cache.h). The second
// compile of the same shape is a hit that compiles nothing and gives the same executable; a
// changed context length, mesh or kernel misses and says why; --no-cache rebuilds; settings
// outside the shape (the learning rate, the batch) reuse the executable with the new config.
#include "engine/model/mesh_gpt.h"
#include "engine/model/plan_cache.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

namespace {

using namespace wl::model;
using namespace wl::model::testing;

const uint32_t kSram = wl::MachineConfig{}.sram_bytes;

TEST(PlanCache, SecondCompileIsAHitThatGivesTheSameExecutable) {
    PlanCache cache;
    CountingKernels k;
    const wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    CompileInfo first, second;
    PlanResult a = cache.plan(cfg, 8, 8, k.source(), kSram, false, false, &first);
    ASSERT_TRUE(a.ok) << a.error;
    EXPECT_FALSE(first.cached);
    EXPECT_EQ(first.reason, "first compile");
    PlanResult b = cache.plan(cfg, 8, 8, k.source(), kSram, false, false, &second);
    ASSERT_TRUE(b.ok);
    EXPECT_TRUE(second.cached);
    EXPECT_EQ(second.key, first.key);
    EXPECT_EQ(second.reason, "");
    ASSERT_EQ(a.plan.ops.size(), b.plan.ops.size());
    for (size_t i = 0; i < a.plan.ops.size(); i++)
        EXPECT_EQ(a.plan.ops[i].compiled, b.plan.ops[i].compiled) << "op " << a.plan.ops[i].name << ": not recompiled";
    EXPECT_EQ(to_json(a.plan).dump(), to_json(b.plan).dump());
    EXPECT_EQ(cache.size(), 1u);
}

TEST(PlanCache, AShapeChangeRecompilesAndSaysWhy) {
    PlanCache cache;
    CountingKernels k;
    wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    CompileInfo info;
    ASSERT_TRUE(cache.plan(cfg, 8, 8, k.source(), kSram, false, false, &info).ok);
    cfg.block_size = 32;   // the context
    ASSERT_TRUE(cache.plan(cfg, 8, 8, k.source(), kSram, false, false, &info).ok);
    EXPECT_FALSE(info.cached);
    EXPECT_EQ(info.reason, "model.block_size 16 -> 32");
    ASSERT_TRUE(cache.plan(cfg, 16, 8, k.source(), kSram, true, false, &info).ok);
    EXPECT_FALSE(info.cached);
    EXPECT_EQ(info.reason, "wafer.mesh 8x8 -> 16x8, planned for inference -> training");
    // Back to the first shape: still cached.
    cfg.block_size = 16;
    ASSERT_TRUE(cache.plan(cfg, 8, 8, k.source(), kSram, false, false, &info).ok);
    EXPECT_TRUE(info.cached);
    // An edited kernel is a miss, named.
    k.edits["gelu.wk"] = kernels()("gelu.wk") + "\n// edited\n";
    ASSERT_TRUE(cache.plan(cfg, 8, 8, k.source(), kSram, false, false, &info).ok);
    EXPECT_FALSE(info.cached);
    EXPECT_EQ(info.reason, "gelu.wk edited");
}

TEST(PlanCache, SettingsOutsideTheShapeReuseTheExecutableWithTheNewConfig) {
    PlanCache cache;
    CountingKernels k;
    wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    CompileInfo info;
    ASSERT_TRUE(cache.plan(cfg, 8, 8, k.source(), kSram, true, false, &info).ok);
    cfg.learning_rate = 0.5;
    cfg.batch_size = 40;   // the mesh streams sequences: no recompile
    cfg.beta2 = 0.5;
    PlanResult r = cache.plan(cfg, 8, 8, k.source(), kSram, true, false, &info);
    ASSERT_TRUE(r.ok);
    EXPECT_TRUE(info.cached);
    EXPECT_EQ(r.plan.cfg.beta2, 0.5);   // MeshTrainer reads AdamW's settings from the plan
    EXPECT_EQ(r.plan.cfg.batch_size, 40);
}

TEST(PlanCache, NoCacheRebuildsAndFailuresAreNotKept) {
    PlanCache cache;
    CountingKernels k;
    const wl::gpt::GPTConfig cfg = config(2, 2, 16, 16, 23);
    CompileInfo first, again;
    ASSERT_TRUE(cache.plan(cfg, 8, 8, k.source(), kSram, false, false, &first).ok);
    const int reads = k.reads;
    PlanResult r = cache.plan(cfg, 8, 8, k.source(), kSram, false, true, &again);
    ASSERT_TRUE(r.ok);
    EXPECT_FALSE(again.cached);
    EXPECT_EQ(again.reason, "--no-cache");
    EXPECT_GT(k.reads, reads + 1) << "compiled again";
    EXPECT_EQ(again.key, first.key);
    EXPECT_EQ(cache.size(), 1u);
    CompileInfo bad;
    EXPECT_FALSE(cache.plan(cfg, 2, 2, k.source(), kSram, false, false, &bad).ok);   // does not fit
    EXPECT_EQ(cache.size(), 1u);
}

}  // namespace
