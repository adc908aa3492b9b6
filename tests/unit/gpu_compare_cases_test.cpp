// gpu_compare_cases_test.cpp: the comparison's cases (engine/gpu/compare.h): resident against
// streaming weights, and unstructured sparsity, which the wafer's matmuls use and the GPU's
// dense kernels do not.
#include "engine/gpu/compare.h"
#include "engine/gpu/wafer_estimate.h"
#include "tests/unit/model_fixtures.h"

#include <set>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace {

using namespace wl;
using namespace wl::gpu;

gpt::GPTConfig shape(int L, int NH, int C, int T, int V) { return model::testing::config(L, NH, C, T, V); }
gpt::GPTConfig nano() { return shape(3, 4, 64, 64, 65); }

double sum_stream(const WaferEstimate& e) {
    double s = 0;
    for (const WaferOpTime& t : e.ops) s += t.stream_s;
    return s;
}

TEST(GpuCompareCase, StreamingAddsTheStreamTermAtTheWafersIo) {
    const gpt::GPTConfig cfg = nano();
    for (const WaferSpec& w : {emulated_wafer(), wse2()}) {
        const WaferEstimate res = estimate_wafer(cfg, w, 4, 64, false, 1, {wl::gpt::Execution::Resident, 1});
        const WaferEstimate str = estimate_wafer(cfg, w, 4, 64, false, 1, {wl::gpt::Execution::Streaming, 1});
        EXPECT_FALSE(res.weight_streaming);
        EXPECT_TRUE(str.weight_streaming);
        EXPECT_EQ(sum_stream(res), 0.0);
        // Inference streams every matmul's weights once per micro-batch: 4 IC OC bytes each.
        const double C = cfg.n_embd, V = cfg.vocab_size;
        const double bytes = 4 * (cfg.n_layer * (C * 3 * C + C * C + C * 4 * C + 4 * C * C) + C * V);
        EXPECT_DOUBLE_EQ(str.stream_bytes, bytes);
        EXPECT_NEAR(str.stream_s, bytes / w.io_bytes_per_s, 1e-9 * str.stream_s);
        EXPECT_NEAR(sum_stream(str), str.stream_s, 1e-12);
        EXPECT_GE(str.step_s, res.step_s);
        EXPECT_NE(str.verdict.find("stream"), std::string::npos) << str.verdict;
    }
    // The emulated mesh's I/O is its edge PEs' share of the CS-2's, as weight streaming's edge links.
    const WaferSpec cs = wse2(), em = emulated_wafer();
    EXPECT_NEAR(em.io_bytes_per_s / (2.0 * (em.w + em.h)), cs.io_bytes_per_s / (2.0 * (cs.w + cs.h)), 1e-6);
    // By fit, as before: a model that fits stays resident.
    EXPECT_FALSE(estimate_wafer(cfg, wse2(), 4, 64, false).weight_streaming);
}

TEST(GpuCompareCase, ResidentAskedForAModelThatDoesNotFitSaysSo) {
    const gpt::GPTConfig g2 = shape(12, 12, 768, 1024, 50257);
    const WaferEstimate e = estimate_wafer(g2, emulated_wafer(), 1, 1024, false, 1, {wl::gpt::Execution::Resident, 1});
    EXPECT_FALSE(e.fits_sram);
    EXPECT_FALSE(e.weight_streaming);
    EXPECT_NE(e.verdict.find("does not fit"), std::string::npos) << e.verdict;
}

TEST(GpuCompareCase, SparsityShortensTheWafersMatmulsAndNotTheGpus) {
    CompareOptions o;
    o.with_backward = false;
    const Comparison dense = compare(nano(), o);
    double prev = 0;
    for (double s : {0.5, 0.75, 0.9}) {
        o.sparsity = s;
        const Comparison c = compare(nano(), o);
        EXPECT_EQ(c.gpu.step_s, dense.gpu.step_s);   // dense kernels multiply the zeros too
        EXPECT_EQ(c.gpu.compute_s, dense.gpu.compute_s);
        double w = 0, wd = 0;
        for (size_t i = 0; i < c.wafer.ops.size(); i++) {
            const WaferOpTime& t = c.wafer.ops[i];
            const WaferOpTime& d = dense.wafer.ops[i];
            if (!(t.row && t.row->prunable) || t.op != "matmul_forward") {
                EXPECT_EQ(t.time_s, d.time_s) << t.tensor;   // the logits (tied wte) and the rest stay dense
                continue;
            }
            EXPECT_NEAR(t.compute_s, d.compute_s * sparse_matmul_factor(1 - s, 64), 1e-12 * d.compute_s) << t.tensor;
            EXPECT_EQ(t.fabric_s, d.fabric_s) << t.tensor;   // activations are dense
            w += t.compute_s;
            wd += d.compute_s;
        }
        EXPECT_LT(w, wd);
        if (prev > 0) {
            EXPECT_LT(w, prev);   // falls with density
        }
        prev = w;
        EXPECT_LE(c.wafer.step_s, dense.wafer.step_s);
        EXPECT_NE(c.case_sentence.find("gain nothing"), std::string::npos) << c.case_sentence;
    }
    // 1.27 x density at T = 64, as bench sparsity measures (docs/model-compiler.md, "Sparsity").
    EXPECT_NEAR(sparse_matmul_factor(1, 64), 1.27, 0.01);
    std::set<std::string> pruned;
    for (const gpt::OpInfo& op : gpt::op_list(nano(), 1, 8, true))
        if (pruned_gemm(op)) pruned.insert(op.tensor);
    EXPECT_TRUE(pruned.count("l2.fch") && pruned.count("l0.dfch_gelu") && !pruned.count("logits") && !pruned.count("dlnf"));
}

TEST(GpuCompareCase, JsonAndJsHookCarryTheCase) {
    const std::string models = std::string(WAFERLAB_SOURCE_DIR) + "/models";
    nlohmann::json j = compare_call({{"config", "gpt-nano"}, {"execution", "streaming"}, {"sparsity", 0.5}}, models);
    ASSERT_FALSE(j.contains("error")) << j.dump();
    EXPECT_EQ(j["case"]["execution"], "streaming");
    EXPECT_TRUE(j["case"]["weight_streaming"].get<bool>());
    EXPECT_GT(j["case"]["stream_s_per_micro_batch"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(j["case"]["density"].get<double>(), 0.5);
    EXPECT_EQ(j["case"]["gpu_sparsity"], kGpuSparsityNote);
    EXPECT_NE(j["case"]["gpu_sparsity_source"].get<std::string>().find("2104.08378"), std::string::npos);
    EXPECT_TRUE(compare_call({{"config", "gpt-nano"}, {"execution", "layered"}}, models).contains("error"));
    EXPECT_TRUE(compare_call({{"config", "gpt-nano"}, {"sparsity", 0.99}}, models).contains("error"));
    // The default case is the one before: by fit, dense.
    nlohmann::json d = compare_call({{"config", "gpt-nano"}}, models);
    EXPECT_EQ(d["case"]["execution"], "by fit");
    EXPECT_EQ(d["case"]["weight_streaming"].get<bool>(), !d["wafer"]["fits_sram"].get<bool>());
    EXPECT_DOUBLE_EQ(d["case"]["density"].get<double>(), 1.0);
}

// The GPU's own sparse case: 2:4 halves its pruned GEMMs' math (inference on tensor cores), so it
// gains where the GEMMs are compute-bound and not where launches set the pace.
TEST(GpuCompareCase, TwoToFourHalvesTheGpusGemmMathOnly) {
    CompareOptions o;
    o.with_backward = false;
    o.batch = 8;
    const Comparison big = compare(shape(12, 12, 768, 1024, 50257), o);
    ASSERT_GT(big.gpu_2to4_s, 0);
    EXPECT_LT(big.gpu_2to4_s, big.gpu.compute_s);
    double gemm = 0;   // at most the pruned GEMMs' compute time halved
    for (const GpuOpTime& t : big.gpu.ops)
        if (t.op == "matmul_forward" && t.row && t.row->prunable) gemm += t.compute_s;
    EXPECT_GE(big.gpu_2to4_s, big.gpu.compute_s - gemm / 2 - 1e-12);
    const Comparison tiny = compare(nano(), o);   // launch-bound: nothing to gain
    EXPECT_NEAR(tiny.gpu_2to4_s, tiny.gpu.compute_s, 1e-3 * tiny.gpu.compute_s);
    o.with_backward = true;
    EXPECT_EQ(compare(nano(), o).gpu_2to4_s, 0.0);   // training: not claimed
}

// The emulated column runs the asked execution: streamed, each layer's weights come in first.
TEST(GpuCompareCase, TheEmulatedColumnMeasuresTheStreamedForward) {
    const std::string models = std::string(WAFERLAB_SOURCE_DIR) + "/models";
    nlohmann::json j = compare_call(
        {{"config", "gpt-nano"}, {"mode", "infer"}, {"batch", 1}, {"mesh", "32x32"}, {"execution", "streaming"}}, models);
    ASSERT_FALSE(j.contains("error")) << j.dump();
    const auto& e = j["emulated"];
    ASSERT_TRUE(e["ran"].get<bool>()) << e.dump();
    for (const char* l : {"l0.weights", "l1.weights", "l2.weights"}) {
        ASSERT_TRUE(e["op_cycles"].contains(l)) << l;
        EXPECT_GT(e["op_cycles"][l].get<uint64_t>(), 0u);
    }
    // Pruned weights are not what the emulated column runs: it says so rather than measure dense ones.
    nlohmann::json sp = compare_call({{"config", "gpt-nano"}, {"mode", "infer"}, {"mesh", "32x32"}, {"sparsity", 0.5}}, models);
    EXPECT_FALSE(sp["emulated"]["ran"].get<bool>());
    EXPECT_NE(sp["emulated"]["why_not"].get<std::string>().find("bench sparsity"), std::string::npos);
}

}  // namespace
