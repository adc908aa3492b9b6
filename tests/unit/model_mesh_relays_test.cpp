// Relays: the attention runs one head per PE while the matmuls around it keep rows per PE, so
// qkv -> attention and attention -> attproj cannot go straight down a column. They go along
// the producer's row to its PE 0, down to the consumer's row and to every PE there, each
// keeping its rows (docs/model-compiler.md, "Relays"). The host must not see q, k, v, y or
// their gradients, and the logits and gradients must stay the reference's, bit for bit.
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshGPT;
using wl::model::MeshPlan;
using wl::model::OpRun;
using wl::model::PlannedOp;
using wl::model::plan_model;
using namespace wl::model::testing;

// The small shape the link tests use: 1 layer, 2 heads, width 16, context 8, on 4 x 16.
GPTConfig small() { return config(1, 2, 16, 8, 11); }

// The plan relays every attention input and its output, from the op directly above.
void expect_relayed(const MeshPlan& p, bool grads) {
    const PlannedOp* qkv = p.find("l0.qkv");
    const PlannedOp* atty = p.find("l0.atty");
    const PlannedOp* proj = p.find("l0.attproj");
    ASSERT_TRUE(qkv && atty && proj);
    ASSERT_EQ(atty->inputs.size(), 3u);
    for (const auto& in : atty->inputs) {
        EXPECT_GT(in.colour, 0) << "attention's " << in.symbol << " crosses the host";
        EXPECT_EQ(in.colour, atty->inputs.front().colour) << "q, k and v come on one relay";
        EXPECT_EQ(in.from.x, qkv->rect.x);
        EXPECT_EQ(in.from.y, qkv->rect.y);
        if (grads) {
            EXPECT_GT(in.grad_colour, 0) << "d" << in.symbol << " crosses the host";
        }
    }
    EXPECT_GT(proj->inputs.front().colour, 0) << "attproj's x (the attention's y) crosses the host";
    EXPECT_EQ(proj->inputs.front().from.y, atty->rect.y);
    if (grads) {
        EXPECT_GT(proj->inputs.front().grad_colour, 0) << "attproj's dx crosses the host";
    }
    EXPECT_FALSE(qkv->host_out);
    EXPECT_FALSE(atty->host_out);
}

const OpRun* run_of(const std::vector<OpRun>& runs, const std::string& name, const std::string& op) {
    for (const OpRun& r : runs)
        if (r.name == name && r.op == op) return &r;
    return nullptr;
}

// A forward and generation steps, fast and cycle mode: the reference's logits, and nothing of
// qkv, the attention or attproj through the host.
TEST(MeshRelays, AttentionTakesQkvAndGivesYOverTheFabric) {
    const GPTConfig cfg = small();
    GPT model(cfg);
    model.init_weights(5);
    auto r = plan_model(cfg, 4, 16, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    expect_relayed(r.plan, false);
    const std::vector<int> in = tokens(8, cfg.vocab_size, 3);
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        MeshGPT m(r.plan, model, mode);
        std::vector<float> logits;
        ASSERT_TRUE(m.forward(in.data(), 6, &logits)) << m.error();
        model.forward(in.data(), nullptr, 1, 6);
        int differ = 0;
        for (size_t i = 0; i < logits.size(); i++) differ += float_bits(logits[i]) != float_bits(model.logits()[i]);
        EXPECT_EQ(differ, 0) << "logits differ from the reference";
        for (const char* name : {"l0.qkv", "l0.atty", "l0.attproj"}) {
            const OpRun* run = run_of(m.last_run(), name, r.plan.find(name)->op);
            ASSERT_NE(run, nullptr) << name;
            EXPECT_EQ(run->host_bytes, 0u) << name;
            EXPECT_GT(run->hops, 0u) << name << ": its input came as wavelets";
        }
        // Generation: one-column windows through the relays, from the KV cache.
        std::vector<float> step;
        for (int t = 6; t < 8; t++) {
            ASSERT_TRUE(m.extend(in[size_t(t)], &step)) << m.error();
            model.forward(in.data(), nullptr, 1, t + 1);
            for (int v = 0; v < cfg.vocab_size; v++)
                ASSERT_EQ(float_bits(step[size_t(v)]), float_bits(model.logits()[size_t(t) * cfg.vocab_size + v])) << "t " << t;
            EXPECT_EQ(run_of(m.last_run(), "l0.atty", "attention_forward")->host_bytes, 0u);
        }
    }
}

// Training: dy comes from attproj's dx and dq, dk, dv go back up to qkv the same ways; every
// gradient is the reference's, and the relayed ones are read out of the PEs that wrote them.
TEST(MeshRelays, GradientsGoBackThroughTheRelays) {
    const GPTConfig cfg = small();
    const int B = 2, T = 8, C = cfg.n_embd;
    GPT model(cfg);
    model.init_weights(3);
    const std::vector<int> in = tokens(B * T, cfg.vocab_size, 4), tg = tokens(B * T, cfg.vocab_size, 9);
    model.forward(in.data(), tg.data(), B, T);
    model.zero_grad();
    model.backward();
    auto r = plan_model(cfg, 4, 16, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    expect_relayed(r.plan, true);
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        wl::model::MeshTrainer tr(r.plan, model, mode);
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, model, in, tg, B, T));
        const struct {
            const char* name;
            const float* ref;
            int rows;
        } acts[] = {{"l0.qkv", model.grads_acts.qkv + size_t(B - 1) * T * 3 * C, 3 * C},
                    {"l0.atty", model.grads_acts.atty + size_t(B - 1) * T * C, C}};
        for (const auto& a : acts) ASSERT_NO_FATAL_FAILURE(expect_activation_grad_bits(tr, a.name, T, a.ref, a.rows));
        // The attention's and qkv's backwards took dy over the fabric and sent their inputs'
        // gradients on: the host copied nothing for them.
        for (const char* name : {"l0.atty", "l0.qkv"}) {
            int seen = 0;
            for (const OpRun& run : tr.last_run())
                if (run.name == name && run.op == r.plan.find(name)->op + ":backward") {
                    seen++;
                    EXPECT_EQ(run.host_bytes, 0u) << name;
                    EXPECT_GT(run.hops, 0u) << name;
                }
            EXPECT_EQ(seen, B) << name;
        }
    }
}

}  // namespace
