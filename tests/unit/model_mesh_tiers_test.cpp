// Tiers: an op whose weights are too many for one row of PEs (GPT-2's 50,257-row embedding and
// LM head) runs as copies of its one-row kernel stacked, each holding a part (mesh_plan.cpp's
// spread_over_pes). The logits still match the reference bit for bit, from a prompt and from the cache.
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>
#include <set>
#include <tuple>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshGPT;
using wl::model::PlannedOp;
using wl::model::plan_model;
using namespace wl::model::testing;

int tiers_of(const wl::model::MeshPlan& p, const char* name) { return p.find(name) ? p.find(name)->tiers() : 0; }

// The prompt's logits, then each next token's from the KV cache, against the reference's bits.
void expect_reference_bits(const GPTConfig& cfg, const wl::model::MeshPlan& plan, int T, int steps, wl::RunMode mode,
                           uint64_t* cycles = nullptr) {
    GPT model(cfg);
    model.init_weights(7);
    const std::vector<int> in = tokens(T + steps, cfg.vocab_size, 3);
    MeshGPT m(plan, model, mode);
    std::vector<float> logits;
    ASSERT_TRUE(m.forward(in.data(), T, &logits)) << m.error();
    if (cycles) *cycles = m.last_cycles();
    model.forward(in.data(), nullptr, 1, T);
    int differ = 0;
    for (size_t i = 0; i < logits.size(); i++) differ += float_bits(logits[i]) != float_bits(model.logits()[i]);
    EXPECT_EQ(differ, 0) << "of " << logits.size() << " logits";
    const size_t V = size_t(cfg.vocab_size);
    for (int t = T; t < T + steps; t++) {
        ASSERT_TRUE(m.extend(in[size_t(t)], &logits)) << m.error();
        model.forward(in.data(), nullptr, 1, t + 1);
        differ = 0;
        for (size_t v = 0; v < V; v++) differ += float_bits(logits[v]) != float_bits(model.logits()[size_t(t) * V + v]);
        EXPECT_EQ(differ, 0) << "step " << t;
    }
}

// A 4,000-token vocabulary at C = 64 on rows of 32 PEs: the embedding's tables and the LM head's
// rows are more than half a PE's SRAM, so both are cut over tiers; nothing else is.
TEST(MeshTiers, AVocabularyTooBigForARowIsCutOverTiers) {
    const GPTConfig cfg = config(1, 4, 64, 16, 4000);
    auto r = plan_model(cfg, 32, 32, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    const wl::model::MeshPlan& p = r.plan;
    EXPECT_EQ(tiers_of(p, "encoded"), 2);
    EXPECT_EQ(tiers_of(p, "logits"), 2);
    for (const PlannedOp& o : p.ops) EXPECT_TRUE(o.tiers() == 1 || o.name == "encoded" || o.name == "logits") << o.name;
    std::set<std::pair<int, int>> used;   // every tier's PEs its own
    for (const PlannedOp& o : p.ops) {
        EXPECT_LE(o.bytes_per_pe, p.sram_bytes) << o.name;
        for (int y = o.rect.y; y < o.rect.y + o.tiers(); y++)
            for (int x = o.rect.x; x < o.rect.x + o.rect.w; x++)
                EXPECT_TRUE(used.insert({x, y}).second) << o.name << " overlaps at (" << x << "," << y << ")";
    }
    EXPECT_EQ(int(used.size()), p.pes_used());
    const PlannedOp& lm = *p.find("logits");   // the tiers go on with the rows' cut
    EXPECT_GE(lm.constants.at("NC") * lm.rect.w * lm.tiers(), 4000);
    EXPECT_LT((lm.constants.at("NC") - 1) * lm.rect.w * lm.tiers(), 4000);
    expect_reference_bits(cfg, p, 16 - 3, 3, wl::RunMode::Fast);
}

// On 8 KiB PEs a small model's embedding takes 3 tiers (the chain passes through a middle one):
// cycle mode gives the same bits, and fast mode's cycle estimate stays within its bound.
TEST(MeshTiers, FastAndCycleModeAgreeOnATieredChain) {
    const GPTConfig cfg = config(1, 2, 16, 8, 1200);
    auto r = plan_model(cfg, 8, 16, kernels(), 8192);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_GE(tiers_of(r.plan, "encoded"), 3);
    ASSERT_GE(tiers_of(r.plan, "logits"), 2);
    uint64_t fast = 0, cycle = 0;
    expect_reference_bits(cfg, r.plan, 6, 2, wl::RunMode::Fast, &fast);
    expect_reference_bits(cfg, r.plan, 6, 2, wl::RunMode::Cycle, &cycle);
    EXPECT_NEAR(double(fast), double(cycle), 0.10 * double(cycle)) << "fast " << fast << " cycle " << cycle;
}

// Two heads of 64 at a context of 64: a head's q, k, v and y (64 KiB) are more than a PE holds,
// so each head's channels are cut over 2 PEs, the scores passed along them; the same bits in fast
// and cycle mode, from a prompt and from the cache, q, k, v and y over the relays (each PE taking
// its channels' rows).
TEST(MeshTiers, AHeadTooBigForAPeIsCutOverPes) {
    const GPTConfig cfg = config(1, 2, 128, 64, 65);
    auto r = plan_model(cfg, 32, 32, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    const PlannedOp& att = *r.plan.find("l0.atty");
    EXPECT_EQ(att.constants.at("S"), 2);
    EXPECT_EQ(att.rect.w, 4);
    for (const auto& in : att.inputs) EXPECT_GT(in.colour, 0) << in.tensor;
    uint64_t fast = 0, cycle = 0;
    expect_reference_bits(cfg, r.plan, 20, 2, wl::RunMode::Fast, &fast);
    expect_reference_bits(cfg, r.plan, 20, 2, wl::RunMode::Cycle, &cycle);
    EXPECT_NEAR(double(fast), double(cycle), 0.10 * double(cycle)) << "fast " << fast << " cycle " << cycle;
    auto train = plan_model(cfg, 32, 32, kernels(), wl::MachineConfig{}.sram_bytes, /*train=*/true);   // with dy, dq, dk, dv: 4 PEs
    ASSERT_TRUE(train.ok) << train.error;
    EXPECT_EQ(train.plan.find("l0.atty")->constants.at("S"), 4);
}

// A generation step's matmul needs x's whole column on every PE. Each row (every tier's) that does
// not get it relayed gathers it to its PE 0 along the chain and broadcasts it back (GATHER), so a
// row moves P blocks rather than every PE's to every PE: the chain's routes are in the plan.
TEST(MeshTiers, EveryMatmulRowGathersItsColumnOrHasItRelayed) {
    const GPTConfig cfg = config(1, 12, 768, 16, 50257);
    auto r = plan_model(cfg, 256, 72, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    std::set<std::tuple<int, int, int>> west;   // (x, y, colour) sending west from the ramp
    for (const wl::lang::RouteSetting& s : r.plan.links)
        if (s.route.npos == 1 && s.route.pos[0].rx == wl::kR && s.route.pos[0].tx == wl::kW) west.insert({s.x, s.y, s.colour});
    int gathering = 0;
    for (const PlannedOp& o : r.plan.ops) {
        if (!o.is(wl::gpt::OpKind::Matmul)) continue;
        const bool relayed = o.constants.count("RX") > 0, gathers = o.constants.count("GATHER") > 0;
        EXPECT_NE(relayed, gathers) << o.name;
        if (!gathers) continue;
        gathering++;
        for (int t = 0; t < o.tiers(); t++)
            for (int p = 1; p < o.rect.w; p++)
                EXPECT_TRUE(west.count({o.rect.x + p, o.rect.y + t, p % 2 == 1 ? 4 : 3})) << o.name << " tier " << t << " PE " << p;
    }
    EXPECT_GE(gathering, 4) << "qkv, fch, fcproj and the logits";
}

// GPT-2 small's width, heads and vocabulary (C = 768, 12 heads of 64, 50,257 tokens) in one layer
// at a context of 16: the embedding and the tied LM head over 25 tiers each of 256 PEs.
TEST(MeshTiers, Gpt2SmallWidthHeadsAndVocabularyMatchTheReference) {
    const GPTConfig cfg = config(1, 12, 768, 16, 50257);
    auto r = plan_model(cfg, 256, 72, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_GT(tiers_of(r.plan, "encoded"), 10);
    EXPECT_GT(tiers_of(r.plan, "logits"), 10);
    expect_reference_bits(cfg, r.plan, 12, 2, wl::RunMode::Fast);
}

}  // namespace
