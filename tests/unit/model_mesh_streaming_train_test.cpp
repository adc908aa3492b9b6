// Training in streaming execution (docs/weight-streaming.md, "Training"): one layer's ops serve
// every layer; each layer's weights stream in from the store, its gradients stream out to it over
// the same edge links, and AdamW on them runs in the store. Against the reference (engine/gpt):
// - one sequence a step: the loss and every parameter's gradient bit for bit (the store's sum of
//   one sequence's gradients is that sequence's), and without clipping the weights after steps too;
// - several sequences: the store adds each sequence's gradients as they arrive, where the reference
//   (and resident training) adds every row into one running sum, so the sums differ in the last
//   bits; the part-2 tolerances hold (model_mesh_train_test.cpp: 1e-4 for the losses).
#include "engine/gpt/adamw.h"
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using namespace wl::model;
using namespace wl::model::testing;

struct Compared {
    int grads_differ = 0;          // parameters whose gradient's bits differ from the reference's (first step)
    double grads_worst = 0;        // their largest difference, relative to the tensor's largest gradient
    int params_differ = 0;         // after the last step
    double params_worst = 0;       // relative to the tensor's largest weight
    float worst_loss = 0;          // relative, over the steps
    float worst_norm = 0;          // the gradient norm's, relative
    uint64_t stream_bytes = 0, stream_cycles = 0, cycles = 0;   // the last step's
};

// Per tensor: how many elements differ in their bits, and the largest difference over the tensor's largest value.
void compare(const GPTConfig& cfg, const std::vector<float>& mesh, const std::vector<float>& ref, int* differ, double* worst) {
    size_t off = 0;
    for (const wl::gpt::ParamInfo& info : wl::gpt::param_infos(cfg)) {
        double scale = 0, d = 0;
        for (size_t i = off; i < off + info.count; i++) {
            *differ += float_bits(mesh[i]) != float_bits(ref[i]) && !(mesh[i] == 0 && ref[i] == 0);
            scale = std::max(scale, std::fabs(double(ref[i])));
            d = std::max(d, std::fabs(double(mesh[i]) - ref[i]));
        }
        if (scale > 0) *worst = std::max(*worst, d / scale);
        off += info.count;
    }
}

// `steps` steps of B sequences on the mesh, streaming, and on the reference, on the same batches.
// mesh_h 0: a square mesh.
Compared train_both(const GPTConfig& cfg, int mesh, int B, int T, int steps, wl::RunMode mode = wl::RunMode::Fast,
                    int mesh_h = 0) {
    Compared out;
    GPT model(cfg);
    model.init_weights(7);
    const PlanResult r = plan_model(streaming(cfg), mesh, mesh_h ? mesh_h : mesh, kernels(), wl::MachineConfig{}.sram_bytes,
                                    /*train=*/true);
    EXPECT_TRUE(r.ok) << r.error;
    if (!r.ok) return out;
    EXPECT_TRUE(r.plan.streaming && r.plan.train);
    MeshTrainer tr(r.plan, model, mode);
    wl::gpt::AdamW opt(model.num_parameters);
    for (int s = 0; s < steps; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(3 + 31 * s)),
                               tg = tokens(B * T, cfg.vocab_size, uint32_t(8 + 31 * s));
        const double lr = wl::gpt::learning_rate_at(cfg, s);
        model.forward(in.data(), tg.data(), B, T);
        model.zero_grad();
        model.backward();
        float loss = 0, norm = 0;
        EXPECT_TRUE(tr.backward(in.data(), tg.data(), B, T, &loss)) << tr.error();
        if (s == 0) {
            std::vector<float> g;
            tr.read_grads(&g);
            compare(cfg, g, model.grads_memory, &out.grads_differ, &out.grads_worst);
        }
        const float ref_norm = opt.step(model, lr, cfg);
        EXPECT_TRUE(tr.update(lr, &norm)) << tr.error();
        out.worst_norm = std::max(out.worst_norm, std::fabs(norm - ref_norm) / ref_norm);
        out.worst_loss = std::max(out.worst_loss, std::fabs(loss - model.mean_loss) / model.mean_loss);
        const TrainStep& st = tr.last_step();
        out.stream_bytes = st.stream_bytes;
        out.stream_cycles = st.stream_cycles;
        out.cycles = st.cycles;
    }
    std::vector<float> p;
    tr.read_params(&p);
    compare(cfg, p, model.params_memory, &out.params_differ, &out.params_worst);
    return out;
}

// Every layer's weights of a step: in once for its forward and, but for the last layer, again for
// its backward; its gradients out once per sequence.
// The first step's gradients, every step's loss and the weights after the last, bit for bit.
void expect_bit_for_bit(const Compared& c) {
    EXPECT_EQ(c.grads_differ, 0) << "worst relative difference " << c.grads_worst;
    EXPECT_EQ(c.worst_loss, 0.0f);
    EXPECT_EQ(c.params_differ, 0) << "worst relative difference " << c.params_worst;
}

// Each step, whatever its sequences (a layer at a time over the batch): every layer in, every layer
// but the last in again, every layer's gradients out; a backward's streams (the last layer's first,
// the others' again) bring the matmuls' W's columns too (WT). Not counted: the tied wte's streams
// (the LM head's, the embedding's rows), a few percent here.
uint64_t expected_stream_bytes(const GPTConfig& cfg) {
    uint64_t layer = 0, wt = 0;
    for (const wl::gpt::ParamInfo& info : wl::gpt::param_infos(cfg))
        if (layer_param(cfg, info)) {
            layer += 4 * info.count / uint64_t(cfg.n_layer);
            if (info.shape.size() == 3) wt += 4 * info.count / uint64_t(cfg.n_layer);   // a matmul's w
        }
    return layer * (cfg.n_layer + (cfg.n_layer - 1) + cfg.n_layer) + wt * cfg.n_layer;
}

TEST(MeshStreamingTrain, OneSequenceIsTheReferenceBitForBit) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.grad_clip = 0;   // the norm decides nothing: the update is the reference's bits
    cfg.warmup_iters = 2;
    const Compared c = train_both(cfg, 16, 1, 16, 3);
    expect_bit_for_bit(c);
}

// On a row of 8 PEs the layer's wide matmuls go over tiers, each tier's weights and gradients over
// its own row's edge link: one sequence a step is still the reference's bits.
TEST(MeshStreamingTrain, TieredMatmulsStreamOverALinkATier) {
    GPTConfig cfg = config(2, 4, 64, 32, 65);
    cfg.grad_clip = 0;
    cfg.warmup_iters = 1;
    const PlanResult r = plan_model(streaming(cfg), 8, 24, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    int tiered = 0;
    for (const PlannedOp& o : r.plan.ops) tiered += o.layer >= 0 && o.tiers() > 1;
    EXPECT_GE(tiered, 2);
    const Compared c = train_both(cfg, 8, 1, 32, 2, wl::RunMode::Fast, 24);
    expect_bit_for_bit(c);
    EXPECT_GE(c.stream_bytes, expected_stream_bytes(cfg));
    EXPECT_LE(c.stream_bytes, expected_stream_bytes(cfg) * 11 / 10);
}

// The vocabulary (docs/weight-streaming.md, "The vocabulary"): wte is the store's. The LM head
// takes it over its tiers' edge links and its dwte goes back out; the embedding takes the rows its
// tokens pick and sends each sequence's dy out, which the store adds after the LM head's part; the
// loss is cut over the LM head's tiers, its sums chained through them in vocabulary order. All of
// it the reference's bits, gradients and AdamW's weights (no clipping: the norm's sums differ).
TEST(MeshStreamingTrain, AVocabularyOverTiersTrainsFromTheStore) {
    GPTConfig cfg = config(2, 2, 32, 16, 2000);
    cfg.grad_clip = 0;
    cfg.warmup_iters = 1;
    const PlanResult r = plan_model(streaming(cfg), 8, 40, kernels(), wl::MachineConfig{}.sram_bytes, true);
    ASSERT_TRUE(r.ok) << r.error;
    const PlannedOp* lg = r.plan.find("logits");
    const PlannedOp* ce = r.plan.find("dlogits");
    const PlannedOp* emb = r.plan.find("encoded");
    ASSERT_TRUE(lg && ce && emb);
    EXPECT_GE(lg->tiers(), 3);
    EXPECT_EQ(ce->tiers(), lg->tiers());
    EXPECT_TRUE(emb->on("STORE") && streamed(*emb) && streamed(*lg));
    for (int B : {1, 2}) {
        const Compared c = train_both(cfg, 8, B, 16, 2, wl::RunMode::Fast, 40);
        SCOPED_TRACE(B);   // two sequences too: the layers' gradients sum on their PEs over both, in order
        expect_bit_for_bit(c);
    }
}

// GPT-2's vocabulary, 50,257 rows (on a narrow model: GPT-2 small's width and heads train in
// model_mesh_train_test.cpp's Gpt2SmallWidthAndHeadsTrainBitForBit): two steps, bit for bit.
TEST(MeshStreamingTrain, Gpt2VocabularyTrainsBitForBit) {
    GPTConfig cfg = config(1, 2, 64, 8, 50257);
    cfg.grad_clip = 0;
    cfg.warmup_iters = 1;
    const Compared c = train_both(cfg, 64, 1, 8, 2, wl::RunMode::Fast, 64);
    expect_bit_for_bit(c);
}

// A layer at a time over the batch: each layer's gradients sum on its PEs over the step's sequences
// in order, the reference's one running sum over B*T rows, so two sequences a step are the
// reference's bits too, and stream what one does. The wavelets' bytes are the padded parameters
// (the last PE's padding rows travel too), so at least the parameters' bytes, and the streams take
// most of a step at the edge links' rate.
TEST(MeshStreamingTrain, SeveralSequencesAreTheReferenceBitForBitAndStreamEachLayerOnce) {
    GPTConfig cfg = nano();
    cfg.warmup_iters = 2;
    const Compared c = train_both(cfg, 32, 2, 32, 2);
    expect_bit_for_bit(c);
    EXPECT_LE(c.worst_norm, 1e-5f) << "the wafer's sum and the store's make the reference's norm";
    EXPECT_GE(c.stream_bytes, expected_stream_bytes(cfg));   // two sequences stream what one does
    EXPECT_LE(c.stream_bytes, expected_stream_bytes(cfg) * 11 / 10);
    EXPECT_GT(c.stream_cycles, c.cycles / 2) << "at one edge PE's share of the I/O, the streams dominate";
}

// The test: on a model that fits both ways, streaming and resident training give the same
// losses (the first step's bit for bit: the same weights and kernels; later ones within the store's
// last-bit sums) and the same weights after the steps, to the part-2 tolerances.
TEST(MeshStreamingTrain, StreamingAndResidentGiveTheSameLosses) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.warmup_iters = 1;
    GPT model(cfg);
    model.init_weights(9);
    std::vector<std::vector<float>> loss(2), weights(2);
    for (int streamed = 0; streamed < 2; streamed++) {
        const GPTConfig c = streamed ? streaming(cfg) : cfg;
        const PlanResult r = plan_model(c, 16, 16, kernels(), wl::MachineConfig{}.sram_bytes, /*train=*/true);
        ASSERT_TRUE(r.ok) << r.error;
        ASSERT_EQ(r.plan.streaming, streamed == 1);
        MeshTrainer tr(r.plan, model);
        for (int s = 0; s < 3; s++) {
            const std::vector<int> in = tokens(2 * 16, cfg.vocab_size, uint32_t(5 + s)), tg = tokens(2 * 16, cfg.vocab_size, uint32_t(9 + s));
            TrainStep st;
            ASSERT_TRUE(tr.step(in.data(), tg.data(), 2, 16, wl::gpt::learning_rate_at(cfg, s), &st)) << tr.error();
            loss[size_t(streamed)].push_back(st.loss);
        }
        tr.read_params(&weights[size_t(streamed)]);
    }
    EXPECT_EQ(float_bits(loss[1][0]), float_bits(loss[0][0]));
    for (int s = 1; s < 3; s++) EXPECT_NEAR(loss[1][size_t(s)], loss[0][size_t(s)], 1e-4 * loss[0][size_t(s)]) << "step " << s;
    int differ = 0;
    double worst = 0;
    compare(cfg, weights[1], weights[0], &differ, &worst);
    EXPECT_LE(worst, 1e-3) << differ << " weights differ";
}

// A streamed run's checkpoint is written from the store's arrays where they lie (gathered: the
// store's part and the wafer's, the final layer norm's): the same file as from host copies read
// out of both (read_params, transfer), and it loads as the mesh's weights and moments.
TEST(MeshStreamingTrain, TheCheckpointIsWrittenFromTheStore) {
    const GPTConfig cfg = config(2, 2, 32, 16, 23);
    GPT model(cfg);
    model.init_weights(5);
    const PlanResult r = plan_model(streaming(cfg), 16, 16, kernels(), wl::MachineConfig{}.sram_bytes, /*train=*/true);
    ASSERT_TRUE(r.ok) << r.error;
    MeshTrainer tr(r.plan, model);
    for (int s = 0; s < 2; s++) {
        const std::vector<int> in = tokens(2 * 16, cfg.vocab_size, uint32_t(1 + s)), tg = tokens(2 * 16, cfg.vocab_size, uint32_t(4 + s));
        TrainStep st;
        ASSERT_TRUE(tr.step(in.data(), tg.data(), 2, 16, 1e-3, &st)) << tr.error();
    }
    using State = MeshTrainer::State;
    std::vector<float> p, m, v;
    tr.read_params(&p);
    tr.transfer(State::Moment1, &m, false);
    tr.transfer(State::Moment2, &v, false);
    const std::string a = ::testing::TempDir() + "store.ckpt", b = ::testing::TempDir() + "copies.ckpt";
    wl::gpt::save_checkpoint(a, cfg, {tr.gathered(State::Params), tr.gathered(State::Moment1), tr.gathered(State::Moment2), tr.updates()},
                             2, "char", "abcdefghijklmnopqrstuvw");
    wl::gpt::save_checkpoint(b, cfg, {p, m, v, tr.updates()}, 2, "char", "abcdefghijklmnopqrstuvw");
    const wl::gpt::Checkpoint ck = wl::gpt::load_checkpoint(a);
    EXPECT_EQ(ck.params, p);
    EXPECT_EQ(ck.m, m);
    EXPECT_EQ(ck.v, v);
    EXPECT_EQ(ck.adam_t, 2);
    auto bytes = [](const std::string& f) {
        std::ifstream in(f, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_EQ(bytes(a), bytes(b));
    std::vector<float> lnf(p.begin() + long(param_slice(cfg, "lnfw", -1).offset), p.begin() + long(param_slice(cfg, "lnfw", -1).offset) + 32);
    EXPECT_NE(lnf, std::vector<float>(32, 1.0f)) << "the final layer norm's weights trained on the wafer, and the file has them";
}

TEST(MeshStreamingTrain, CycleModeGivesTheSameBits) {
    GPTConfig cfg = config(2, 2, 16, 8, 11);
    cfg.grad_clip = 0;
    const Compared fast = train_both(cfg, 8, 1, 8, 1), cycle = train_both(cfg, 8, 1, 8, 1, wl::RunMode::Cycle);
    EXPECT_EQ(fast.params_differ, 0);
    EXPECT_EQ(cycle.params_differ, 0);
    EXPECT_NEAR(double(cycle.stream_cycles), double(fast.stream_cycles), 0.01 * double(cycle.stream_cycles));
}

// The case: gpt-micro (4 layers, C = 128, 4 heads; a context of 32) does not train on the
// browser's 32x32 mesh resident (over tiers its wide matmuls take more rows than the mesh has, and
// on rows of 16 PEs the embedding's overflow), and trains there streamed (`train --execution streaming` on gpt-micro
// itself: docs/performance.md, "Weight streaming (training)").
TEST(MeshStreamingTrain, AModelThatDoesNotFitResidentTrainsStreamed) {
    const GPTConfig cfg = config(4, 4, 128, 32, 65);
    const PlanResult resident = plan_model(cfg, 32, 32, kernels(), wl::MachineConfig{}.sram_bytes, true);
    EXPECT_TRUE(resident.too_big) << resident.error;
    const Compared c = train_both(cfg, 32, 1, 32, 1);   // one step: its loss, norm and update (the others test more steps)
    EXPECT_LE(c.worst_loss, 1e-4f);
    EXPECT_LE(c.worst_norm, 1e-5f);
    EXPECT_LE(c.params_worst, 1e-3);
}

}  // namespace

// GPT-2 small's whole shape, 12 layers, GPT-2's vocabulary, streamed on a 256 x 160 mesh: three
// steps of one sequence, every gradient of the first and the losses and AdamW's weights after all
// three bit for bit (no clipping: the store's norm sums in another order). Minutes and about 6 GB:
// run by `make test-slow` (ctest's slow.gpt2_small_train_3_steps), not `make test`.
TEST(MeshStreamingTrain, DISABLED_Gpt2SmallTrainsThreeStepsBitForBit) {
    GPTConfig cfg = config(12, 12, 768, 32, 50257);
    cfg.grad_clip = 0;
    cfg.warmup_iters = 1;
    const Compared c = train_both(cfg, 256, 1, 32, 3, wl::RunMode::Fast, 160);
    std::printf("[ info ] GPT-2 small, 3 steps: last step %llu cycles, %llu of them streaming %llu bytes\n",
                (unsigned long long)c.cycles, (unsigned long long)c.stream_cycles, (unsigned long long)c.stream_bytes);
    expect_bit_for_bit(c);
}
