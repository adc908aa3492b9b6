// Links between ops: activations whose producer sits directly above their consumer, with the
// same rows per PE, travel down the mesh as wavelets instead of through the host
// (docs/model-compiler.md, "Links between ops"). The logits and gradients must stay
// bit-identical to the reference, and the host must not see the linked activations.
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"
#include "engine/fabric/machine.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>
#include <map>
#include <set>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshGPT;
using wl::model::MeshPlan;
using wl::model::PlannedOp;
using wl::model::plan_model;
using namespace wl::model::testing;

// The host's bytes a forward over T steps still needs, from the plan: every input without a link
// (not the tokens), and every output some consumer (or the caller: the logits) reads through it.
uint64_t expected_host_bytes(const MeshPlan& p, int T) {
    uint64_t b = 0;
    for (const PlannedOp& o : p.ops) {
        if (o.train_only) continue;
        for (const auto& in : o.inputs)
            if (!in.colour && in.slice != wl::model::Slice::Tokens) b += 4ull * uint64_t(in.slice == wl::model::Slice::Rows ? o.rect.w * in.per_pe : in.rows) * uint64_t(T);
        if (o.host_out) b += 4ull * uint64_t(o.output.rows) * uint64_t(T);
    }
    return b;
}

// Bits of the mesh's logits against the reference's, on a W x H mesh; *plan_out: the plan used.
void check_forward(const GPTConfig& cfg, int W, int H, int T, wl::RunMode mode, MeshPlan* plan_out,
                   std::vector<wl::model::OpRun>* runs, uint64_t* host_bytes) {
    GPT model(cfg);
    model.init_weights(5);
    const std::vector<int> in = tokens(T, cfg.vocab_size, 3);
    model.forward(in.data(), nullptr, 1, T);
    auto r = plan_model(cfg, W, H, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    MeshGPT m(r.plan, model, mode);
    std::vector<float> logits;
    ASSERT_TRUE(m.forward(in.data(), T, &logits)) << m.error();
    int differ = 0;
    for (size_t i = 0; i < logits.size(); i++) differ += float_bits(logits[i]) != float_bits(model.logits()[i]);
    EXPECT_EQ(differ, 0) << "logits differ from the reference";
    *plan_out = r.plan;
    *runs = m.last_run();
    *host_bytes = m.last_host_bytes();
}

std::string in_of(const MeshPlan& p, const std::string& op) { return p.find(op)->inputs.front().tensor; }

const wl::model::OpRun* run_of(const std::vector<wl::model::OpRun>& runs, const std::string& name) {
    for (const auto& r : runs)
        if (r.name == name) return &r;
    return nullptr;
}

// gpt-nano on 32x32: the ops stack in bands of rows, and in every layer the MLP's chain
// (fch -> GELU -> fcproj -> residual), both residual adds' inputs, the layernorms' inputs and
// the attention's inputs and output (relays: tests/unit/model_mesh_relays_test.cpp) go over
// the fabric.
TEST(MeshLinks, NanoForwardSendsTheLinkedActivationsAsWavelets) {
    MeshPlan p;
    std::vector<wl::model::OpRun> runs;
    uint64_t host = 0;
    check_forward(nano(), 32, 32, 64, wl::RunMode::Fast, &p, &runs, &host);
    ASSERT_FALSE(runs.empty());
    for (int l = 0; l < 3; l++) {
        const std::string n = "l" + std::to_string(l) + ".";
        const PlannedOp* res2 = p.find(n + "residual2");
        const PlannedOp* res3 = p.find(n + "residual3");
        const PlannedOp* gelu = p.find(n + "fch_gelu");
        const PlannedOp* fcproj = p.find(n + "fcproj");
        ASSERT_TRUE(res2 && res3 && gelu && fcproj);
        for (const PlannedOp* o : {res2, res3, gelu, fcproj})
            for (const auto& in : o->inputs) {
                EXPECT_GT(in.colour, 0) << o->name << "'s " << in.symbol << " (" << in.tensor << ") has no link";
                const PlannedOp* from = p.find(in.tensor);
                ASSERT_NE(from, nullptr);
                EXPECT_EQ(in.from.x, from->rect.x);
                EXPECT_EQ(in.from.y, from->rect.y);
                EXPECT_EQ(from->rect.x, o->rect.x) << "a link runs straight down a column";
                EXPECT_EQ(from->rect.w, o->rect.w);
                EXPECT_LT(from->rect.y, o->rect.y);
            }
        for (const char* name : {"atty", "attproj"})
            for (const auto& in : p.find(n + name)->inputs) EXPECT_GT(in.colour, 0) << n << name << "'s " << in.symbol << " has no link";
        // Nothing of GELU's, fcproj's or the attention's crossed the host: in and out are links.
        for (const char* name : {"fch_gelu", "fcproj", "atty"}) {
            const wl::model::OpRun* r = run_of(runs, n + name);
            ASSERT_NE(r, nullptr);
            EXPECT_EQ(r->host_bytes, 0u) << r->name;
            EXPECT_GT(r->hops, 0u) << r->name << ": its input came as wavelets";
            EXPECT_FALSE(p.find(in_of(p, n + name))->host_out);
        }
        EXPECT_FALSE(fcproj->host_out);
    }
    // The layernorms' inputs and outputs are links too: residual -> ln -> matmul.
    for (const char* name : {"l0.ln1", "l0.qkv", "l1.ln2", "l1.fch", "lnf"}) {
        const PlannedOp* o = p.find(name);
        ASSERT_NE(o, nullptr);
        EXPECT_GT(o->inputs.front().colour, 0) << name << "'s input has no link";
    }
    // The routes: a link's colour of 8..17, a layernorm's chain (1..3, on its own row) or a
    // relay's (3 and 4, on a matmul's or the attention's row); never two routes for one colour
    // on one router.
    std::set<std::tuple<int, int, int>> seen;
    for (const auto& r : p.links) {
        bool chain = false, relay = false;
        for (const PlannedOp& o : p.ops) {
            const bool here = r.y == o.rect.y && r.x >= o.rect.x && r.x < o.rect.x + o.rect.w;
            chain |= here && o.kernel == "layernorm.wk";
            relay |= here && (o.kernel == "matmul.wk" || o.kernel == "attention.wk");
        }
        if (r.colour <= 4) {
            EXPECT_TRUE((r.colour <= 3 && chain) || (r.colour >= 3 && relay))
                << "colour " << r.colour << " routed at (" << r.x << "," << r.y << ") outside a layernorm's or a relay's row";
        } else {
            EXPECT_GE(r.colour, 8);
            EXPECT_LE(r.colour, 17);
        }
        EXPECT_TRUE(seen.insert({r.x, r.y, r.colour}).second) << "two routes for colour " << r.colour << " at (" << r.x << "," << r.y << ")";
    }
    // The host moved exactly what the plan leaves it, and less than all of it.
    EXPECT_EQ(host, expected_host_bytes(p, 64));
    uint64_t all = 0;
    for (const PlannedOp& o : p.ops)
        for (const auto& in : o.inputs)
            if (in.slice != wl::model::Slice::Tokens) all += 4ull * uint64_t(in.slice == wl::model::Slice::Rows ? o.rect.w * in.per_pe : in.rows) * 64;
    EXPECT_LT(host, all);
}

// A small model where the bands fit: the same bits in cycle mode (the links' timing is real there).
TEST(MeshLinks, CycleModeGivesTheReferenceBitsThroughTheLinks) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    MeshPlan p;
    std::vector<wl::model::OpRun> runs;
    uint64_t host = 0;
    check_forward(cfg, 4, 16, 6, wl::RunMode::Cycle, &p, &runs, &host);
    int linked = 0;
    for (const PlannedOp& o : p.ops)
        for (const auto& in : o.inputs) linked += in.colour > 0;
    EXPECT_GE(linked, 5) << "residuals' a and b, GELU's x, fcproj's x";
    EXPECT_EQ(host, expected_host_bytes(p, 6));
}

// Generation: one-token windows through the links, from the KV cache, match full forwards.
TEST(MeshLinks, ExtendThroughTheLinksMatchesTheReference) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    GPT model(cfg);
    model.init_weights(7);
    auto r = plan_model(cfg, 4, 16, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    MeshGPT m(r.plan, model);
    const std::vector<int> in = tokens(8, 11, 2);
    std::vector<float> step;
    ASSERT_TRUE(m.forward(in.data(), 2, &step)) << m.error();
    for (int t = 2; t < 8; t++) {
        ASSERT_TRUE(m.extend(in[size_t(t)], &step)) << m.error();
        model.forward(in.data(), nullptr, 1, t + 1);
        for (int v = 0; v < 11; v++)
            ASSERT_EQ(float_bits(step[size_t(v)]), float_bits(model.logits()[size_t(t) * 11 + v])) << "t " << t << " v " << v;
        EXPECT_EQ(m.last_host_bytes(), expected_host_bytes(r.plan, 1));
    }
}

// Training: the MLP's gradients go back up the same columns (fcproj's dx -> GELU's dy,
// GELU's dx -> fch's dy), and every gradient stays the reference's, bit for bit.
TEST(MeshLinks, GradientsGoBackUpTheLinks) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    const int B = 2, T = 8;
    ReferenceStep ref(cfg, B, T);
    GPT& model = ref.model;
    auto r = plan_model(cfg, 4, 16, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    for (const char* name : {"l0.fch_gelu", "l0.fcproj"}) {
        const PlannedOp* o = r.plan.find(name);
        ASSERT_NE(o, nullptr);
        EXPECT_GT(o->inputs.front().grad_colour, 0) << name << "'s dx has no link back";
        EXPECT_NE(o->inputs.front().grad_colour, o->inputs.front().colour);
    }
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        wl::model::MeshTrainer tr(r.plan, model, mode);
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, B, T));
        // The linked gradients, read out of the PEs that wrote them, for the last sequence.
        const struct {
            const char* name;
            const float* ref;
        } acts[] = {{"l0.fch_gelu", model.grads_acts.fch_gelu + size_t(B - 1) * T * 64},
                    {"l0.fch", model.grads_acts.fch + size_t(B - 1) * T * 64}};
        for (const auto& a : acts) ASSERT_NO_FATAL_FAILURE(expect_activation_grad_bits(tr, a.name, T, a.ref, 64));
        // GELU's backward took dy from fcproj and sent dx to fch: the host copied nothing for it.
        expect_fabric_only(tr.last_run(), "l0.fch_gelu", [](const std::string& op) { return op == "gelu_forward:backward"; }, B);
    }
}

// Training: the residual stream's gradient goes up the links too. The layernorm that reads a
// residual's output computes its gradient (dx) and sends it to the matmul that made the
// residual's second input (its dy) and to the layernorm that reads the first (the residual's
// identity backward, on the fabric); lnf's dx starts at zero on its PEs. And the logits go into
// the loss (crossentropy.wk, cut by vocabulary rows as the logits) and dlogits back up. Two
// layers, so that a layer's first layernorm sends to the layer before. Same bits, fast and
// cycle mode.
TEST(MeshLinks, TheResidualStreamsGradientGoesUpTheLinks) {
    const GPTConfig cfg = config(2, 2, 16, 8, 11);
    const int B = 2, T = 8, C = 16;
    ReferenceStep ref(cfg, B, T);
    GPT& model = ref.model;
    auto r = plan_model(cfg, 4, 24, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const MeshPlan& p = r.plan;
    // Every residual's inputs get their gradient over the fabric, here and in gpt-nano on 32x32
    // (whose columns carry the most links at once): 12 stream links there, besides the MLP's 12.
    const auto stream_links = [](const MeshPlan& plan) {
        int n = 0;
        for (const PlannedOp& o : plan.ops) {
            if (o.kernel != "residual.wk") continue;
            for (const auto& x : o.inputs) {
                EXPECT_GT(x.grad_colour, 0) << o.name << "'s " << x.symbol << ": its gradient has no link";
                n += x.grad_colour > 0;
            }
        }
        return n;
    };
    EXPECT_EQ(stream_links(p), 8);
    {
        auto nano_plan = plan_model(nano(), 32, 32, kernels(), wl::MachineConfig{}.sram_bytes, true);
        ASSERT_TRUE(nano_plan.ok) << nano_plan.error;
        EXPECT_EQ(stream_links(nano_plan.plan), 12);
    }
    const PlannedOp* loss = p.find("dlogits");
    ASSERT_NE(loss, nullptr);
    EXPECT_GT(loss->inputs.front().colour, 0) << "the logits into the loss";
    EXPECT_GT(loss->inputs.front().grad_colour, 0) << "dlogits back up";
    // The ops whose activations and gradients in and out are all links now, forward and backward:
    // the layernorms but the first (its dx is the embedding's dy, which runs after the tie's
    // stream), fcproj (dy from the layernorm below, dx up to GELU), the logits and the loss.
    const std::vector<std::string> linked = {"l0.ln2", "l1.ln1", "l1.ln2", "lnf", "l0.fcproj", "l1.fcproj", "logits", "dlogits"};
    const auto& ga = model.grads_acts;
    const auto last = [&](const float* base, int l, int rows) { return base + (size_t(l) * B + (B - 1)) * size_t(T) * rows; };
    const struct {
        std::string name;
        const float* ref;
        int rows;
    } acts[] = {{"l1.residual3", last(ga.residual3, 1, C), C}, {"l1.residual2", last(ga.residual2, 1, C), C},
                {"l0.residual3", last(ga.residual3, 0, C), C}, {"l0.residual2", last(ga.residual2, 0, C), C},
                {"l0.attproj", last(ga.attproj, 0, C), C},     {"encoded", last(ga.encoded, 0, C), C},
                {"logits", last(ga.logits, 0, 11), 11},        {"lnf", last(ga.lnf, 0, C), C}};
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        wl::model::MeshTrainer tr(r.plan, model, mode);
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, B, T));
        // The stream's gradient and dlogits, out of the SRAM of the ops that wrote them (the host
        // never held them).
        for (const auto& a : acts) ASSERT_NO_FATAL_FAILURE(expect_activation_grad_bits(tr, a.name, T, a.ref, a.rows));
        const auto pass = [](const std::string& op) {   // its forward (or the loss's main) and backward
            return op.find(":zero") == std::string::npos && op.find(":transpose") == std::string::npos;
        };
        for (const std::string& name : linked) expect_fabric_only(tr.last_run(), name, pass, name == "dlogits" ? B : 2 * B);
    }
}

// Training: the embedding's dy (the first layernorm's dx) goes up its link too, into a stash in
// the embedding's SRAM, a slot per sequence: the embedding's backward adds it only after the tie's
// stream has given dwte the logits' part, the reference's order. On 4 x 16 every activation and
// gradient of a step then crosses the fabric: the host moves no byte of them. A batch longer than
// the stash sends the rest through the host, with the same bits.
TEST(MeshLinks, TheEmbeddingsDyWaitsInItsStash) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    const int C = cfg.n_embd;
    auto r = plan_model(cfg, 4, 16, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const PlannedOp* emb = r.plan.find("encoded");
    const PlannedOp* ln1 = r.plan.find("l0.ln1");
    ASSERT_TRUE(emb && ln1);
    EXPECT_GT(ln1->inputs.front().grad_colour, 0) << "the embedding's dy crosses the host";
    EXPECT_EQ(emb->constants.at("LDY"), ln1->inputs.front().grad_colour);
    const int slots = int(emb->constants.at("NB"));
    EXPECT_GE(slots, 8) << "the stash holds a batch of 8";
    EXPECT_LE(emb->bytes_per_pe, r.plan.sram_bytes);
    for (const int B : {2, slots + 2}) {
        const int T = B > 2 ? 4 : 8;
        ReferenceStep ref(cfg, B, T);
        GPT& model = ref.model;
        for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
            if (B > 2 && mode == wl::RunMode::Cycle) continue;   // the long batch: fast mode is enough
            wl::model::MeshTrainer tr(r.plan, model, mode);
            const uint64_t host0 = tr.mesh().host_bytes();
            ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, B, T));
            ASSERT_NO_FATAL_FAILURE(expect_activation_grad_bits(tr, "encoded", T, model.grads_acts.encoded + size_t(B - 1) * T * C, C));
            // past the stash: l0.ln1's dx out and the embedding's dy in, per sequence
            EXPECT_EQ(tr.mesh().host_bytes() - host0, uint64_t(B - std::min(B, slots)) * 2 * 4 * C * T) << "B " << B;
        }
    }
}

// Where not even one slot of the stash fits beside what the embedding's PEs hold (here an
// embedding.wk that wants 80 KB more with the link), the plan keeps the host's way for its dy:
// no link, no route left behind, and the same bits.
TEST(MeshLinks, AStashThatDoesNotFitLeavesTheHostsWay) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    const int B = 2, T = 8, C = cfg.n_embd;
    CountingKernels k;
    std::string emb = kernels()("embedding.wk");
    const std::string at = "    export var slot: i32;";
    ASSERT_NE(emb.find(at), std::string::npos);
    emb.replace(emb.find(at), at.size(), at + "\n    var pad: [f32; select(LDY > 0, 20000, 1)];");
    k.edits["embedding.wk"] = emb;
    auto r = plan_model(cfg, 4, 16, k.source(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const PlannedOp* e = r.plan.find("encoded");
    const PlannedOp* ln1 = r.plan.find("l0.ln1");
    ASSERT_TRUE(e && ln1);
    EXPECT_EQ(e->constants.count("LDY"), 0u);
    EXPECT_EQ(ln1->inputs.front().grad_colour, 0);
    const int idle = int(ln1->constants.at("LDX"));
    for (const auto& route : r.plan.links)
        EXPECT_FALSE(route.colour == idle && route.x < e->rect.x + e->rect.w && route.y >= e->rect.y && route.y <= ln1->rect.y)
            << "the link's route stayed at (" << route.x << "," << route.y << ")";
    ReferenceStep ref(cfg, B, T);
    GPT& model = ref.model;
    wl::model::MeshTrainer tr(r.plan, model);
    const uint64_t host0 = tr.mesh().host_bytes();
    ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, B, T));
    EXPECT_EQ(tr.mesh().host_bytes() - host0, uint64_t(B) * 2 * 4 * C * T);
}

}  // namespace
