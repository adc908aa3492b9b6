// gpt_grad_accum_test.cpp: gradient accumulation (optimizer.grad_accum_steps). N micro-batches
// of B sequences, their gradients summed with each row weighed 1/(N*B*T), must give the update
// of one batch of N*B sequences: in the reference (engine/gpt) and on the mesh (the PEs take a
// step's sequences one at a time and sum in SRAM, engine/model/mesh_trainer.h).
//
// Tolerance: the two differ only in the order the weight gradients are summed (a matmul's or a
// layernorm's sums over its B*T rows are split at micro-batch boundaries), so each gradient
// tensor must agree to 1e-5 of its largest element, and the weights after an AdamW step to
// 1e-6 absolute (about 1e-4 of the learning rate's move). The mesh, given the same N*B
// sequences, gives the big batch's gradients bit for bit (model_mesh_train_test.cpp's rule).
#include "engine/gpt/adamw.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/trainer.h"
#include "engine/model/mesh_trainer.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using namespace wl::model::testing;

constexpr int kN = 3, kB = 2, kT = 12;

// The largest |a - b| of each parameter tensor, over the tensor's largest |b|.
double worst_relative(const std::vector<float>& a, const std::vector<float>& b, const GPTConfig& cfg, std::string* which) {
    double worst = 0;
    size_t off = 0;
    for (const wl::gpt::ParamInfo& info : wl::gpt::param_infos(cfg)) {
        double big = 1e-30, d = 0;
        for (size_t i = off; i < off + info.count; i++) {
            big = std::max(big, std::fabs(double(b[i])));
            d = std::max(d, std::fabs(double(a[i]) - b[i]));
        }
        if (d / big > worst) worst = d / big, *which = info.name;
        off += info.count;
    }
    return worst;
}

double worst_absolute(const std::vector<float>& a, const std::vector<float>& b) {
    double d = 0;
    for (size_t i = 0; i < a.size(); i++) d = std::max(d, std::fabs(double(a[i]) - b[i]));
    return d;
}

struct Fixture {
    GPTConfig cfg = config(2, 2, 16, kT, 23);
    std::vector<int> in = tokens(kN * kB * kT, 23, 11), tg = tokens(kN * kB * kT, 23, 17);
};

// One batch of N*B sequences: the big batch's gradients (and, with opt, one AdamW step).
void big_batch(const Fixture& f, GPT& m, wl::gpt::AdamW* opt = nullptr) {
    m.forward(f.in.data(), f.tg.data(), kN * kB, kT);
    m.zero_grad();
    m.backward();
    if (opt) opt->step(m, 1e-3, f.cfg);
}

// N micro-batches of B, accumulated.
float accumulated(const Fixture& f, GPT& m, wl::gpt::AdamW* opt = nullptr) {
    m.zero_grad();
    double loss = 0;
    for (int k = 0; k < kN; k++) {
        const size_t o = size_t(k) * kB * kT;
        m.forward(f.in.data() + o, f.tg.data() + o, kB, kT);
        m.backward(kN);
        loss += m.mean_loss;
    }
    if (opt) opt->step(m, 1e-3, f.cfg);
    return float(loss / kN);
}

TEST(GradAccum, ReferenceMicroBatchesGiveTheBigBatchsUpdate) {
    Fixture f;
    GPT a(f.cfg), b(f.cfg);
    a.init_weights(5);
    b.init_weights(5);
    big_batch(f, a);
    const float big_loss = a.mean_loss;
    const float acc_loss = accumulated(f, b);
    EXPECT_NEAR(acc_loss, big_loss, 1e-6 * big_loss);
    std::string which;
    const double g = worst_relative(b.grads_memory, a.grads_memory, f.cfg, &which);
    EXPECT_LT(g, 1e-5) << "d" << which;
    EXPECT_GT(*std::max_element(a.grads_memory.begin(), a.grads_memory.end()), 0.0f);   // a real gradient
    // Accumulating must not be a no-op: one micro-batch alone gives a different gradient.
    GPT c(f.cfg);
    c.init_weights(5);
    c.forward(f.in.data(), f.tg.data(), kB, kT);
    c.zero_grad();
    c.backward();
    EXPECT_GT(worst_relative(c.grads_memory, a.grads_memory, f.cfg, &which), 1e-2);
    // And the AdamW step that follows.
    GPT a2(f.cfg), b2(f.cfg);
    a2.init_weights(5);
    b2.init_weights(5);
    wl::gpt::AdamW oa(a2.num_parameters), ob(b2.num_parameters);
    big_batch(f, a2, &oa);
    accumulated(f, b2, &ob);
    EXPECT_LT(worst_absolute(b2.params_memory, a2.params_memory), 1e-6);
}

// The Trainer feeds micro-batches step*N .. step*N+N-1, and N = 1 is the plain step.
TEST(GradAccum, TrainerTakesNMicroBatchesPerStep) {
    GPTConfig c = wl::gpt::parse_config_text(
        "model: {n_layer: 1, n_head: 2, n_embd: 16, block_size: 16}\n"
        "train_input: {batch_size: 2, corpus_chars: 5000}\n"
        "optimizer: {grad_accum_steps: 3}\n", "accum");
    wl::gpt::Trainer t(c);
    EXPECT_EQ(t.tokens_per_step(), 3 * 2 * 16);
    std::vector<int> in(size_t(t.sequences_per_step()) * 16), tg(in.size()), one(2 * 16), onet(one.size());
    t.step_batches(1, in.data(), tg.data());
    for (int k = 0; k < 3; k++) {
        t.train_data->batch(3 + k, one.data(), onet.data());
        EXPECT_TRUE(std::equal(one.begin(), one.end(), in.begin() + k * 32)) << "micro-batch " << k;
    }
    const float first = t.train_step();
    EXPECT_TRUE(std::isfinite(first));
    EXPECT_EQ(t.step, 1);
}

TEST(GradAccum, MeshMicroBatchesGiveTheReferencesAccumulatedUpdate) {
    Fixture f;
    GPT ref(f.cfg), big(f.cfg), start(f.cfg);
    ref.init_weights(5);
    big.init_weights(5);
    start.init_weights(5);
    auto r = wl::model::plan_model(f.cfg, 8, 8, kernels(), wl::MachineConfig{}.sram_bytes, /*train=*/true);
    ASSERT_TRUE(r.ok) << r.error;
    wl::model::MeshTrainer mesh(r.plan, start);
    float loss = 0;
    ASSERT_TRUE(mesh.backward(f.in.data(), f.tg.data(), kN * kB, kT, &loss)) << mesh.error();   // N micro-batches of B
    big_batch(f, big);
    const float ref_loss = accumulated(f, ref);
    EXPECT_NEAR(loss, ref_loss, 1e-6 * ref_loss);
    std::vector<float> g;
    mesh.read_grads(&g);
    std::string which;
    EXPECT_EQ(worst_relative(g, big.grads_memory, f.cfg, &which), 0.0) << "d" << which << ": the big batch's bits";
    EXPECT_LT(worst_relative(g, ref.grads_memory, f.cfg, &which), 1e-5) << "d" << which;
}

}  // namespace
