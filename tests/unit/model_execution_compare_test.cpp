// Resident against streaming (engine/model/execution_compare.h): both forwards are what MeshGPT
// gives on each plan, their logits agree bit for bit, only streaming spends cycles on the
// stream, and a model too big to be resident says so while streaming still runs.
#include "engine/gpt/gpt.h"
#include "engine/model/execution_compare.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_measure.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using namespace wl::model;
using namespace wl::model::testing;

void run(ExecutionCompare& c) {
    double last = 0;
    while (c.step()) {
        EXPECT_GE(c.progress(), last);
        last = c.progress();
        EXPECT_FALSE(c.activity().empty());
    }
    EXPECT_TRUE(c.done());
    EXPECT_EQ(c.progress(), 1.0);
}

TEST(ExecutionCompare, BothWaysOnOneModelAgreeBitForBit) {
    const GPTConfig cfg = config(2, 2, 32, 16, 23);
    GPT model(cfg);
    model.init_weights(3);
    const std::vector<int> in = bench_tokens(12, cfg.vocab_size);
    ExecutionCompare c(model, 16, 16, kernels(), in);
    run(c);
    const ExecutionRun &res = c.resident(), &str = c.streaming();
    ASSERT_TRUE(res.ran) << res.error;
    ASSERT_TRUE(str.ran) << str.error;
    EXPECT_EQ(res.execution, wl::gpt::Execution::Resident);
    EXPECT_EQ(str.execution, wl::gpt::Execution::Streaming);
    EXPECT_EQ(c.logits_differ(), 0);
    EXPECT_EQ(res.logits.size(), size_t(12) * size_t(cfg.vocab_size));
    EXPECT_EQ(res.stream_cycles, 0u);
    EXPECT_EQ(res.stream_bytes, 0u);
    EXPECT_GT(str.stream_cycles, 0u);
    EXPECT_GT(str.stream_bytes, 0u);
    EXPECT_EQ(str.compute_cycles() + str.stream_cycles, str.cycles);
    EXPECT_GT(res.pes, 0);
    EXPECT_GT(str.pes, 0);
    for (wl::gpt::Execution execution : {wl::gpt::Execution::Resident, wl::gpt::Execution::Streaming}) {   // each is MeshGPT's own forward on that plan
        GPTConfig e = cfg;
        e.execution = execution;
        PlanResult r = plan_model(e, 16, 16, kernels());
        ASSERT_TRUE(r.ok) << r.error;
        MeshGPT m(r.plan, model);
        std::vector<float> logits;
        ASSERT_TRUE(m.forward(in.data(), int(in.size()), &logits)) << m.error();
        const ExecutionRun& got = e.execution == wl::gpt::Execution::Resident ? res : str;
        EXPECT_EQ(got.cycles, m.last_cycles()) << wl::gpt::execution_name(execution);
        EXPECT_EQ(got.stream_cycles, m.last_stream_cycles()) << wl::gpt::execution_name(execution);
        EXPECT_EQ(got.stream_bytes, m.last_stream_bytes()) << wl::gpt::execution_name(execution);
        EXPECT_EQ(got.host_bytes, m.last_host_bytes()) << wl::gpt::execution_name(execution);
    }
}

TEST(ExecutionCompare, AModelTooBigToBeResidentSaysSo) {
    const GPTConfig cfg = config(8, 4, 64, 64, 65);   // gpt-nano with 8 layers on 16x16 (MeshStreaming.FitsWhereResidentDoesNot)
    GPT model(cfg);
    model.init_weights(3);
    ExecutionCompare c(model, 16, 16, kernels(), bench_tokens(4, cfg.vocab_size));
    run(c);
    EXPECT_FALSE(c.resident().ran);
    EXPECT_TRUE(c.resident().too_big) << c.resident().error;
    EXPECT_FALSE(c.resident().error.empty());
    EXPECT_TRUE(c.streaming().ran) << c.streaming().error;
    EXPECT_EQ(c.logits_differ(), -1) << "nothing to compare against";
    EXPECT_THROW(ExecutionCompare(model, 16, 16, kernels(), {}), std::invalid_argument);
}

}  // namespace
