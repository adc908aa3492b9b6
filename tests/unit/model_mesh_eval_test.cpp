// Evaluation and sampling on the training plan (MeshTrainer::eval_loss, MeshTrainer::sample):
// the validation loss is gpt::Trainer::eval_loss's and the sampled tokens gpt::generate's, bit
// for bit, on the weights the mesh holds; sliced or not; and neither changes the next step.
#include "engine/gpt/gpt.h"
#include "engine/gpt/sampler.h"
#include "engine/gpt/trainer.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshJob;
using wl::model::MeshTrainer;
using wl::model::TrainPhase;
using namespace wl::model::testing;

// The reference model with the weights the mesh holds now.
std::unique_ptr<GPT> reference_of(MeshTrainer& t, const GPTConfig& cfg) {
    auto m = std::make_unique<GPT>(cfg);
    m->init_weights(1);
    t.read_params(&m->params_memory);
    return m;
}

wl::model::MeshPlan train_plan(const GPTConfig& cfg, int w, int h) {
    auto r = wl::model::plan_model(cfg, w, h, kernels(), wl::MachineConfig{}.sram_bytes, true);
    EXPECT_TRUE(r.ok) << r.error;
    return r.plan;
}

// A batch's loss by the forward and the loss's op alone, after a step that changed the weights:
// the reference's mean_loss on those weights, bit for bit.
void expect_eval_matches(const GPTConfig& cfg, int w, int h, int B, int T) {
    GPT model(cfg);
    model.init_weights(11);
    MeshTrainer tr(train_plan(cfg, w, h), model);
    const std::vector<int> in = tokens(B * T, cfg.vocab_size, 3), tg = tokens(B * T, cfg.vocab_size, 4);
    wl::model::TrainStep s;
    ASSERT_TRUE(tr.step(in.data(), tg.data(), B, T, 1e-3, &s)) << tr.error();
    const std::vector<int> vin = tokens(B * T, cfg.vocab_size, 5), vtg = tokens(B * T, cfg.vocab_size, 6);
    float loss = 0;
    ASSERT_TRUE(tr.eval_loss(vin.data(), vtg.data(), B, T, &loss)) << tr.error();
    EXPECT_EQ(tr.job(), MeshJob::Eval);
    EXPECT_EQ(float_bits(tr.last_eval()), float_bits(loss));
    const auto ref = reference_of(tr, cfg);
    ref->forward(vin.data(), vtg.data(), B, T);
    EXPECT_EQ(float_bits(loss), float_bits(ref->mean_loss)) << loss << " vs " << ref->mean_loss;
    EXPECT_NE(float_bits(loss), float_bits(s.loss)) << "the evaluation's loss is its own batch's, not the step's";
    // Only forward launches (their op, no function named) and the loss's main and zero_loss: no
    // backward, zero_grad, transpose_w, grad_norm, adamw or tie stream ran.
    size_t losses = 0;
    for (const wl::model::OpRun& r : tr.last_run()) {
        const size_t colon = r.op.find(':');
        const std::string fn = colon == std::string::npos ? "" : r.op.substr(colon + 1);
        EXPECT_TRUE(fn.empty() || (r.name == "dlogits" && (fn == "main" || fn == "zero_loss"))) << r.name << " " << r.op;
        losses += fn == "main";
    }
    EXPECT_EQ(losses, size_t(B));
}

TEST(MeshEval, LossIsTheReferenceLossOnTheMeshWeights) {
    const GPTConfig nano_cfg = nano();
    const wl::model::MeshPlan p = train_plan(nano_cfg, 32, 32);
    const wl::model::PlannedOp* ce = p.find("dlogits");
    ASSERT_NE(ce, nullptr);
    EXPECT_GT(ce->inputs.front().colour, 0) << "nano's logits reach the loss over a link";
    EXPECT_GT(ce->inputs.front().grad_colour, 0) << "and its dlogits stay in the loss's SRAM for the backward";
    ASSERT_NO_FATAL_FAILURE(expect_eval_matches(nano_cfg, 32, 32, 2, 64));
    ASSERT_NO_FATAL_FAILURE(expect_eval_matches(config(2, 2, 32, 16, 23), 16, 16, 3, 12));
    ASSERT_NO_FATAL_FAILURE(expect_eval_matches(config(1, 2, 16, 8, 11), 4, 16, 2, 8));
}

// gpt::Trainer::eval_loss with the mesh's batch loss: the reference's number, both splits.
TEST(MeshEval, TrainerEvalLossOnTheMeshIsTheReferences) {
    GPTConfig c = wl::gpt::parse_config_text(
        "model: {n_layer: 1, n_head: 2, n_embd: 16, block_size: 16}\n"
        "train_input: {batch_size: 2, corpus_chars: 6000}\n"
        "runconfig: {eval_steps: 3, seed: 7}\n",
        "tiny");
    wl::gpt::Trainer t(c);
    MeshTrainer tr(train_plan(t.cfg, 16, 16), *t.model);
    auto on_mesh = [&tr](const int* in, const int* tg, int B, int T) {
        float l = 0;
        if (!tr.eval_loss(in, tg, B, T, &l)) throw std::runtime_error(tr.error());
        return l;
    };
    for (auto split : {wl::gpt::Split::Val, wl::gpt::Split::Train}) {
        const float mesh = t.eval_loss(split, on_mesh), ref = t.eval_loss(split);
        EXPECT_EQ(float_bits(mesh), float_bits(ref)) << mesh << " vs " << ref;
    }
}

// An evaluation and a sample between two steps (sliced, with reads between the slices) leave
// the second step's loss, norm, weights and moments as they are without them.
TEST(MeshEval, EvaluatingAndSamplingBetweenStepsChangesNoStep) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.warmup_iters = 1;
    GPT model(cfg);
    model.init_weights(5);
    const wl::model::MeshPlan plan = train_plan(cfg, 16, 16);
    MeshTrainer plain(plan, model), busy(plan, model);
    const int B = 3, T = 16;
    for (int s = 0; s < 2; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(10 + s)),
                               tg = tokens(B * T, cfg.vocab_size, uint32_t(20 + s));
        wl::model::TrainStep a, b;
        ASSERT_TRUE(plain.step(in.data(), tg.data(), B, T, 1e-3, &a)) << plain.error();
        ASSERT_TRUE(busy.step(in.data(), tg.data(), B, T, 1e-3, &b)) << busy.error();
        EXPECT_EQ(float_bits(a.loss), float_bits(b.loss)) << "step " << s;
        EXPECT_EQ(float_bits(a.grad_norm), float_bits(b.grad_norm)) << "step " << s;
        EXPECT_TRUE(state_of(plain) == state_of(busy)) << "step " << s;

        const std::vector<int> vin = tokens(B * T, cfg.vocab_size, 30), vtg = tokens(B * T, cfg.vocab_size, 31);
        ASSERT_TRUE(busy.begin_eval(vin.data(), vtg.data(), B, T)) << busy.error();
        EXPECT_FALSE(busy.stepping()) << "an evaluation is not a step";
        EXPECT_FALSE(busy.begin_step(in.data(), tg.data(), B, T, 1e-3));   // one job at a time
        EXPECT_NE(busy.error().find("evaluation is still in progress"), std::string::npos) << busy.error();
        std::set<TrainPhase> phases;
        std::set<int> sequences;
        while (busy.busy()) {
            phases.insert(busy.next_work()->phase);
            sequences.insert(busy.next_work()->sequence);
            ASSERT_TRUE(busy.run_slice(1)) << busy.error();
            state_of(busy);
        }
        EXPECT_EQ(phases, std::set<TrainPhase>{TrainPhase::Forward});
        EXPECT_EQ(sequences, (std::set<int>{-1, 0, 1, 2}));
        std::vector<int> out;
        ASSERT_TRUE(busy.sample({1, 2, 3}, 20, {0.8f, 0, 9}, &out)) << busy.error();
        EXPECT_EQ(out.size(), 23u);
    }
}

// Sampling: gpt::generate's tokens on the mesh's weights, with the prompt's forward, steps from
// the KV cache, and (past block_size) the window sliding; at a temperature and greedy; sliced
// or not; and a prompt longer than the context.
TEST(MeshEval, SampleIsTheReferenceSamplersOnTheMeshWeights) {
    GPTConfig cfg = config(2, 2, 32, 16, 23);
    cfg.warmup_iters = 1;
    GPT model(cfg);
    model.init_weights(8);
    MeshTrainer tr(train_plan(cfg, 16, 16), model);
    for (int s = 0; s < 3; s++) {   // weights that are not the initial ones
        const std::vector<int> in = tokens(2 * 16, 23, uint32_t(40 + s)), tg = tokens(2 * 16, 23, uint32_t(50 + s));
        wl::model::TrainStep st;
        ASSERT_TRUE(tr.step(in.data(), tg.data(), 2, 16, 3e-3, &st)) << tr.error();
    }
    const auto ref = reference_of(tr, cfg);
    struct Case {
        std::vector<int> prompt;
        int n;
        wl::gpt::SampleOptions opt;
    };
    const std::vector<Case> cases = {{{4}, 30, {0.8f, 0, 1337}},
                                     {{1, 2, 3, 4, 5}, 20, {0.0f, 0, 1}},
                                     {tokens(20, 23, 7), 6, {1.0f, 5, 3}}};
    for (const Case& c : cases) {
        const std::vector<int> want = wl::gpt::generate(*ref, c.prompt, c.n, c.opt);
        std::vector<int> got;
        ASSERT_TRUE(tr.sample(c.prompt, c.n, c.opt, &got)) << tr.error();
        EXPECT_EQ(got, want) << "prompt of " << c.prompt.size() << ", temperature " << c.opt.temperature;
        ASSERT_TRUE(tr.begin_sample(c.prompt, c.n, c.opt)) << tr.error();
        EXPECT_EQ(tr.job(), MeshJob::Sample);
        std::set<int> made;
        while (tr.busy()) {
            made.insert(tr.next_work()->token);
            ASSERT_TRUE(tr.run_slice(3)) << tr.error();
        }
        EXPECT_EQ(tr.sampled(), want);
        EXPECT_EQ(made.size(), size_t(c.n));
    }
}

TEST(MeshEval, BadInputSaysWhatAndQueuesNothing) {
    const GPTConfig cfg = config(1, 2, 16, 8, 11);
    GPT model(cfg);
    model.init_weights(3);
    MeshTrainer tr(train_plan(cfg, 8, 8), model);
    std::vector<int> in = tokens(8, 11, 1), tg = tokens(8, 11, 2);
    tg[5] = 11;
    float loss = 0;
    EXPECT_FALSE(tr.eval_loss(in.data(), tg.data(), 1, 8, &loss));
    EXPECT_EQ(tr.error(), "evaluate on the mesh: target 11 at position 5 is outside [0, 11)");
    EXPECT_FALSE(tr.begin_eval(in.data(), tg.data(), 1, 9));
    EXPECT_NE(tr.error().find("1 <= T <= block_size (8)"), std::string::npos) << tr.error();
    EXPECT_FALSE(tr.begin_sample({}, 4, {}));
    EXPECT_NE(tr.error().find("a prompt of at least one token"), std::string::npos) << tr.error();
    EXPECT_FALSE(tr.begin_sample({1, -2}, 4, {}));
    EXPECT_EQ(tr.error(), "sample on the mesh: token -2 at position 1 is outside [0, 11)");
    EXPECT_FALSE(tr.busy());
    EXPECT_EQ(tr.next_work(), nullptr);
}

}  // namespace
