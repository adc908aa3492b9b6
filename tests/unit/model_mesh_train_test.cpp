// Training the GPT on the emulated mesh against the reference (engine/gpt): every
// backward kernel (models/kernels/*.wk, TRAIN = 1) adds in the reference's order,
// so the loss, each op's input gradient and every parameter's gradient must match
// bit for bit (docs/model-compiler.md, "Training"). The tolerance is zero for
// those. The one sum that cannot match is the global gradient norm: the reference
// adds the squares in double, a PE has fp32 only, so the PEs add theirs in fp32
// along chains over the fabric (MeshTrainer::route_norm). The norm sets the clipping coefficient, so
// after a clipped AdamW step the weights may differ in the last bits; there the
// tolerance is relative: 1e-5 for the norm, 1e-4 for the losses, and 1e-3 of each
// weight tensor's largest weight after a few steps (see the key bias, below).
#include "engine/gpt/adamw.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/gpt_config.h"
#include "engine/model/mesh_plan.h"
#include "tests/unit/model_fixtures.h"
#include "engine/model/mesh_trainer.h"

#include <gtest/gtest.h>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshTrainer;
using wl::model::plan_model;

const wl::model::KernelSource& kKernels = wl::model::testing::kernels();
using namespace wl::model::testing;

struct Diff {
    int differ = 0;       // elements whose bits differ (+0 and -0 count as equal)
    double worst = 0;     // largest |a - b| / max(|b|, 1e-6)
};

Diff diff(const float* a, const float* b, size_t n) {
    Diff d;
    for (size_t i = 0; i < n; i++) {
        if (float_bits(a[i]) != float_bits(b[i]) && !(a[i] == 0 && b[i] == 0)) d.differ++;
        d.worst = std::max(d.worst, std::fabs(double(a[i]) - b[i]) / std::max(1e-6, std::fabs(double(b[i]))));
    }
    return d;
}

// The reference's gradient of activation `off` (L or 1, B, T, rows) for sequence b, layer l.
const float* ref_act(const float* base, int l, int B, int T, int rows, int b) {
    return base + (size_t(l) * B + b) * size_t(T) * rows;
}

// The wte-shaped tensor `sym` (laid out as the op's weight `w`) out of the PEs of op `name`.
std::vector<float> read_wte(MeshTrainer& tr, const char* name, const char* w, const char* sym) {
    const wl::model::PlannedOp& o = *tr.mesh().plan().find(name);
    const wl::model::ParamSlice s = wl::model::param_slice(tr.mesh().plan().cfg, "wte", -1);
    std::vector<float> out(size_t(s.rows) * s.cols, NAN);
    for (int p = 0; p < o.rect.w; p++)
        for (const wl::model::WeightPiece& piece : wl::model::weight_pieces(o, p, w, s))
            EXPECT_FALSE(tr.mesh().host().d2h(o.rect.x + p, o.rect.y, sym, out.data() + piece.model, piece.n, piece.pe));
    return out;
}

// Wavelet hops of the named launches of the last step.
uint64_t hops_of(const MeshTrainer& tr, const std::string& name) {
    uint64_t h = 0;
    for (const wl::model::OpRun& run : tr.last_run()) h += run.name == name ? run.hops : 0;
    return h;
}

// One backward on the mesh and on the reference, compared op by op and parameter by parameter.
// mesh_h 0: a square mesh.
void check_gradients(const GPTConfig& cfg, int mesh, int B, int T, uint64_t seed, wl::RunMode mode = wl::RunMode::Fast,
                     int mesh_h = 0) {
    GPT model(cfg);
    model.init_weights(seed);
    const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(seed)), tg = tokens(B * T, cfg.vocab_size, uint32_t(seed) + 5);
    model.forward(in.data(), tg.data(), B, T);
    model.zero_grad();
    model.backward();

    auto r = plan_model(cfg, mesh, mesh_h ? mesh_h : mesh, kKernels, wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    MeshTrainer tr(r.plan, model, mode);
    float loss = 0;
    ASSERT_TRUE(tr.backward(in.data(), tg.data(), B, T, &loss)) << tr.error();
    EXPECT_EQ(float_bits(loss), float_bits(model.mean_loss)) << loss << " vs " << model.mean_loss;
    // The loss came from the PEs: crossentropy.wk's row all hold the same running sum, and its mean.
    const wl::model::PlannedOp* ce = tr.mesh().plan().find("dlogits");
    ASSERT_NE(ce, nullptr);
    for (int p = 0; p < ce->rect.w; p++) {
        float lsum = 0, mean = 0;
        ASSERT_FALSE(tr.mesh().host().d2h(ce->rect.x + p, ce->rect.y, "lsum", &lsum, 1));
        ASSERT_FALSE(tr.mesh().host().d2h(ce->rect.x + p, ce->rect.y, "loss", &mean, 1));
        EXPECT_EQ(float_bits(mean), float_bits(loss)) << "PE " << p << " of the loss's row";
        EXPECT_EQ(float_bits(lsum / float(B * T)), float_bits(loss)) << "PE " << p;
    }
    uint64_t loss_hops = 0;
    for (const wl::model::OpRun& run : tr.last_run())
        if (run.name == "dlogits") loss_hops += run.hops;
    if (ce->rect.w > 1) {
        EXPECT_GT(loss_hops, 0u) << "the loss's running sum crossed the row";
    }

    // The tied wte's gradient: the logits' part went to the embedding's PEs over the fabric.
    EXPECT_GT(hops_of(tr, "tie_grad"), 0u) << "dwte's rows crossed the fabric";

    // Each op's input gradient, for the last sequence (the mesh keeps the last one).
    const int C = cfg.n_embd, L = cfg.n_layer, V = cfg.vocab_size, b = B - 1;
    const auto& ga = model.grads_acts;
    struct Act {
        std::string name;
        const float* ref;
        int rows;
    };
    std::vector<Act> acts = {{"logits", ref_act(ga.logits, 0, B, T, V, b), V}, {"lnf", ref_act(ga.lnf, 0, B, T, C, b), C}};
    for (int l = L - 1; l >= 0; l--) {
        const std::string p = "l" + std::to_string(l) + ".";
        acts.push_back({p + "residual3", ref_act(ga.residual3, l, B, T, C, b), C});
        acts.push_back({p + "fch_gelu", ref_act(ga.fch_gelu, l, B, T, 4 * C, b), 4 * C});
        acts.push_back({p + "fch", ref_act(ga.fch, l, B, T, 4 * C, b), 4 * C});
        acts.push_back({p + "ln2", ref_act(ga.ln2, l, B, T, C, b), C});
        acts.push_back({p + "residual2", ref_act(ga.residual2, l, B, T, C, b), C});
        acts.push_back({p + "atty", ref_act(ga.atty, l, B, T, C, b), C});
        acts.push_back({p + "qkv", ref_act(ga.qkv, l, B, T, 3 * C, b), 3 * C});
        acts.push_back({p + "ln1", ref_act(ga.ln1, l, B, T, C, b), C});
    }
    acts.push_back({"encoded", ref_act(ga.encoded, 0, B, T, C, b), C});
    for (const Act& a : acts) {
        const std::vector<float> m = tr.activation_grad(a.name, T);
        ASSERT_EQ(m.size(), size_t(T) * a.rows) << a.name;
        const Diff d = diff(m.data(), a.ref, m.size());
        EXPECT_EQ(d.differ, 0) << "d" << a.name << ": worst relative difference " << d.worst;
    }

    // Every parameter's gradient.
    std::vector<float> g;
    tr.read_grads(&g);
    ASSERT_EQ(g.size(), model.grads_memory.size());
    size_t off = 0;
    for (const wl::gpt::ParamInfo& info : wl::gpt::param_infos(cfg)) {
        const Diff d = diff(g.data() + off, model.grads_memory.data() + off, info.count);
        EXPECT_EQ(d.differ, 0) << "d" << info.name << ": " << d.differ << " of " << info.count
                               << " differ, worst relative difference " << d.worst;
        off += info.count;
    }
}

TEST(MeshTrain, OneSequenceGradientsMatchTheReferenceBitForBit) {
    check_gradients(config(1, 2, 16, 8, 11), 8, 1, 8, 3);
}

TEST(MeshTrain, NanoGradientsMatchTheReferenceBitForBit) {
    check_gradients(nano(), 32, 2, 64, 1);   // two sequences: the weight gradients are sums over B*T
}

TEST(MeshTrain, ShorterContextAndAnotherShape) {
    check_gradients(config(2, 3, 48, 32, 29), 16, 3, 20, 7);   // T < block_size, 3 heads, an odd vocabulary
}

TEST(MeshTrain, CycleModeGivesTheSameBits) {
    check_gradients(config(1, 2, 16, 8, 11), 8, 2, 8, 5, wl::RunMode::Cycle);
}

}  // namespace

namespace {

struct Tracked {
    float worst_loss = 0;     // largest relative loss difference over the steps
    Diff params;              // after the last step
    double worst_scaled = 0;  // largest |mesh - reference| of a weight over the largest |weight| of its tensor
    Diff m, v;                // AdamW's moments after the last step
    float norm_ref = 0, norm_mesh = 0;   // the last step's
    uint64_t norm_hops = 0;   // wavelet hops of the last step's grad_norm (the fabric's reduction)
    int clipped = 0;          // steps whose clipping coefficient was under 1
    std::vector<float> weights;   // the mesh's, after the last step
};

// `steps` AdamW steps on the mesh and on the reference, on the same batches.
Tracked track(GPTConfig cfg, int mesh, int B, int T, int steps, uint64_t seed, wl::RunMode mode = wl::RunMode::Fast,
              int mesh_h = 0) {
    Tracked out;
    GPT model(cfg);
    model.init_weights(seed);
    auto r = plan_model(cfg, mesh, mesh_h ? mesh_h : mesh, kKernels, wl::MachineConfig{}.sram_bytes, true);
    EXPECT_TRUE(r.ok) << r.error;
    if (!r.ok) return out;
    MeshTrainer tr(r.plan, model, mode);
    wl::gpt::AdamW opt(model.num_parameters);
    for (int s = 0; s < steps; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(seed + 31 * s)),
                               tg = tokens(B * T, cfg.vocab_size, uint32_t(seed + 31 * s + 5));
        const double lr = wl::gpt::learning_rate_at(cfg, s);
        model.forward(in.data(), tg.data(), B, T);
        model.zero_grad();
        model.backward();
        out.norm_ref = opt.step(model, lr, cfg);
        wl::model::TrainStep st;
        EXPECT_TRUE(tr.step(in.data(), tg.data(), B, T, lr, &st)) << tr.error();
        out.norm_mesh = st.grad_norm;
        // The clipping coefficient, computed where the norm's sum ends and sent to every PE that
        // holds a weight: the reference's formula on the mesh's norm, the same bits everywhere.
        float want = 1.0f;
        if (cfg.grad_clip > 0) {
            const float coef = float(cfg.grad_clip) / (st.grad_norm + 1e-6f);
            if (coef < 1.0f) want = coef;
        }
        out.clipped += want < 1.0f;
        int holders = 0;
        for (const wl::model::PlannedOp& o : tr.mesh().plan().ops) {
            if (o.weights.empty() || !o.constants.count("TRAIN") || o.constants.at("TRAIN") != 1) continue;
            for (int p = 0; p < o.rect.w; p++, holders++)
                EXPECT_EQ(float_bits(tr.clip_at(o.rect.x + p, o.rect.y)), float_bits(want))
                    << o.name << " PE " << p << " at step " << s;
        }
        EXPECT_GT(holders, 1);
        uint64_t cycles = 0;
        int qkv_forwards = 0, qkv_backwards = 0;
        for (const wl::model::OpRun& run : tr.last_run()) {
            if (run.name == "grad_norm") out.norm_hops = run.hops;
            qkv_forwards += run.name == "l0.qkv" && run.op == "matmul_forward";
            qkv_backwards += run.name == "l0.qkv" && run.op == "matmul_forward:backward";
            cycles += run.cycles;
        }
        EXPECT_EQ(qkv_forwards, B) << "last_run() holds this step's launches, once each";
        EXPECT_EQ(qkv_backwards, B);
        EXPECT_EQ(cycles, st.cycles);
        out.worst_loss = std::max(out.worst_loss, std::fabs(st.loss - model.mean_loss) / model.mean_loss);
        std::printf("[ info ] step %d: loss %.6f (reference %.6f), norm %.6f (reference %.6f), %llu cycles, %.2f s\n", s,
                    st.loss, model.mean_loss, st.grad_norm, out.norm_ref, (unsigned long long)st.cycles, st.seconds);
    }
    // The tie: the logits' PEs got the updated wte over the fabric, the same bits as the embedding's.
    EXPECT_GT(hops_of(tr, "tie_weights"), 0u);
    const std::vector<float> emb_wte = read_wte(tr, "encoded", "wte", "wte"), logits_w = read_wte(tr, "logits", "w", "w");
    EXPECT_EQ(diff(logits_w.data(), emb_wte.data(), emb_wte.size()).differ, 0) << "the logits' copy of wte";
    std::vector<float> p, m, v;
    tr.read_params(&p);
    out.params = diff(p.data(), model.params_memory.data(), p.size());
    tr.transfer(MeshTrainer::State::Moment1, &m, false);
    tr.transfer(MeshTrainer::State::Moment2, &v, false);
    out.m = diff(m.data(), opt.m.data(), m.size());
    out.v = diff(v.data(), opt.v.data(), v.size());
    out.weights = p;
    size_t off = 0;
    for (const wl::gpt::ParamInfo& info : wl::gpt::param_infos(cfg)) {
        double worst_abs = 0, scale = 0;
        size_t worst_at = 0;
        for (size_t i = off; i < off + info.count; i++) {
            if (std::fabs(double(p[i]) - model.params_memory[i]) > worst_abs) worst_at = i - off;
            worst_abs = std::max(worst_abs, std::fabs(double(p[i]) - model.params_memory[i]));
            scale = std::max(scale, std::fabs(double(model.params_memory[i])));
        }
        out.worst_scaled = std::max(out.worst_scaled, worst_abs / scale);
        std::printf("[ info ] %s: largest difference %.3g (element %zu), largest weight %.3g, %d differ\n", info.name, worst_abs, worst_at, scale,
                    diff(p.data() + off, model.params_memory.data() + off, info.count).differ);
        off += info.count;
    }
    return out;
}

TEST(MeshTrain, AdamWWithoutClippingMatchesTheReferenceBitForBit) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.grad_clip = 0;   // the norm then decides nothing: every step is exact
    cfg.warmup_iters = 2;
    const Tracked t = track(cfg, 16, 2, 16, 4, 11);
    EXPECT_EQ(t.worst_loss, 0.0f);
    EXPECT_EQ(t.params.differ, 0) << "worst relative difference " << t.params.worst;
    EXPECT_EQ(t.m.differ, 0) << "m: worst relative difference " << t.m.worst;
    EXPECT_EQ(t.v.differ, 0) << "v: worst relative difference " << t.v.worst;
    EXPECT_GT(t.norm_hops, 0u) << "the norm's sum crossed the fabric";
    EXPECT_LE(std::fabs(t.norm_mesh - t.norm_ref) / t.norm_ref, 1e-5f);
}

// The tie's streams between the embedding and the logits take other ways on other meshes:
// on 64x4 east along the first row and down (the weights), west and up (the gradient); on
// 256x1 both ops share the one row, so each stream runs straight along it.
TEST(MeshTrain, TheTiedWteStreamsOnAnyPlacement) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    cfg.grad_clip = 0;
    cfg.warmup_iters = 1;
    for (auto [w, h] : {std::pair<int, int>{64, 4}, {256, 1}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        check_gradients(cfg, w, 2, 8, 5, wl::RunMode::Fast, h);
        const Tracked t = track(cfg, w, 2, 8, 2, 4, wl::RunMode::Fast, h);
        EXPECT_EQ(t.worst_loss, 0.0f);
        EXPECT_EQ(t.params.differ, 0);
    }
}

TEST(MeshTrain, CycleModeStepsGiveTheSameBits) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    cfg.warmup_iters = 1;
    const Tracked fast = track(cfg, 8, 2, 8, 2, 4), cycle = track(cfg, 8, 2, 8, 2, 4, wl::RunMode::Cycle);
    ASSERT_EQ(fast.weights.size(), cycle.weights.size());
    EXPECT_EQ(diff(cycle.weights.data(), fast.weights.data(), fast.weights.size()).differ, 0);
    EXPECT_EQ(float_bits(cycle.norm_mesh), float_bits(fast.norm_mesh));
}

// On a row of 8 PEs a nano layer's matmuls keep too much for their PEs in training (fcproj: 8 of
// its 64 rows a PE, 49 KB with dW, the transpose and AdamW's moments), so they go over tiers; each
// tier's dx goes on down the next (matmul.wk, R), and the bits are still the reference's.
TEST(MeshTrain, MatmulsTooBigForTheirRowTrainOverTiers) {
    GPTConfig cfg = config(1, 4, 64, 32, 65);
    cfg.grad_clip = 0;   // every step exact (AdamWWithoutClipping...)
    cfg.warmup_iters = 1;
    auto r = plan_model(cfg, 8, 32, kKernels, wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    int tiered = 0;
    for (const wl::model::PlannedOp& o : r.plan.ops)
        if (o.tiers() > 1) {
            tiered++;
            EXPECT_TRUE(o.is(wl::gpt::OpKind::Matmul)) << o.name;
            EXPECT_EQ(o.constants.at("R"), o.tiers()) << o.name;
        }
    EXPECT_GE(tiered, 2) << "fch and fcproj at least";
    check_gradients(cfg, 8, 2, 32, 3, wl::RunMode::Fast, 32);
    const Tracked t = track(cfg, 8, 2, 32, 2, 5, wl::RunMode::Fast, 32);
    EXPECT_EQ(t.worst_loss, 0.0f);
    EXPECT_EQ(t.params.differ, 0) << "worst relative difference " << t.params.worst;
    EXPECT_EQ(t.m.differ, 0);
    EXPECT_EQ(t.v.differ, 0);
}

// GPT-small's width and heads (C = 768, 12 heads of 64; one layer, a short context and a small
// vocabulary): qkv, attproj and fch go over tiers of their output rows, and fcproj (K = 3,072), of
// which not even one output row fits a PE with its gradient and transpose, over tiers of its input
// rows, y going on down them (RK). The gradients are the reference's, bit for bit.
TEST(MeshTrain, Gpt2SmallWidthAndHeadsTrainBitForBit) {
    const GPTConfig cfg = config(1, 12, 768, 8, 45);
    auto r = plan_model(cfg, 256, 32, kKernels, wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const wl::model::PlannedOp* fcproj = r.plan.find("l0.fcproj");
    ASSERT_NE(fcproj, nullptr);
    EXPECT_GT(fcproj->constants.count("RK"), 0u);
    EXPECT_EQ(fcproj->constants.at("K") * fcproj->tiers(), 3072);
    EXPECT_GT(r.plan.find("l0.qkv")->tiers(), 1);
    check_gradients(cfg, 256, 1, 8, 9, wl::RunMode::Fast, 32);
}

// The same cut on a smaller model: on a row of 16 PEs one output row of fcproj (K = 1,024) with its
// gradient, transpose and moments and x's 64 rows of 32 steps is more than a PE, so its input rows
// go over tiers; in both modes the reference's bits.
TEST(MeshTrain, TiersCuttingTheInputsGiveTheReferenceBitsInBothModes) {
    const GPTConfig cfg = config(1, 8, 256, 32, 23);
    auto r = plan_model(cfg, 16, 64, kKernels, wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_GT(r.plan.find("l0.fcproj")->constants.count("RK"), 0u);
    const ReferenceStep ref(cfg, 2, 32);
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        MeshTrainer tr(r.plan, ref.model, mode);
        SCOPED_TRACE(mode == wl::RunMode::Fast ? "fast" : "cycle");
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, 2, 32));
    }
}

// A head whose q, k, v, y and their gradients (8 x 32 x 64 floats) are more than a PE holds goes
// over S = 2 PEs, its backward's sums over the channels chained along them (attention.wk); the
// gradients are the reference's bits in both modes. The tie's streams cross the head's first PE on
// its colour 5 and leave its route as they found it: the steps after still match.
TEST(MeshTrain, AHeadOverSeveralPesTrainsBitForBit) {
    GPTConfig cfg = config(1, 2, 64, 64, 23);
    cfg.grad_clip = 0;
    cfg.warmup_iters = 1;
    auto r = plan_model(cfg, 16, 32, kKernels, wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const wl::model::PlannedOp* att = r.plan.find("l0.atty");
    ASSERT_NE(att, nullptr);
    ASSERT_EQ(att->constants.at("S"), 2);
    const ReferenceStep ref(cfg, 2, 64);
    for (wl::RunMode mode : {wl::RunMode::Fast, wl::RunMode::Cycle}) {
        MeshTrainer tr(r.plan, ref.model, mode);
        SCOPED_TRACE(mode == wl::RunMode::Fast ? "fast" : "cycle");
        ASSERT_NO_FATAL_FAILURE(expect_backward_bits(tr, ref, 2, 64));
    }
    const Tracked t = track(cfg, 16, 1, 64, 3, 5, wl::RunMode::Fast, 32);
    EXPECT_EQ(t.worst_loss, 0.0f);
    EXPECT_EQ(t.params.differ, 0) << "worst relative difference " << t.params.worst;
}

TEST(MeshTrain, TiersInCycleModeGiveTheSameBits) {
    GPTConfig cfg = config(1, 4, 64, 8, 65);
    cfg.warmup_iters = 1;
    const Tracked fast = track(cfg, 8, 1, 8, 1, 4, wl::RunMode::Fast, 32),
                  cycle = track(cfg, 8, 1, 8, 1, 4, wl::RunMode::Cycle, 32);
    ASSERT_EQ(fast.weights.size(), cycle.weights.size());
    EXPECT_EQ(diff(cycle.weights.data(), fast.weights.data(), fast.weights.size()).differ, 0);
}

TEST(MeshTrain, NanoStepsWithClippingTrackTheReference) {
    GPTConfig cfg = nano();
    cfg.warmup_iters = 2;   // larger steps sooner
    const Tracked t = track(cfg, 32, 2, 64, 3, 1);
    EXPECT_GT(t.clipped, 0) << "no step clipped: the mesh's coefficient was not put to the test";
    EXPECT_LE(std::fabs(t.norm_mesh - t.norm_ref) / t.norm_ref, 1e-5f);
    EXPECT_LE(t.worst_loss, 1e-4f);
    // Against its tensor's largest weight, a weight differs by about 1e-6 after 3 steps, except in
    // the key bias (qkvb[C..2C)): softmax ignores a shift common to every key, so its gradient is
    // rounding noise, and once the weights differ by an ulp, Adam's normalised step turns a
    // different noise into a different step (measured: 2e-4 of the tensor's scale, 4e-7 absolute).
    EXPECT_LE(t.worst_scaled, 1e-3) << t.params.differ << " weights differ";
}

}  // namespace

namespace {

TEST(MeshTrain, NanoFitsA32x32MeshWithEverythingTrainingKeeps) {
    auto r = plan_model(nano(), 32, 32, kKernels, wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const wl::model::MeshPlan& p = r.plan;
    EXPECT_TRUE(p.train);
    EXPECT_LE(p.bytes_max(), p.sram_bytes);
    uint32_t weights = 0, grads = 0, adam = 0;
    for (const wl::model::PlannedOp& o : p.ops) {
        const wl::model::MemoryUse& m = o.memory;
        EXPECT_EQ(m.weights + m.gradients + m.adam + m.activations + m.scratch, o.bytes_per_pe) << o.name;
        if (!o.weights.empty() && o.name != "logits") {   // the logits' w is the embedding's (tied)
            EXPECT_GT(m.gradients, 0u) << o.name;
            EXPECT_EQ(m.adam, 2 * m.gradients) << o.name << ": an m and a v per gradient";
        }
        weights += m.weights;
        grads += m.gradients;
        adam += m.adam;
    }
    EXPECT_GT(weights, 0u);
    EXPECT_GT(grads, 0u);
    EXPECT_GT(adam, 0u);
    // The inference plan of the same model keeps none of it.
    auto inf = plan_model(nano(), 32, 32, kKernels);
    ASSERT_TRUE(inf.ok) << inf.error;
    for (const wl::model::PlannedOp& o : inf.plan.ops) EXPECT_LE(o.memory.gradients + o.memory.adam, 7u * 4) << o.name;
    EXPECT_LT(inf.plan.bytes_max(), p.bytes_max());
}

TEST(MeshTrain, APlanThatDoesNotFitSaysWhereAndHowMuch) {
    GPTConfig cfg = nano();
    cfg.block_size = 288;   // fits for inference, not for training (the attention's gradients)
    auto r = plan_model(cfg, 32, 32, kKernels, 48 * 1024, true);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find(" needs "), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(" bytes on PE ("), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("49,152 available"), std::string::npos) << r.error;
    EXPECT_TRUE(plan_model(cfg, 32, 32, kKernels, 48 * 1024).ok);
}

}  // namespace

namespace {

// What a checkpoint keeps (weights, m, v, the update count) is enough: a trainer rebuilt from
// it takes the next step to the same bits as the one that kept going.
TEST(MeshTrain, ResumingFromTheReadBackStateGivesTheSameBits) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.warmup_iters = 1;
    GPT model(cfg);
    model.init_weights(9);
    auto r = plan_model(cfg, 16, 16, kKernels, wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const std::vector<int> in = tokens(2 * 16, cfg.vocab_size, 1), tg = tokens(2 * 16, cfg.vocab_size, 2);
    MeshTrainer a(r.plan, model);
    wl::model::TrainStep st;
    ASSERT_TRUE(a.step(in.data(), tg.data(), 2, 16, 1e-3, &st)) << a.error();

    std::vector<float> m, v;
    a.read_params(&model.params_memory);
    a.transfer(MeshTrainer::State::Moment1, &m, false);
    a.transfer(MeshTrainer::State::Moment2, &v, false);
    MeshTrainer b(r.plan, model);
    b.transfer(MeshTrainer::State::Moment1, &m, true);
    b.transfer(MeshTrainer::State::Moment2, &v, true);
    b.set_updates(a.updates());

    wl::model::TrainStep sa, sb;
    ASSERT_TRUE(a.step(tg.data(), in.data(), 2, 16, 2e-3, &sa)) << a.error();
    ASSERT_TRUE(b.step(tg.data(), in.data(), 2, 16, 2e-3, &sb)) << b.error();
    EXPECT_EQ(float_bits(sa.loss), float_bits(sb.loss));
    EXPECT_EQ(float_bits(sa.grad_norm), float_bits(sb.grad_norm));
    std::vector<float> pa, pb;
    a.read_params(&pa);
    b.read_params(&pb);
    EXPECT_EQ(diff(pb.data(), pa.data(), pa.size()).differ, 0);
    std::vector<float> wrong(3);
    EXPECT_THROW(b.transfer(MeshTrainer::State::Moment1, &wrong, true), std::invalid_argument);
}

TEST(MeshTrain, BadInputSaysWhatAndLosesNothing) {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    GPT model(cfg);
    model.init_weights(3);
    auto r = plan_model(cfg, 8, 8, kKernels, wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    MeshTrainer tr(r.plan, model);
    std::vector<float> before, after;
    tr.read_params(&before);
    std::vector<int> in = tokens(8, 11, 1), tg = tokens(8, 11, 2);
    tg[5] = 11;
    float loss = 0;
    EXPECT_FALSE(tr.backward(in.data(), tg.data(), 1, 8, &loss));
    EXPECT_NE(tr.error().find("target 11 at position 5"), std::string::npos) << tr.error();
    in[2] = -1;
    tg[5] = 0;
    EXPECT_FALSE(tr.backward(in.data(), tg.data(), 1, 8, &loss));
    EXPECT_NE(tr.error().find("token -1 at position 2"), std::string::npos) << tr.error();
    EXPECT_FALSE(tr.backward(in.data(), tg.data(), 1, 9, &loss));
    EXPECT_NE(tr.error().find("1 <= T <= block_size (8)"), std::string::npos) << tr.error();
    tr.read_params(&after);
    EXPECT_EQ(diff(after.data(), before.data(), before.size()).differ, 0);
    auto inf = plan_model(cfg, 8, 8, kKernels);
    ASSERT_TRUE(inf.ok);
    EXPECT_THROW(MeshTrainer(inf.plan, model), std::invalid_argument);
}

}  // namespace
