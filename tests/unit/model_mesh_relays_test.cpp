// Relays: the attention runs one head per PE while the matmuls around it keep rows per PE, so
// qkv -> attention and attention -> attproj cannot go straight down a column. They go along
// the producer's row to its PE 0, down to the consumer's row and to every PE there, each
// keeping its rows (docs/model-compiler.md, "Relays"). The host must not see q, k, v, y or
// their gradients, and the logits and gradients must stay the reference's, bit for bit.
// The band's turn is a relay too: lnf's rows go east along its row and around the corner to
// the logits in the next band, and dlnf comes back the same way.
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
    ReferenceStep ref(cfg, B, T);
    GPT& model = ref.model;
    auto r = plan_model(cfg, 4, 16, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    expect_relayed(r.plan, true);
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        wl::model::MeshTrainer tr(r.plan, model, mode);
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, B, T));
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
            const std::string backward = r.plan.find(name)->op + ":backward";
            expect_fabric_only(tr.last_run(), name, [&](const std::string& op) { return op == backward; }, B);
        }
    }
}

// A head cut over S PEs (attention.wk's S > 1: the small shape at a context of 160, whose heads'
// q, k, v and their gradients outgrow one PE in training) relays the same: its row is NH x S
// blocks of HC rows, each PE's its channels'. The forward's logits and every gradient are the
// reference's, and the host carries nothing of qkv's, the attention's or attproj's.
TEST(MeshRelays, AHeadCutOverPesTakesItsChannelsOverTheRelays) {
    const GPTConfig cfg = config(1, 2, 16, 160, 11);
    const int B = 2, T = 160;
    ReferenceStep ref(cfg, B, T);
    auto r = plan_model(cfg, 8, 16, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_GT(r.plan.find("l0.atty")->constants.at("S"), 1);
    expect_relayed(r.plan, true);
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        wl::model::MeshTrainer tr(r.plan, ref.model, mode);
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, B, T));
        for (const char* name : {"l0.atty", "l0.qkv"}) {
            const std::string backward = r.plan.find(name)->op + ":backward";
            expect_fabric_only(tr.last_run(), name, [&](const std::string& op) { return op == backward; }, B);
        }
        const OpRun* fwd = run_of(tr.last_run(), "l0.atty", "attention_forward");
        ASSERT_NE(fwd, nullptr);
        EXPECT_EQ(fwd->host_bytes, 0u);
        EXPECT_GT(fwd->hops, 0u);
    }
}

// [SECTION] the band's turn

// The plan turns into the next band after lnf: the logits take lnf's y (and, training, give
// back its dy) over the turn's relay, and the host reads nothing of lnf.
void expect_turned(const MeshPlan& p, bool grads) {
    const PlannedOp* lnf = p.find("lnf");
    const PlannedOp* lg = p.find("logits");
    ASSERT_TRUE(lnf && lg);
    EXPECT_GT(lg->rect.x, lnf->rect.x + lnf->rect.w - 1) << "the logits sit in the next band, east of lnf";
    EXPECT_NE(lg->rect.y, lnf->rect.y);
    const auto& in = lg->inputs.front();
    EXPECT_GT(in.colour, 0) << "lnf -> logits crosses the host";
    EXPECT_EQ(in.from.x, lnf->rect.x);
    EXPECT_EQ(in.from.y, lnf->rect.y);
    EXPECT_EQ(lnf->constants.at("RY"), 1);
    EXPECT_EQ(lg->constants.at("RX"), 1);
    if (grads) {
        EXPECT_GT(in.grad_colour, 0) << "dlnf crosses the host";
        EXPECT_NE(in.grad_colour, in.colour);
    }
    EXPECT_FALSE(lnf->host_out);
}

// The small shape on 16 x 12: band 0 holds the embedding down to lnf, the logits (and the loss)
// start band 1. A forward, fast and cycle mode, and generation steps: the reference's logits,
// nothing of lnf through the host, and of the logits only what the caller reads.
TEST(MeshRelays, LnfReachesTheLogitsAcrossTheBandsTurn) {
    const GPTConfig cfg = small();
    GPT model(cfg);
    model.init_weights(5);
    auto r = plan_model(cfg, 16, 12, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_NO_FATAL_FAILURE(expect_turned(r.plan, false));
    const std::vector<int> in = tokens(8, cfg.vocab_size, 3);
    const uint64_t V = uint64_t(cfg.vocab_size);
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        MeshGPT m(r.plan, model, mode);
        std::vector<float> logits;
        ASSERT_TRUE(m.forward(in.data(), 6, &logits)) << m.error();
        model.forward(in.data(), nullptr, 1, 6);
        int differ = 0;
        for (size_t i = 0; i < logits.size(); i++) differ += float_bits(logits[i]) != float_bits(model.logits()[i]);
        EXPECT_EQ(differ, 0) << "logits differ from the reference";
        const OpRun* lnf = run_of(m.last_run(), "lnf", "layernorm_forward");
        const OpRun* lg = run_of(m.last_run(), "logits", "matmul_forward");
        ASSERT_TRUE(lnf && lg);
        EXPECT_EQ(lnf->host_bytes, 0u);
        EXPECT_EQ(lg->host_bytes, 4 * V * 6) << "the logits' input crossed the host";
        EXPECT_GT(lg->hops, 0u);
        std::vector<float> step;
        for (int t = 6; t < 8; t++) {
            ASSERT_TRUE(m.extend(in[size_t(t)], &step)) << m.error();
            model.forward(in.data(), nullptr, 1, t + 1);
            for (int v = 0; v < cfg.vocab_size; v++)
                ASSERT_EQ(float_bits(step[size_t(v)]), float_bits(model.logits()[size_t(t) * cfg.vocab_size + v])) << "t " << t;
            EXPECT_EQ(run_of(m.last_run(), "logits", "matmul_forward")->host_bytes, 4 * V);
        }
    }
}

// Training across the turn: the logits' dx goes back to lnf's dy; every gradient is the
// reference's, dlnf is read out of the logits' PEs, and neither backward moves a byte through
// the host.
TEST(MeshRelays, DlnfComesBackAcrossTheBandsTurn) {
    const GPTConfig cfg = small();
    const int B = 2, T = 8, C = cfg.n_embd;
    ReferenceStep ref(cfg, B, T);
    GPT& model = ref.model;
    auto r = plan_model(cfg, 16, 12, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_NO_FATAL_FAILURE(expect_turned(r.plan, true));
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        wl::model::MeshTrainer tr(r.plan, model, mode);
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, B, T));
        ASSERT_NO_FATAL_FAILURE(expect_activation_grad_bits(tr, "lnf", T, model.grads_acts.lnf + size_t(B - 1) * T * C, C));
        for (const char* name : {"lnf", "logits"}) {   // a forward and a backward per sequence
            const std::string forward = r.plan.find(name)->op;
            expect_fabric_only(tr.last_run(), name, [&](const std::string& op) { return op == forward || op == forward + ":backward"; }, 2 * B);
        }
    }
}

// gpt-nano on its default mesh, 32 x 32: its 34 training ops do not fit one band, and the turn
// falls after lnf. Every activation of a forward is a link or a relay (the host reads only the
// logits); in training the host moves no activation or gradient, and the gradients are the
// reference's.
TEST(MeshRelays, NanoOn32x32TurnsOverTheFabric) {
    const GPTConfig cfg = nano();
    const int B = 2, T = 64, C = cfg.n_embd;
    GPT model(cfg);
    model.init_weights(1);
    const std::vector<int> in = tokens(B * T, cfg.vocab_size, 4), tg = tokens(B * T, cfg.vocab_size, 9);
    auto inf = plan_model(cfg, 32, 32, kernels());
    ASSERT_TRUE(inf.ok) << inf.error;
    ASSERT_NO_FATAL_FAILURE(expect_turned(inf.plan, false));
    int linked = 0, inputs = 0;
    for (const PlannedOp& o : inf.plan.ops)
        for (const auto& x : o.inputs)
            if (x.slice != wl::model::Slice::Tokens) {
                inputs++;
                linked += x.colour > 0;
            }
    EXPECT_EQ(linked, inputs) << "every activation input of a forward is a link or a relay";
    {
        MeshGPT m(inf.plan, model);
        std::vector<float> logits;
        ASSERT_TRUE(m.forward(in.data(), T, &logits)) << m.error();
        model.forward(in.data(), nullptr, 1, T);
        int differ = 0;
        for (size_t i = 0; i < logits.size(); i++) differ += float_bits(logits[i]) != float_bits(model.logits()[i]);
        EXPECT_EQ(differ, 0) << "logits differ from the reference";
        EXPECT_EQ(m.last_host_bytes(), 4ull * uint64_t(cfg.vocab_size) * T) << "only the logits cross the host";
    }
    model.forward(in.data(), tg.data(), B, T);
    model.zero_grad();
    model.backward();
    auto r = plan_model(cfg, 32, 32, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_NO_FATAL_FAILURE(expect_turned(r.plan, true));
    wl::model::MeshTrainer tr(r.plan, model);
    const uint64_t host0 = tr.mesh().host_bytes();
    ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, model, in, tg, B, T));
    ASSERT_NO_FATAL_FAILURE(expect_activation_grad_bits(tr, "lnf", T, model.grads_acts.lnf + size_t(B - 1) * T * C, C));
    // Nothing at all: the embedding's dy waits in its stash (MeshLinks.TheEmbeddingsDyWaitsInItsStash).
    EXPECT_EQ(tr.mesh().host_bytes() - host0, 0u);
}

}  // namespace
