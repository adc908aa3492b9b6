// The GPT's forward pass on the emulated mesh against the reference (engine/gpt):
// the kernels follow the reference's order of operations, and exp/tanh are one
// definition, so the logits match bit for bit (docs/model-compiler.md).
#include "engine/gpt/gpt.h"
#include "engine/gpt/gpt_config.h"
#include "engine/gpt/sampler.h"
#include "engine/gpt/trainer.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>
#include <cmath>
#include <cstring>
#include <regex>
#include <set>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshGPT;
using wl::model::MeshPlan;
using wl::model::plan_model;

const wl::model::KernelSource& kKernels = wl::model::testing::kernels();
using namespace wl::model::testing;

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
        if (float_bits(a) != float_bits(b)) differ++;
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

// The KV cache: one token at a time gives the same logits as the whole prompt at once.
TEST(MeshGpt, ExtendFromTheCacheMatchesAFullForward) {
    const GPTConfig cfg = config(2, 2, 32, 16, 23);
    GPT model(cfg);
    model.init_weights(9);
    auto r = plan_model(cfg, 16, 16, kKernels);
    ASSERT_TRUE(r.ok) << r.error;
    MeshGPT m(r.plan, model);
    const std::vector<int> in = tokens(16, 23, 5);
    std::vector<float> step, full;
    ASSERT_TRUE(m.forward(in.data(), 3, &step));
    const uint64_t prompt_cycles = m.last_cycles();
    for (int t = 3; t < 16; t++) {
        ASSERT_TRUE(m.extend(in[size_t(t)], &step)) << m.error();
        EXPECT_EQ(m.context(), t + 1);
        model.forward(in.data(), nullptr, 1, t + 1);
        for (int v = 0; v < 23; v++) ASSERT_EQ(step[size_t(v)], model.logits()[size_t(t) * 23 + v]) << "t " << t << " v " << v;
    }
    const uint64_t step_cycles = m.last_cycles();
    EXPECT_FALSE(m.extend(0, &step)) << "the context is full";
    EXPECT_NE(m.error().find("block_size"), std::string::npos) << m.error();
    ASSERT_TRUE(m.forward(in.data(), 16, &full));
    EXPECT_LT(step_cycles * 3, m.last_cycles()) << "a step from the cache must not redo the context";
    EXPECT_LT(step_cycles, prompt_cycles * 2);
    EXPECT_FALSE(m.extend(23, &step));   // a bad token is named before the full context
    EXPECT_NE(m.error().find("outside [0, 23)"), std::string::npos) << m.error();
}

// Greedy generation on a trained checkpoint: the mesh picks the reference's tokens,
// past the context length (where the window slides and the cache starts again).
TEST(MeshGpt, GreedyGenerationMatchesTheReferenceOnATrainedModel) {
    GPTConfig c = wl::gpt::parse_config_text(
        "model: {n_layer: 2, n_head: 2, n_embd: 32, block_size: 32}\n"
        "train_input: {batch_size: 8, corpus: stories, corpus_chars: 20000}\n"
        "optimizer: {learning_rate: 1e-2, warmup_steps: 10, decay_steps: 80}\n"
        "runconfig: {max_steps: 80, eval_steps: 2}\n",
        "tiny-stories");
    wl::gpt::Trainer t(c);
    while (t.step < c.max_iters) t.train_step();
    auto r = plan_model(t.model->cfg, 16, 16, kKernels);
    ASSERT_TRUE(r.ok) << r.error;
    MeshGPT m(r.plan, *t.model);
    const wl::gpt::SampleOptions greedy{0.0f, 0, 1};
    // "\n" first: a one-token prompt on a fresh mesh (an empty cache) is a full forward, not a step.
    for (const char* prompt : {"\n", "Once upon a time", "The cat"}) {
        const std::vector<int> ids = t.tokenizer->encode(prompt);
        const std::vector<int> want = wl::gpt::generate(*t.model, ids, 100, greedy);
        auto next = [&m](const int* ctx, int T) { return m.next_logits(ctx, T); };
        const std::vector<int> got = wl::gpt::generate(next, t.model->V, t.model->maxT, ids, 100, greedy);
        EXPECT_EQ(got, want) << "prompt '" << prompt << "': " << t.tokenizer->decode(got);
    }
}

TEST(MeshGpt, AModelThatDoesNotFitSaysWhereAndHowMuch) {
    auto small = plan_model(nano(), 32, 32, kKernels, 8192);   // PEs with 8 KiB of SRAM
    EXPECT_FALSE(small.ok);
    EXPECT_NE(small.error.find("bytes on PE ("), std::string::npos) << small.error;
    EXPECT_NE(small.error.find("8,192 available"), std::string::npos) << small.error;
    auto tiny = plan_model(nano(), 8, 8, kKernels);   // too small: an error about room, not a kernel's
    EXPECT_FALSE(tiny.ok);
    EXPECT_EQ(tiny.error.find(".wk:"), std::string::npos) << tiny.error;
    std::smatch need;   // it says how big a mesh the placement needs, and that mesh has room
    ASSERT_TRUE(std::regex_search(tiny.error, need, std::regex("the mesh is full at .*needs 8x([0-9]+)\\)"))) << tiny.error;
    const int rows = std::stoi(need[1]);
    EXPECT_GT(rows, 8);
    const auto enough = plan_model(nano(), 8, rows, kKernels);
    EXPECT_EQ(enough.error.find("the mesh is full"), std::string::npos) << enough.error;
    EXPECT_NE(plan_model(nano(), 8, rows - 1, kKernels).error.find("the mesh is full"), std::string::npos);
    EXPECT_FALSE(plan_model(nano(), 1, 64, kKernels).ok);
    auto narrow = plan_model(nano(), 3, 64, kKernels);
    EXPECT_FALSE(narrow.ok);
    EXPECT_NE(narrow.error.find("needs a row of 4 PEs"), std::string::npos) << narrow.error;   // the attention's 4 heads
    auto missing = plan_model(nano(), 32, 32, [](const std::string&) { return std::string(); });
    EXPECT_FALSE(missing.ok);
    EXPECT_NE(missing.error.find("kernel embedding.wk not found"), std::string::npos) << missing.error;
    auto broken = plan_model(nano(), 32, 32, [](const std::string& f) {   // a student's typo in a kernel
        std::string src = kKernels(f);
        if (f == "gelu.wk") src.replace(src.find("ftanhs("), 7, "ftanh (");
        return src;
    });
    EXPECT_FALSE(broken.ok);
    EXPECT_NE(broken.error.find("l0.fch_gelu: gelu.wk:"), std::string::npos) << broken.error;
}

TEST(MeshGpt, ThePlanKeepsEveryOpOnItsOwnPes) {
    auto r = plan_model(nano(), 32, 32, kKernels);
    ASSERT_TRUE(r.ok) << r.error;
    const MeshPlan& p = r.plan;
    EXPECT_EQ(p.ops.size(), size_t(1 + 10 * 3 + 2));
    std::set<std::pair<int, int>> used;
    for (const auto& op : p.ops) {
        EXPECT_LE(op.bytes_per_pe, p.sram_bytes) << op.name;
        for (int x = op.rect.x; x < op.rect.x + op.rect.w; x++)
            EXPECT_TRUE(used.insert({x, op.rect.y}).second) << op.name << " overlaps at (" << x << "," << op.rect.y << ")";
    }
    EXPECT_EQ(int(used.size()), p.pes_used());
    EXPECT_GT(p.bytes_mean(), 0);
    EXPECT_LE(p.bytes_mean(), p.bytes_max());
    ASSERT_NE(p.find("l1.fch"), nullptr);
    EXPECT_EQ(p.find("l1.fch")->kernel, "matmul.wk");
    EXPECT_EQ(p.find("nope"), nullptr);
}

// Each op's counts come from the box around it and its links' senders (MeshGPT::launch): on plans
// with links, relays, the band's turn, tiers, a head over PEs and weights streamed, the ops' counts
// add up to the whole machine's, so nothing a run moved fell outside its box.
TEST(MeshGpt, EachOpsCountsAreTheWholeMachines) {
    wl::gpt::GPTConfig streamed = config(2, 2, 32, 16, 23);
    streamed.execution = wl::gpt::Execution::Streaming;
    const struct {
        GPTConfig cfg;
        int w, h;
    } cases[] = {{nano(), 32, 34}, {config(1, 2, 128, 64, 65), 32, 32}, {config(1, 4, 64, 16, 4000), 32, 32}, {streamed, 16, 16}};
    for (const auto& c : cases) {
        GPT model(c.cfg);
        model.init_weights(3);
        auto r = plan_model(c.cfg, c.w, c.h, kKernels);
        ASSERT_TRUE(r.ok) << r.error;
        MeshGPT m(r.plan, model);
        const std::vector<int> in = tokens(c.cfg.block_size, c.cfg.vocab_size, 2);
        std::vector<float> logits;
        const wl::MachineStats before = m.host().stats();
        ASSERT_TRUE(m.forward(in.data(), c.cfg.block_size, &logits)) << m.error();
        const wl::MachineStats after = m.host().stats();
        uint64_t hops = 0, instructions = 0, wavelets = 0, flops = 0;
        for (const wl::model::OpRun& o : m.last_run())
            hops += o.hops, instructions += o.instructions, wavelets += o.wavelets, flops += o.vector_flops;
        EXPECT_EQ(hops, after.hops - before.hops) << c.cfg.n_embd;
        EXPECT_EQ(instructions, after.instrs - before.instrs) << c.cfg.n_embd;
        EXPECT_EQ(wavelets, after.sent - before.sent) << c.cfg.n_embd;
        EXPECT_EQ(flops, after.flops - before.flops) << c.cfg.n_embd;
        EXPECT_GT(hops, 0u);
    }
}

// Fast mode against cycle mode on the GPT forward: the same logits (memory) and a
// cycle estimate within fast mode's stated bound (docs/engine.md: 10%).
TEST(MeshGpt, FastAndCycleModeAgree) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    uint64_t fast = 0, cycle = 0;
    EXPECT_EQ(compare(cfg, 8, 8, 6, wl::RunMode::Fast, &fast), 0);
    EXPECT_EQ(compare(cfg, 8, 8, 6, wl::RunMode::Cycle, &cycle), 0);
    EXPECT_GT(cycle, 0u);
    EXPECT_NEAR(double(fast), double(cycle), 0.10 * double(cycle)) << "fast " << fast << " cycle " << cycle;
    EXPECT_EQ(compare(cfg, 8, 1, 7, wl::RunMode::Fast, &fast), 0);   // one token: the matmul's gemv path
    EXPECT_EQ(compare(cfg, 8, 1, 7, wl::RunMode::Cycle, &cycle), 0);
    EXPECT_NEAR(double(fast), double(cycle), 0.10 * double(cycle)) << "fast " << fast << " cycle " << cycle;
}

}  // namespace
