// gpu_model_test.cpp: the GPU model against published training throughput
// (each figure stated once below, with its source), and its mechanics: bound
// classification, the ring all-reduce formula, footprint verdicts, data-parallel
// scaling, the wafer estimate and the comparison JSON.
#include "engine/gpu/compare.h"
#include "engine/gpu/gpu_model.h"
#include "engine/gpu/wafer_estimate.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace {

using namespace wl;
using namespace wl::gpu;

gpt::GPTConfig shape(int L, int NH, int C, int T, int V) { return model::testing::config(L, NH, C, T, V); }
gpt::GPTConfig gpt2_124m() { return shape(12, 12, 768, 1024, 50257); }
gpt::GPTConfig gpt_nano() { return shape(3, 4, 64, 64, 65); }

StepOptions opts(int B, int T, int accum = 1, int gpus = 1) {
    StepOptions o;
    o.B = B;
    o.T = T;
    o.grad_accum = accum;
    o.gpus = gpus;
    return o;
}

// [SECTION] validation against published measurements (docs/gpu-model.md has the table and links)

struct Published {
    const char* name;
    double value;       // the published figure, in `unit`
    const char* unit;
    const char* source;
};

// nanoGPT README, "efficiency notes" (Dec 29 2022): torch.compile cuts bench.py (GPT-2 124M, B=12, T=1024, bf16,
// one A100) from ~250 to 135 ms/iter.
const Published kNanoBench = {"nanoGPT bench.py", 135, "ms/iter", "karpathy/nanoGPT README"};
// nanoGPT README: train_gpt2.py reproduces GPT-2 124M on one 8XA100 40GB node in about 4 days;
// config/train_gpt2.py: 600,000 iterations of 12 x 1024 tokens x 40 micro-steps (5 per GPU).
const Published kNanoRun = {"nanoGPT GPT-2 124M run", 4, "days", "karpathy/nanoGPT README, config/train_gpt2.py"};
// llm.c discussion #481 (May 2024): GPT-2 124M on 10B tokens on one 8X A100 80GB SXM node in ~90 minutes;
// 524,288 tokens per step = 8 GPUs x B=64 x T=1024.
const Published kLlmc = {"llm.c GPT-2 124M", 90, "minutes per 10B tokens", "karpathy/llm.c discussion #481"};
// flash-attention training/README.md, "Training speed": 8 x A100 80GB SXM4, GPT3-125M 1310k tokens/s,
// GPT3-1.3B 169k tokens/s (T=2048; per-GPU batch 32 and 8 from configs/experiment/pile/gpt3{s,xl}-flash.yaml).
const Published kFa125m = {"flash-attention GPT3-125M", 1310e3, "tokens/s", "Dao-AILab/flash-attention training/README.md"};
const Published kFa13b = {"flash-attention GPT3-1.3B", 169e3, "tokens/s", "Dao-AILab/flash-attention training/README.md"};

// llm.c scripts/run_gpt2_1558M.sh (2024): GPT-2 1558M on one 8X H100 80GB SXM node "steps in 2.80s/iter";
// 1,048,576 tokens per step = 8 GPUs x B=16 x T=1024 x 8 accumulation steps; 32,000 steps in ~24 hours
// (llm.c discussion #677).
const Published kLlmcH100 = {"llm.c GPT-2 1558M on 8xH100", 2.80, "s/iter", "karpathy/llm.c scripts/run_gpt2_1558M.sh"};

void expect_within(const Published& p, double predicted, double tol = 0.30) {
    const double err = (predicted - p.value) / p.value;
    EXPECT_LT(std::fabs(err), tol) << p.name << ": published " << p.value << " " << p.unit << " (" << p.source
                                   << "), predicted " << predicted << " (" << 100 * err << "%)";
}

double nano_bench_ms(const ExecProfile& p) {
    return model_step(gpt2_124m(), a100_sxm_40gb(), p, opts(12, 1024)).step_s * 1e3;
}
double llmc_minutes(const ExecProfile& p) {
    GpuStep s = model_step(gpt2_124m(), a100_sxm_80gb(), p, opts(64, 1024, 1, 8));
    return 10e9 / s.tokens_per_s / 60;
}

TEST(GpuValidation, NanoGptBenchIterationTime) { expect_within(kNanoBench, nano_bench_ms(pytorch_bf16())); }

TEST(GpuValidation, NanoGptGpt2RunDays) {
    GpuStep s = model_step(gpt2_124m(), a100_sxm_40gb(), pytorch_bf16(), opts(12, 1024, 5, 8));
    EXPECT_EQ(s.tokens_per_step, 12.0 * 1024 * 40);
    expect_within(kNanoRun, s.step_s * 600000 / 86400);
}

TEST(GpuValidation, LlmcGpt2TenBillionTokens) { expect_within(kLlmc, llmc_minutes(tuned_bf16())); }

TEST(GpuValidation, FlashAttentionRepoGpt3Small) {
    GpuStep s = model_step(shape(12, 12, 768, 2048, 50264), a100_sxm_80gb(), flash1_bf16(), opts(32, 2048, 1, 8));
    expect_within(kFa125m, s.tokens_per_s);
}

TEST(GpuValidation, FlashAttentionRepoGpt3XL) {
    // global batch 512 sequences = 8 GPUs x 8 x 8 accumulation steps
    GpuStep s = model_step(shape(24, 16, 2048, 2048, 50264), a100_sxm_80gb(), flash1_bf16(), opts(8, 2048, 8, 8));
    EXPECT_TRUE(s.mem.fits) << s.mem.verdict;
    expect_within(kFa13b, s.tokens_per_s);
}

TEST(GpuValidation, LlmcGpt2XLOnH100) {
    // d48: 48 layers, 25 heads, 1600 wide; llm.c pads the vocabulary to 50,304.
    GpuStep s = model_step(shape(48, 25, 1600, 1024, 50304), h100_sxm(), tuned_bf16(), opts(16, 1024, 8, 8));
    EXPECT_EQ(s.tokens_per_step, 1048576.0);
    EXPECT_TRUE(s.mem.fits) << s.mem.verdict;
    EXPECT_EQ(s.allreduce.link, "NVLink");
    expect_within(kLlmcH100, s.step_s);
}

// The tolerance bites: the wrong profile, or a halved GEMM efficiency, lands outside +-30%.
TEST(GpuValidation, WrongAssumptionsFailTheTolerance) {
    ExecProfile slow = tuned_bf16();
    slow.gemm_eff = 0.4;
    EXPECT_GT(std::fabs(llmc_minutes(slow) - kLlmc.value) / kLlmc.value, 0.30);
    EXPECT_GT(std::fabs(nano_bench_ms(reference_fp32()) - kNanoBench.value) / kNanoBench.value, 0.30);
    EXPECT_GT(std::fabs(nano_bench_ms(tuned_bf16()) - kNanoBench.value) / kNanoBench.value, 0.30);
    // The H100 point needs the H100: the same run on A100s takes more than twice as long.
    GpuStep a100 = model_step(shape(48, 25, 1600, 1024, 50304), a100_sxm_80gb(), tuned_bf16(), opts(16, 1024, 8, 8));
    EXPECT_GT(std::fabs(a100.step_s - kLlmcH100.value) / kLlmcH100.value, 0.30);
}

// [SECTION] mechanics

TEST(GpuModel, EveryMatmulOpHasAShape) {
    // gemm_shape reads op_table()'s widths: every matmul of op_list has one, and its flops agree.
    const gpt::GPTConfig cfg = gpt2_124m();
    int n = 0;
    for (const gpt::OpInfo& op : gpt::op_list(cfg, 2, 16, true)) {
        GemmShape g;
        if (op.op.rfind("matmul_", 0) != 0) continue;
        ASSERT_TRUE(gemm_shape(op, cfg, 2, 16, &g)) << op.op << " " << op.tensor;
        const double per = op.op == "matmul_forward" ? 2 : 4;
        EXPECT_NEAR(op.flops, per * g.N * g.IC * g.OC, g.N * g.OC + 1) << op.tensor;   // + bias
        n++;
    }
    EXPECT_EQ(n, 2 * (4 * cfg.n_layer + 1));
}

TEST(GpuModel, WorkloadIsTheReferenceOpList) {
    const gpt::GPTConfig cfg = gpt2_124m();
    GpuStep s = model_step(cfg, a100_sxm_80gb(), tuned_bf16(), opts(4, 256));
    auto ops = gpt::op_list(cfg, 4, 256, true);
    ASSERT_EQ(s.ops.size(), ops.size());
    double ref = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
        EXPECT_EQ(s.ops[i].op, ops[i].op);
        EXPECT_EQ(s.ops[i].ref_flops, ops[i].flops);
        ref += ops[i].flops;
    }
    EXPECT_DOUBLE_EQ(s.ref_flops_per_step, ref);
}

TEST(GpuModel, BoundsClassification) {
    // A tiny model on a big GPU waits on kernel launches.
    GpuStep nano = model_step(gpt_nano(), a100_sxm_80gb(), tuned_bf16(), opts(8, 64));
    for (auto& t : nano.ops)   // folded kernels (fused classifier) launch nothing and cannot be launch-bound
        if (t.ex.kernels > 0) {
            EXPECT_EQ(t.bound, Bound::Launch) << t.op << " " << t.tensor;
        }
    EXPECT_GT(nano.time_by_bound[int(Bound::Launch)], 0.9 * nano.compute_s);

    // GPT-2 at B=64: GEMMs are compute-bound, LayerNorm and GELU memory-bound.
    GpuStep big = model_step(gpt2_124m(), a100_sxm_80gb(), tuned_bf16(), opts(64, 1024));
    for (auto& t : big.ops) {
        if (t.op == "matmul_forward" || t.op == "matmul_backward") {
            EXPECT_EQ(t.bound, Bound::Compute) << t.tensor;
        }
        if (t.op.rfind("layernorm", 0) == 0 || t.op.rfind("gelu", 0) == 0 || t.op.rfind("residual", 0) == 0) {
            EXPECT_EQ(t.bound, Bound::Memory) << t.op;
        }
        EXPECT_GT(t.time_s, 0);
        EXPECT_NEAR(t.time_s, std::max(t.compute_s, t.memory_s) + t.launch_s, 1e-15);
    }
    // Materialised attention is memory-bound; flash attention is not.
    GpuStep torch = model_step(gpt2_124m(), a100_sxm_80gb(), pytorch_bf16(), opts(12, 1024));
    for (size_t i = 0; i < big.ops.size(); ++i) {
        if (big.ops[i].op != "attention_forward") continue;
        EXPECT_EQ(big.ops[i].bound, Bound::Compute);
        EXPECT_EQ(torch.ops[i].bound, Bound::Memory);
        EXPECT_GT(torch.ops[i].ex.bytes / 12, 5 * big.ops[i].ex.bytes / 64);   // per sequence
    }
}

TEST(GpuModel, RingAllReduceFormula) {
    const GpuPreset g = a100_sxm_80gb();
    AllReduce one = ring_allreduce(1e9, 1, g);
    EXPECT_EQ(one.seconds, 0);
    // One node: 14 NVLink steps at NCCL's Ring/Simple latencies; ~230 GB/s of busbw (nccl-tests #149).
    AllReduce a = ring_allreduce(1e9, 8, g);
    EXPECT_EQ(a.link, "NVLink");
    EXPECT_EQ(a.steps, 14);
    EXPECT_EQ(a.inter_steps, 0);
    EXPECT_NEAR(a.bandwidth, 230e9, 1);
    EXPECT_DOUBLE_EQ(a.seconds, 2.0 * 7 / 8 * 1e9 / 230e9 + (8.4e-6 + 14 * 3.4e-6));
    // Two nodes: 30 steps, 4 of them over the network, x1.4; ~24 GB/s per HDR NIC (nccl #412).
    AllReduce b = ring_allreduce(1e9, 16, g);
    EXPECT_EQ(b.link, "InfiniBand");
    EXPECT_EQ(b.nodes, 2);
    EXPECT_EQ(b.inter_steps, 4);
    EXPECT_NEAR(b.bandwidth, 24e9, 1);
    EXPECT_DOUBLE_EQ(b.seconds, 2.0 * 15 / 16 * 1e9 / 24e9 + 1.4 * (8.4e-6 + 26 * 3.4e-6 + 4 * 14e-6));
    // The bandwidth term approaches 2 x bytes / bandwidth as n grows.
    AllReduce c = ring_allreduce(1e9, 1024, g);
    EXPECT_LT(c.seconds - c.latency_s, 2e9 / 24e9);
    EXPECT_GT(c.seconds - c.latency_s, 0.99 * 2e9 / 24e9);
    // H100: ~370 GB/s ring busbw over NVLink (nccl-tests #212), 46-48 GB/s per NDR NIC (nccl-tests #290).
    EXPECT_NEAR(ring_allreduce(1e9, 8, h100_sxm()).bandwidth, 370e9, 1);
    EXPECT_NEAR(ring_allreduce(1e9, 16, h100_sxm()).bandwidth, 47e9, 1);
}

TEST(GpuModel, FootprintVerdicts) {
    // GPT-2 at B=64: fits with flash attention and bf16; the fp32 reference (with the (T,T) matrices and a full
    // copy of every activation gradient) does not.
    Footprint tuned = footprint(gpt2_124m(), 64, 1024, true, a100_sxm_80gb(), tuned_bf16());
    EXPECT_TRUE(tuned.fits) << tuned.verdict;
    Footprint ref = footprint(gpt2_124m(), 64, 1024, true, a100_sxm_80gb(), reference_fp32());
    EXPECT_FALSE(ref.fits);
    EXPECT_NE(ref.verdict.find("does not fit"), std::string::npos);
    // GPT-2 1.5B's weights, grads and AdamW state alone (16 bytes/param with bf16 copy and grads: ~25 GB) fit,
    // but not with B=64 activations on a 40 GB card.
    Footprint xl = footprint(shape(48, 25, 1600, 1024, 50257), 64, 1024, true, a100_sxm_40gb(), tuned_bf16());
    EXPECT_FALSE(xl.fits);
    EXPECT_NEAR(xl.params, 4.0 * gpt::count_parameters(shape(48, 25, 1600, 1024, 50257)), 1);
    // Inference keeps no grads or optimizer state.
    Footprint inf = footprint(gpt2_124m(), 1, 1024, false, a100_sxm_80gb(), tuned_bf16());
    EXPECT_EQ(inf.grads, 0);
    EXPECT_EQ(inf.adam, 0);
    EXPECT_TRUE(inf.fits);
}

TEST(GpuModel, DataParallelScalingIsMonotonic) {
    double prev_tps = 0, prev_per_gpu = 1e30;
    for (int n : {1, 2, 4, 8, 16, 32, 64}) {
        GpuStep s = model_step(gpt2_124m(), a100_sxm_80gb(), tuned_bf16(), opts(16, 1024, 1, n));
        EXPECT_GT(s.tokens_per_s, prev_tps) << n;
        EXPECT_LE(s.tokens_per_s / n, prev_per_gpu * (1 + 1e-12)) << n;
        prev_tps = s.tokens_per_s;
        prev_per_gpu = s.tokens_per_s / n;
    }
    // Leaving the node (NVLink -> InfiniBand) costs more than doubling inside it.
    auto ar = [](int n) { return model_step(gpt2_124m(), h100_sxm(), tuned_bf16(), opts(16, 1024, 1, n)).allreduce.seconds; };
    EXPECT_GT(ar(16) - ar(8), ar(8) - ar(4));
}

TEST(GpuModel, H100IsFasterThanA100) {
    const double a = model_step(gpt2_124m(), a100_sxm_80gb(), tuned_bf16(), opts(16, 1024)).step_s;
    const double h = model_step(gpt2_124m(), h100_sxm(), tuned_bf16(), opts(16, 1024)).step_s;
    EXPECT_LT(h, a / 2);   // 3.2x the bf16 peak, 1.6x the bandwidth
    EXPECT_GT(h, a / 3.5);
}

TEST(GpuModel, ProfilesAndPresetsByName) {
    for (const std::string& id : profile_ids()) EXPECT_EQ(profile_by_id(id).id, id);
    EXPECT_THROW(profile_by_id("nope"), std::invalid_argument);
    const WaferSpec em = emulated_wafer();
    for (const std::string& id : gpu_ids()) {
        GpuPreset g = gpu_by_id(id, em);
        EXPECT_EQ(g.id, id);
        EXPECT_FALSE(g.sources.empty());
        for (auto& s : g.sources) EXPECT_FALSE(s.source.empty()) << id << " " << s.what;
    }
    EXPECT_THROW(gpu_by_id("v100", em), std::invalid_argument);
    // same-silicon has the wafer's peak.
    EXPECT_DOUBLE_EQ(gpu_by_id("same-silicon", em).fp32_flops, em.peak_flops());
}

// [SECTION] wafer estimate

TEST(GpuWafer, FitsStreamsAndScales) {
    const gpt::GPTConfig g2 = gpt2_124m();
    WaferEstimate w2 = estimate_wafer(g2, wse2(), 4, 1024, true);
    EXPECT_TRUE(w2.fits_sram) << w2.verdict;
    EXPECT_EQ(w2.kind, "analytical estimate");
    WaferEstimate small = estimate_wafer(g2, emulated_wafer(), 4, 1024, true);
    EXPECT_TRUE(small.weight_streaming);
    EXPECT_FALSE(small.activations_fit);
    // More PEs: faster, on the same op list.
    MachineConfig big;
    big.w = big.h = 32;
    WaferEstimate a = estimate_wafer(gpt_nano(), emulated_wafer(), 8, 64, true);
    WaferEstimate b = estimate_wafer(gpt_nano(), emulated_wafer(big), 8, 64, true);
    ASSERT_EQ(a.ops.size(), gpt::op_list(gpt_nano(), 8, 64, true).size());
    EXPECT_LT(b.step_s, a.step_s);
    for (auto& t : a.ops) EXPECT_GE(t.time_s, t.latency_s);
    // The wafer never beats its own peak.
    EXPECT_LE(w2.utilisation, 1.0);
    EXPECT_GT(w2.utilisation, 0.0);
}

TEST(GpuCompare, JsonCarriesBothMachinesOpByOp) {
    gpt::GPTConfig cfg = gpt_nano();
    cfg.vocab_size = 0;   // as in models/gpt-nano.yaml
    CompareOptions o;
    o.gpu = "same-silicon";
    nlohmann::json j = compare_json(cfg, o);
    EXPECT_TRUE(j["config"]["vocab_assumed"].get<bool>());
    ASSERT_EQ(j["gpu"]["ops"].size(), j["wafer"]["ops"].size());
    EXPECT_GT(j["ratio_gpu_over_wafer"].get<double>(), 0);
    EXPECT_EQ(j["projections"].size(), 2u);
    EXPECT_EQ(j["wafer"]["kind"], "analytical estimate");
    EXPECT_FALSE(j["gpu_sentence"].get<std::string>().empty());
    EXPECT_FALSE(j["wafer_sentence"].get<std::string>().empty());
    o.gpu = "a100";
    Comparison c = compare(cfg, o);
    EXPECT_NE(c.gpu_sentence.find("launch"), std::string::npos) << c.gpu_sentence;
}

TEST(GpuCompare, JsHookEntryReadsModelFilesAndReportsErrors) {
    const std::string models = std::string(WAFERLAB_SOURCE_DIR) + "/models";
    nlohmann::json j = compare_call({{"config", "gpt2-small"}, {"gpu", "h100"}, {"batch", 2}}, models);
    ASSERT_FALSE(j.contains("error")) << j.dump();
    EXPECT_EQ(j["config"]["n_layer"], 12);
    EXPECT_EQ(j["gpu"]["gpu"]["id"], "h100");
    EXPECT_EQ(j["gpu"]["batch"], 2);
    EXPECT_TRUE(compare_call({{"config", "gpt-nano"}, {"gpu", "tpu"}}, models).contains("error"));
    EXPECT_TRUE(compare_call({{"config", "no-such-model"}}, models).contains("error"));
    EXPECT_TRUE(compare_call({{"config", "gpt-nano"}, {"gpus", 0}}, models).contains("error"));
}

// The emulated column: one forward measured on the mesh, beside the estimate, op by op.
TEST(GpuCompare, InferenceMeasuresTheForwardOnTheMesh) {
    const std::string models = std::string(WAFERLAB_SOURCE_DIR) + "/models";
    nlohmann::json j = compare_call({{"config", "gpt-nano"}, {"mode", "infer"}, {"batch", 2}, {"mesh", "32x32"}}, models);
    ASSERT_FALSE(j.contains("error")) << j.dump();
    const auto& e = j["emulated"];
    ASSERT_TRUE(e["ran"].get<bool>()) << e.dump();
    EXPECT_EQ(e["B"], 2);
    EXPECT_GT(e["cycles"].get<uint64_t>(), 0u);
    uint64_t sum = 0;
    for (const auto& op : j["wafer"]["ops"]) {
        const std::string t = op["tensor"];
        if (t == "probs" || t == "losses") continue;   // softmax and loss stay on the host
        ASSERT_TRUE(e["op_cycles"].contains(t)) << t;
        sum += e["op_cycles"][t].get<uint64_t>();
    }
    EXPECT_EQ(sum, e["cycles"].get<uint64_t>());
    EXPECT_NEAR(e["wafer_s"].get<double>(), e["cycles"].get<double>() / 1.1e9, 1e-12);
    // Too small a mesh, or training: the column says why it is empty.
    nlohmann::json small = compare_call({{"config", "gpt-nano"}, {"mode", "infer"}, {"mesh", "8x8"}}, models);
    EXPECT_FALSE(small["emulated"]["ran"].get<bool>());
    EXPECT_NE(small["emulated"]["why_not"].get<std::string>().find("too few"), std::string::npos);   // the planner says why
    nlohmann::json train = compare_call({{"config", "gpt-nano"}, {"mesh", "32x32"}}, models);
    EXPECT_FALSE(train["emulated"]["ran"].get<bool>());
    EXPECT_TRUE(compare_call({{"config", "gpt-nano"}, {"mesh", "32"}}, models).contains("error"));
}

}  // namespace
