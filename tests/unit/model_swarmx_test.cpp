// SwarmX (engine/model/swarmx.h): N emulated wafers, each on its shard of the batch, their
// gradients summed and broadcast back, AdamW on every wafer. Against one wafer (a plain
// MeshTrainer) on the combined batch: with one wafer the same bits; with 2 and 4 the same up to
// the order of the sums (each wafer sums its own sequences from zero, then SwarmX adds the
// wafers' sums), so stated tolerances, each against a tensor's largest element (measured in the
// [ info ] lines): the summed gradients 1e-6 (2.6e-7), the losses 1e-6 relative (1e-7), the norms
// 1e-5 (equal), and after 3 clipped steps the weights 1e-6 (1.9e-7), except the key bias: 1e-3
// (1.1e-4; softmax ignores a shift common to every key, so its gradient is rounding noise that
// Adam's normalised step turns into a step, as in model_mesh_train_test.cpp). The wafers' weights
// are the same bits after every step.
#include "engine/gpt/adamw.h"
#include "engine/gpt/gpt.h"
#include "engine/gpu/wafer_estimate.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/swarmx.h"
#include "tests/unit/model_fixtures.h"
#include "tests/unit/thread_bands.h"

#include <gtest/gtest.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using wl::model::MeshTrainer;
using wl::model::SwarmX;
using wl::model::SwarmXStep;
using namespace wl::model::testing;

wl::model::MeshPlan train_plan(const GPTConfig& cfg, int mesh, int mesh_h = 0) {
    auto r = wl::model::plan_model(cfg, mesh, mesh_h ? mesh_h : mesh, kernels(), wl::MachineConfig{}.sram_bytes, true);
    EXPECT_TRUE(r.ok) << r.error;
    return r.plan;
}

GPTConfig small() {
    GPTConfig cfg = config(1, 2, 16, 8, 11);
    cfg.warmup_iters = 1;
    return cfg;
}

// The largest |a - b| over the largest |b|, tensor by tensor (param_infos), the worst tensor's.
// *where: that tensor's name. skip: a tensor left out.
double worst_scaled(const GPTConfig& cfg, const std::vector<float>& a, const std::vector<float>& b, std::string* where = nullptr,
                    const std::string& skip = "") {
    double worst = 0;
    size_t off = 0;
    for (const wl::gpt::ParamInfo& info : wl::gpt::param_infos(cfg)) {
        if (info.name == skip) {
            off += info.count;
            continue;
        }
        double d = 0, scale = 1e-30;
        for (size_t i = off; i < off + info.count; i++) {
            d = std::max(d, std::fabs(double(a[i]) - b[i]));
            scale = std::max(scale, std::fabs(double(b[i])));
        }
        if (d / scale > worst && where) *where = info.name;
        worst = std::max(worst, d / scale);
        off += info.count;
    }
    return worst;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(SwarmX, OneWaferGivesThePlainMeshTrainersBits) {
    const GPTConfig cfg = small();
    GPT model(cfg);
    model.init_weights(3);
    const wl::model::MeshPlan plan = train_plan(cfg, 8);
    MeshTrainer plain(plan, model);
    SwarmX sx(plan, model, 1);
    const int B = 2, T = 8;
    for (int s = 0; s < 3; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(40 + s)), tg = tokens(B * T, cfg.vocab_size, uint32_t(50 + s));
        const double lr = wl::gpt::learning_rate_at(cfg, s);
        wl::model::TrainStep p;
        SwarmXStep x;
        ASSERT_TRUE(plain.step(in.data(), tg.data(), B, T, lr, &p)) << plain.error();
        ASSERT_TRUE(sx.step(in.data(), tg.data(), B, T, lr, &x)) << sx.error();
        EXPECT_EQ(float_bits(x.loss), float_bits(p.loss)) << "step " << s;
        EXPECT_EQ(float_bits(x.grad_norm), float_bits(p.grad_norm)) << "step " << s;
        EXPECT_EQ(x.compute_cycles, p.cycles);
        EXPECT_EQ(x.cycles, p.cycles) << "one wafer: no SwarmX time";
        EXPECT_EQ(x.swarmx_bytes, 0u);
        EXPECT_EQ(x.swarmx_cycles, 0u);
        EXPECT_EQ(x.instructions, p.instructions);
    }
    std::vector<float> a, b;
    plain.read_params(&a);
    sx.wafer(0).read_params(&b);
    EXPECT_TRUE(same_bits(a, b));
    plain.transfer(MeshTrainer::State::Moment2, &a, false);
    sx.wafer(0).transfer(MeshTrainer::State::Moment2, &b, false);
    EXPECT_TRUE(same_bits(a, b));
}

// N wafers on shards of B sequences against one wafer on all B, `steps` steps (on mesh_w x mesh_h).
void check_against_one_wafer(int N, int B, int steps, const GPTConfig& cfg = small(), int mesh_w = 8, int mesh_h = 8) {
    SCOPED_TRACE(std::to_string(N) + " wafers");
    GPT model(cfg);
    model.init_weights(7);
    const wl::model::MeshPlan plan = train_plan(cfg, mesh_w, mesh_h);
    MeshTrainer one(plan, model);
    SwarmX sx(plan, model, N);
    ASSERT_EQ(sx.wafers(), N);
    for (int k = 1; plan.streaming && k < N; k++) EXPECT_EQ(&sx.wafer(k).store(), &sx.wafer(0).store()) << "one MemoryX";
    const int T = cfg.block_size;
    std::vector<float> p1, pk, p0;
    for (int s = 0; s < steps; s++) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, uint32_t(60 + s)), tg = tokens(B * T, cfg.vocab_size, uint32_t(70 + s));
        const double lr = wl::gpt::learning_rate_at(cfg, s);
        // The reduction first, on its own: SwarmX's summed gradient against the batch's, before any update.
        if (s == 0) {
            float l1 = 0;
            ASSERT_TRUE(one.backward(in.data(), tg.data(), B, T, &l1)) << one.error();
            std::vector<float> g1, own, sum;
            one.read_grads(&g1);
            for (int k = 0; k < N; k++) {   // what the wafers hold, summed; streamed, the store's sums come with wafer 0's
                float lk = 0;
                const size_t at = size_t(k) * (B / N) * T;
                ASSERT_TRUE(sx.wafer(k).backward(in.data() + at, tg.data() + at, B / N, T, &lk, B * T)) << sx.wafer(k).error();
                const std::vector<float> gk = sx.wafer(k).read_own(MeshTrainer::State::Grads);
                if (k == 0) own = gk;
                else
                    for (size_t i = 0; i < own.size(); i++) own[i] += gk[i];
            }
            sx.wafer(0).write_own(MeshTrainer::State::Grads, own);
            sx.wafer(0).read_grads(&sum);
            const double g = worst_scaled(cfg, sum, g1);
            std::printf("[ info ] %d wafers: summed shard gradients vs the batch's: worst %.3g of a tensor's largest\n", N, g);
            EXPECT_LE(g, 1e-6);
            EXPECT_GT(g, 0.0) << "a different sum order should round somewhere (else this test checks nothing)";
        }
        wl::model::TrainStep st1;
        SwarmXStep x;
        ASSERT_TRUE(one.step(in.data(), tg.data(), B, T, lr, &st1)) << one.error();
        ASSERT_TRUE(sx.step(in.data(), tg.data(), B, T, lr, &x)) << sx.error();
        EXPECT_EQ(x.wafers, N);
        const double dl = std::fabs(double(x.loss) - st1.loss) / st1.loss, dn = std::fabs(double(x.grad_norm) - st1.grad_norm) / st1.grad_norm;
        std::printf("[ info ] %d wafers, step %d: loss %.7f (one wafer %.7f, %.2g), norm %.7f (%.7f, %.2g); cycles %llu = %llu compute + %llu SwarmX (one wafer %llu)\n",
                    N, s, x.loss, st1.loss, dl, x.grad_norm, st1.grad_norm, dn, (unsigned long long)x.cycles,
                    (unsigned long long)x.compute_cycles, (unsigned long long)x.swarmx_cycles, (unsigned long long)st1.cycles);
        EXPECT_LE(dl, 1e-6);
        EXPECT_LE(dn, 1e-5);
        // Every wafer holds wafer 0's weights, bit for bit.
        sx.wafer(0).read_params(&p0);
        for (int k = 1; k < N; k++) {
            sx.wafer(k).read_params(&pk);
            EXPECT_TRUE(same_bits(pk, p0)) << "wafer " << k << " after step " << s;
        }
        // The cost: every wafer's gradient up the tree and the sum back down, ceil(log2 N) levels each
        // way; streamed, the part the wafers hold (the store's went out in the gradient streams).
        const uint64_t G = plan.streaming ? uint64_t(sx.wafer(0).own_parameters()) * 4 : uint64_t(wl::gpt::count_parameters(cfg)) * 4;
        if (plan.streaming) {
            EXPECT_EQ(G, 2 * 4 * uint64_t(cfg.n_embd)) << "the final layer norm's";
        }
        EXPECT_EQ(x.swarmx_bytes, 2 * uint64_t(N) * G);
        EXPECT_EQ(x.swarmx_cycles, 2 * sx.links().cycles(G, N));
        EXPECT_GT(x.swarmx_cycles, 0u);
        EXPECT_EQ(x.cycles, x.compute_cycles + x.swarmx_cycles);
        EXPECT_LT(x.compute_cycles, st1.cycles) << "a shard is fewer sequences than the batch";
    }
    one.read_params(&p1);
    std::string where;
    const double w = worst_scaled(cfg, p0, p1, &where);
    std::string where2;
    const double w2 = worst_scaled(cfg, p0, p1, &where2, "qkvb");
    std::printf("[ info ] %d wafers after %d steps: weights vs one wafer's: worst %.3g of a tensor's largest (%s); without qkvb %.3g (%s)\n",
                N, steps, w, where.c_str(), w2, where2.c_str());
    EXPECT_LE(w, 1e-3);
    EXPECT_LE(w2, 1e-6);
}

TEST(SwarmX, TwoWafersTrainAsOneOnTheCombinedBatch) { check_against_one_wafer(2, 4, 3); }
TEST(SwarmX, FourWafersTrainAsOneOnTheCombinedBatch) { check_against_one_wafer(4, 4, 3); }

// Streamed, with a vocabulary over the LM head's tiers (wte the store's on every wafer:
// docs/weight-streaming.md, "The vocabulary"): the shards' summed gradients are the batch's.
// Over ranks (threads here: tests/unit/thread_bands.h; MPI ranks under mpirun), each rank runs its
// own wafer and gathers what a stage needs of the others: every step's loss, norm, cycles and the
// weights after it are one process's SwarmX's, bit for bit, on every rank.
TEST(SwarmX, WafersOverRanksTrainAsInOneProcess) {
#ifdef __EMSCRIPTEN__
    GTEST_SKIP() << "the ranks run on threads; the web build has one";
#endif
    const GPTConfig cfg = small();
    GPT model(cfg);
    model.init_weights(3);
    const wl::model::MeshPlan plan = train_plan(cfg, 8);
    constexpr int N = 2, B = 4, T = 8, kSteps = 3;
    std::vector<std::vector<int>> in, tg;
    for (int s = 0; s < kSteps; s++) {
        in.push_back(tokens(B * T, cfg.vocab_size, uint32_t(60 + s)));
        tg.push_back(tokens(B * T, cfg.vocab_size, uint32_t(70 + s)));
    }
    SwarmX one(plan, model, N);
    std::vector<SwarmXStep> want(kSteps);
    for (int s = 0; s < kSteps; s++) ASSERT_TRUE(one.step(in[size_t(s)].data(), tg[size_t(s)].data(), B, T, 1e-2, &want[size_t(s)])) << one.error();
    std::vector<float> want_params;
    one.wafer(0).read_params(&want_params);

    wl::test::ThreadBands ranks(N);
    std::vector<std::vector<SwarmXStep>> got(N, std::vector<SwarmXStep>(kSteps));
    std::vector<std::vector<float>> params(N);
    std::vector<std::string> errors(N);
    std::vector<std::thread> threads;
    for (int r = 0; r < N; r++)
        threads.emplace_back([&, r] {
            SwarmX sx(plan, model, N, wl::RunMode::Fast, wl::model::cs_links(), &ranks.link(r));
            for (int s = 0; s < kSteps && errors[size_t(r)].empty(); s++)
                if (!sx.step(in[size_t(s)].data(), tg[size_t(s)].data(), B, T, 1e-2, &got[size_t(r)][size_t(s)])) errors[size_t(r)] = sx.error();
            sx.wafer(r).read_params(&params[size_t(r)]);
        });
    for (std::thread& t : threads) t.join();
    for (int r = 0; r < N; r++) {
        ASSERT_EQ(errors[size_t(r)], "") << "rank " << r;
        for (int s = 0; s < kSteps; s++) {
            const SwarmXStep &a = want[size_t(s)], &b = got[size_t(r)][size_t(s)];
            EXPECT_EQ(std::memcmp(&a.loss, &b.loss, sizeof a.loss), 0) << "rank " << r << " step " << s << ": " << b.loss << " vs " << a.loss;
            EXPECT_EQ(std::memcmp(&a.grad_norm, &b.grad_norm, sizeof a.grad_norm), 0) << "rank " << r << " step " << s;
            EXPECT_EQ(a.cycles, b.cycles) << "rank " << r << " step " << s;
            EXPECT_EQ(a.instructions, b.instructions) << "rank " << r << " step " << s;
            ASSERT_EQ(b.shards.size(), size_t(N));
            for (int k = 0; k < N; k++) EXPECT_EQ(a.shards[size_t(k)].cycles, b.shards[size_t(k)].cycles);
        }
        EXPECT_TRUE(same_bits(params[size_t(r)], want_params)) << "rank " << r;
    }
}

TEST(SwarmX, TwoStreamedWafersWithAVocabularyOverTiers) {
    GPTConfig cfg = streaming(config(1, 2, 32, 8, 2000));
    cfg.warmup_iters = 1;
    check_against_one_wafer(2, 4, 2, cfg, 8, 40);
}

TEST(SwarmX, ABatchThatDoesNotSplitSaysBAndNAndRunsNothing) {
    const GPTConfig cfg = small();
    GPT model(cfg);
    model.init_weights(1);
    SwarmX sx(train_plan(cfg, 8), model, 2);
    const int T = cfg.block_size;
    for (int B : {3, 1}) {
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, 1), tg = tokens(B * T, cfg.vocab_size, 2);
        SwarmXStep x;
        EXPECT_FALSE(sx.step(in.data(), tg.data(), B, T, 1e-3, &x));
        EXPECT_NE(sx.error().find("B = " + std::to_string(B)), std::string::npos) << sx.error();
        EXPECT_NE(sx.error().find("N = 2"), std::string::npos) << sx.error();
    }
    EXPECT_EQ(SwarmX::split_error(4, 2), "");
    EXPECT_EQ(SwarmX::split_error(4, 4), "");
    EXPECT_EQ(sx.wafer(0).updates(), 0);
    EXPECT_EQ(sx.wafer(1).updates(), 0);
    std::vector<float> p;
    sx.wafer(1).read_params(&p);
    EXPECT_TRUE(same_bits(p, model.params_memory)) << "a refused batch changes no weight";
    // A bad token in one wafer's shard names the wafer.
    std::vector<int> in = tokens(2 * T, cfg.vocab_size, 1), tg = tokens(2 * T, cfg.vocab_size, 2);
    tg[size_t(T) + 1] = cfg.vocab_size;
    SwarmXStep x;
    EXPECT_FALSE(sx.step(in.data(), tg.data(), 2, T, 1e-3, &x));
    EXPECT_NE(sx.error().find("wafer 1"), std::string::npos) << sx.error();
    for (int n : {0, SwarmX::kMaxWafers + 1}) EXPECT_THROW(SwarmX(train_plan(cfg, 8), model, n), std::invalid_argument) << n;
}

// A NaN in one weight (layer 1's fc, where the reference's forward first leaves the floats at
// l1.fch): the step's loss is NaN and the step is not applied, on every wafer; the step's sequences
// run forward again on those weights name the op the reference names, with the element and its PE.
// Resident and streamed.
TEST(SwarmX, ANotFiniteLossIsNotAppliedAndItsOpIsNamed) {
    for (const bool streamed : {false, true}) {
        SCOPED_TRACE(streamed ? "streamed" : "resident");
        GPTConfig cfg = config(2, 2, 16, 8, 11);
        if (streamed) cfg = streaming(cfg);
        GPT model(cfg);
        model.init_weights(1);
        model.params_memory[wl::model::param_slice(cfg, "fcw", 1).offset + 3 * 16 + 5] = std::nanf("");
        const int B = 2, T = cfg.block_size;
        const std::vector<int> in = tokens(B * T, cfg.vocab_size, 4), tg = tokens(B * T, cfg.vocab_size, 5);
        model.forward(in.data(), tg.data(), B, T);
        ASSERT_EQ(model.first_nonfinite(), "l1.fch");
        SwarmX sx(train_plan(cfg, 16), model, 2);
        SwarmXStep st;
        ASSERT_TRUE(sx.step(in.data(), tg.data(), B, T, 1e-3, &st)) << sx.error();
        EXPECT_TRUE(std::isnan(st.loss));
        EXPECT_FALSE(st.applied);
        for (int k = 0; k < 2; k++) {
            std::vector<float> p;
            sx.wafer(k).read_params(&p);
            EXPECT_TRUE(same_bits(p, model.params_memory)) << "wafer " << k << "'s weights are those before the step";
            EXPECT_EQ(sx.wafer(k).updates(), 0);
        }
        std::string where;
        ASSERT_TRUE(sx.wafer(0).find_nonfinite(in.data(), tg.data(), B, T, &where)) << sx.wafer(0).error();
        EXPECT_EQ(where.rfind("sequence 1 of 2: l1.fch (matmul.wk): NaN at time step 0, row 3, on PE (", 0), 0u) << where;
    }
}

TEST(SwarmX, LinksDefaultToOneCsSystemsIoAtTheProductsClock) {
    const wl::model::SwarmXLinks l = wl::model::cs_links();
    EXPECT_EQ(l.bytes_per_s, 150e9) << "1.2 Tb/s";
    EXPECT_EQ(l.clock_hz, wl::gpu::WaferSpec{}.clock_hz);
    EXPECT_EQ(l.depth(1), 0);
    EXPECT_EQ(l.depth(2), 1);
    EXPECT_EQ(l.depth(3), 2);
    EXPECT_EQ(l.depth(4), 2);
    // 150 GB/s at 1.1 GHz is 136.36 bytes a cycle: 1 MB takes 7,334 cycles a level.
    EXPECT_EQ(l.cycles(1000000, 2), 7334u);
    EXPECT_EQ(l.cycles(1000000, 4), 2 * 7334u);
    EXPECT_EQ(l.cycles(1000000, 1), 0u);
    wl::model::SwarmXLinks slow = l;
    slow.bytes_per_s /= 2;
    EXPECT_EQ(slow.cycles(1000000, 2), 14667u);
}

}  // namespace
