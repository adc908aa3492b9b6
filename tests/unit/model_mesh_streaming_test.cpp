// Streaming execution (MeshPlan::streaming, docs/weight-streaming.md): one layer's ops serve every
// layer, each layer's weights streamed in from the store before it runs. The logits are the
// reference's bit for bit, the stream moves exactly each layer's parameters, and a model that
// does not fit resident fits streaming.
#include "engine/gpt/gpt.h"
#include "engine/model/fit_advice.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/plan_file.h"
#include "engine/model/plan_key.h"
#include "engine/model/sparsity.h"
#include "engine/model/weight_stream.h"
#include "tests/unit/model_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using wl::gpt::GPT;
using wl::gpt::GPTConfig;
using namespace wl::model;
using namespace wl::model::testing;

int bits_differ(const std::vector<float>& mesh, const float* ref) {
    int n = 0;
    for (size_t i = 0; i < mesh.size(); i++) n += float_bits(mesh[i]) != float_bits(ref[i]);
    return n;
}

// Streaming gives the reference's logits, bit for bit, at T tokens; *stream: its stream's cycles.
void expect_streaming_matches(const GPTConfig& cfg, int mesh, int T, wl::RunMode mode = wl::RunMode::Fast,
                              uint64_t* stream = nullptr) {
    GPT model(cfg);
    model.init_weights(3);
    PlanResult r = plan_model(streaming(cfg), mesh, mesh, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(r.plan.streaming);
    EXPECT_EQ(r.plan.cfg.n_layer, cfg.n_layer) << "the plan keeps the model's shape";
    int layer_ops = 0;
    for (const PlannedOp& o : r.plan.ops) {
        EXPECT_LE(o.layer, 0) << o.name << ": one layer's ops serve every layer";
        layer_ops += o.layer == 0;
    }
    EXPECT_EQ(layer_ops, 10);
    const std::vector<int> in = tokens(T, cfg.vocab_size, 9);
    MeshGPT m(r.plan, model, mode);
    std::vector<float> logits;
    ASSERT_TRUE(m.forward(in.data(), T, &logits)) << m.error();
    model.forward(in.data(), nullptr, 1, T);
    EXPECT_EQ(bits_differ(logits, model.logits()), 0) << "T = " << T << ", " << wl::run_mode_name(mode) << " mode";
    if (stream) *stream = m.last_stream_cycles();
}

TEST(MeshStreaming, LogitsAreTheReferencesBitForBit) {
    expect_streaming_matches(nano(), 32, 64);
    expect_streaming_matches(nano(), 32, 17);
    expect_streaming_matches(config(2, 3, 48, 32, 37), 16, 20);   // another width, head count and context
    expect_streaming_matches(config(1, 2, 32, 16, 23), 16, 16);   // one layer: nothing between layers
}

// Cycle mode moves every wavelet of the edge links cycle by cycle: the same bits, and the stream's
// cycles within 1% of fast mode's estimate.
TEST(MeshStreaming, CycleModeGivesTheSameBitsAndStreamTime) {
    uint64_t cycle = 0, fast = 0;
    expect_streaming_matches(config(2, 2, 32, 16, 23), 16, 12, wl::RunMode::Cycle, &cycle);
    expect_streaming_matches(config(2, 2, 32, 16, 23), 16, 12, wl::RunMode::Fast, &fast);
    EXPECT_GT(cycle, 0u);
    EXPECT_NEAR(double(fast), double(cycle), 0.01 * double(cycle));
}

// Each layer's OpRun "l<l>.weights" brings exactly that layer's parameters, and takes the cycles
// of its largest op over one edge link (the ops stream side by side, each PE's words in turn).
TEST(MeshStreaming, EachLayerStreamsItsOwnParametersOverTheEdge) {
    const GPTConfig cfg = nano();
    GPT model(cfg);
    model.init_weights(5);
    PlanResult r = plan_model(streaming(cfg), 32, 32, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    MeshGPT m(r.plan, model);
    std::vector<float> logits;
    const std::vector<int> in = tokens(32, cfg.vocab_size, 2);
    ASSERT_TRUE(m.forward(in.data(), 32, &logits)) << m.error();

    uint64_t layer_bytes = 0, largest = 0;   // from the reference's parameter table
    for (const char* name : {"ln1w", "ln1b", "qkvw", "qkvb", "attprojw", "attprojb", "ln2w", "ln2b", "fcw", "fcb", "fcprojw",
                             "fcprojb"}) {
        const ParamSlice s = param_slice(cfg, name, 0);
        layer_bytes += 4 * uint64_t(s.rows) * uint64_t(s.cols);
    }
    for (const auto& [w, b] : {std::pair{"qkvw", "qkvb"}, {"attprojw", "attprojb"}, {"fcw", "fcb"}, {"fcprojw", "fcprojb"}}) {
        const ParamSlice sw = param_slice(cfg, w, 0), sb = param_slice(cfg, b, 0);
        largest = std::max(largest, 4 * uint64_t(sw.rows * sw.cols + sb.rows * sb.cols));
    }
    constexpr uint64_t kTurns = 32 * 40;
    int streams = 0;
    std::vector<std::string> order;
    for (const OpRun& run : m.last_run()) {
        order.push_back(run.name);
        if (run.op != "weight_stream") {
            EXPECT_EQ(run.stream_bytes, 0u) << run.name;
            continue;
        }
        EXPECT_EQ(run.name, "l" + std::to_string(streams) + ".weights");
        EXPECT_EQ(run.stream_bytes, layer_bytes) << run.name;
        // the layer waits for its largest op: the link's time for its bytes, and for each of its 32 PEs'
        // turns (take_w) the hops to it and its ramp, under 40 cycles
        EXPECT_GE(run.cycles, EdgeLink::wse2().cycles(largest)) << run.name;
        EXPECT_LE(run.cycles, EdgeLink::wse2().cycles(largest) + kTurns) << run.name;
        streams++;
    }
    EXPECT_EQ(streams, cfg.n_layer);
    EXPECT_EQ(m.last_stream_bytes(), uint64_t(cfg.n_layer) * layer_bytes);
    EXPECT_GE(m.last_stream_cycles(), uint64_t(cfg.n_layer) * EdgeLink::wse2().cycles(largest));
    EXPECT_LE(m.last_stream_cycles(), uint64_t(cfg.n_layer) * (EdgeLink::wse2().cycles(largest) + kTurns));
    // in order: the embedding, then each layer's stream and its ten ops, then lnf and the logits
    ASSERT_EQ(order.size(), size_t(1 + cfg.n_layer * 11 + 2));
    EXPECT_EQ(order[0], "encoded");
    EXPECT_EQ(order[1], "l0.weights");
    EXPECT_EQ(order[2], "l0.ln1");
    EXPECT_EQ(order[12], "l1.weights");
    EXPECT_EQ(order[13], "l1.ln1");
    EXPECT_EQ(order[order.size() - 2], "lnf");
    // The edge link: the CS-2's 150 GB/s over the WSE-2's 3,506 edge PEs at 1.1 GHz.
    EXPECT_NEAR(EdgeLink::wse2().bytes_per_cycle, 150e9 / 3506 / 1.1e9, 1e-9);
}

// The stream between layers is the host's (never a link: its producer is the same layer's last op).
TEST(MeshStreaming, TheResidualStreamBetweenLayersGoesThroughTheHost) {
    PlanResult r = plan_model(streaming(nano()), 32, 32, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    int between = 0;
    for (const PlannedOp& o : r.plan.ops)
        for (const Transfer& in : o.inputs)
            if (in.between_layers) {
                between++;
                EXPECT_EQ(in.colour, 0) << o.name << " <- " << in.tensor;
            }
    EXPECT_EQ(between, 3) << "ln1 and residual2 read the stream into the layer; lnf reads it out";
    const PlannedOp* lnf = r.plan.find("lnf");
    ASSERT_NE(lnf, nullptr);
    EXPECT_EQ(layer_instance(*lnf, 0, 3).inputs.front().tensor, "l2.residual3");
    const PlannedOp* ln1 = r.plan.find("l0.ln1");
    ASSERT_NE(ln1, nullptr);
    const PlannedOp l2 = layer_instance(*ln1, 2, 3);
    EXPECT_EQ(l2.name, "l2.ln1");
    EXPECT_EQ(l2.layer, 2);
    EXPECT_EQ(l2.inputs.front().tensor, "l1.residual3");
    EXPECT_EQ(l2.output.tensor, "l2.ln1");
    EXPECT_EQ(layer_instance(*ln1, 0, 3).inputs.front().tensor, "encoded");
}

// No KV cache: the attention's PEs hold one layer's keys and values at a time. extend() says so;
// next_logits (the sampler's) runs full forwards, which are the reference's.
TEST(MeshStreaming, GenerationRunsFullForwards) {
    const GPTConfig cfg = config(2, 2, 32, 16, 23);
    GPT model(cfg);
    model.init_weights(4);
    PlanResult r = plan_model(streaming(cfg), 16, 16, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    MeshGPT m(r.plan, model);
    const std::vector<int> in = tokens(6, cfg.vocab_size, 1);
    std::vector<float> logits;
    ASSERT_TRUE(m.forward(in.data(), 5, &logits)) << m.error();
    EXPECT_FALSE(m.extend(in[5], &logits));
    EXPECT_NE(m.error().find("no KV cache"), std::string::npos) << m.error();
    const float* next = m.next_logits(in.data(), 6);
    model.forward(in.data(), nullptr, 1, 6);
    for (int v = 0; v < cfg.vocab_size; v++)
        EXPECT_EQ(float_bits(next[v]), float_bits(model.logits()[size_t(5 * cfg.vocab_size + v)])) << v;
}

// A model whose layers do not all fit the mesh at once fits with one layer on it; the fit advice
// offers it.
TEST(MeshStreaming, FitsWhereResidentDoesNot) {
    const GPTConfig cfg = config(8, 4, 64, 64, 65);   // gpt-nano with 8 layers on 16x16
    PlanResult resident = plan_model(cfg, 16, 16, kernels());
    ASSERT_FALSE(resident.ok);
    EXPECT_TRUE(resident.too_big) << resident.error;
    EXPECT_NE(fit_advice(cfg, 16, 16, kernels(), wl::MachineConfig{}.sram_bytes, false).find("wafer.execution=streaming"),
              std::string::npos);
    PlanResult r = plan_model(streaming(cfg), 16, 16, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    GPT model(cfg);
    model.init_weights(6);
    MeshGPT m(r.plan, model);
    const std::vector<int> in = tokens(40, cfg.vocab_size, 3);
    std::vector<float> logits;
    ASSERT_TRUE(m.forward(in.data(), 40, &logits)) << m.error();
    model.forward(in.data(), nullptr, 1, 40);
    EXPECT_EQ(bits_differ(logits, model.logits()), 0);
}

// Pruned weights stream as their non-zeros and indices alone (matmul.wk's load_w, SPARSE = 1):
// the reference's logits on the pruned weights, for a fraction of the dense stream's bytes.
TEST(MeshStreaming, SparseWeightsStreamOnlyTheirNonZeros) {
    const GPTConfig cfg = nano();
    const std::vector<int> in = tokens(24, cfg.vocab_size, 4);
    uint64_t bytes[2] = {};
    for (int sparse = 0; sparse < 2; sparse++) {
        GPT model(cfg);
        model.init_weights(5);
        PlanBuilder b(streaming(cfg), 32, 32, kernels());
        if (sparse) {
            prune_linear_weights(model, 0.75, MaskKind::Random, 8);
            b.set_sparse(sparse_nonzeros(model));
        }
        PlanResult r = b.take();
        ASSERT_TRUE(r.ok) << r.error;
        MeshGPT m(r.plan, model);
        std::vector<float> logits;
        ASSERT_TRUE(m.forward(in.data(), 24, &logits)) << m.error();
        model.forward(in.data(), nullptr, 1, 24);
        int differ = 0;   // a zero of either sign is a zero
        for (size_t i = 0; i < logits.size(); i++) differ += !(logits[i] == model.logits()[i]);
        EXPECT_EQ(differ, 0) << (sparse ? "sparse" : "dense");
        bytes[sparse] = m.last_stream_bytes();
    }
    // A quarter of the matmuls' weights kept: values and indices are half the dense words (the
    // matmuls' weights are nearly all of them), plus the row ends, the biases, the layernorms and
    // each PE's padding to the fullest PE's count (a random mask: 0.63 of the dense bytes here).
    EXPECT_LT(bytes[1], bytes[0] * 7 / 10) << bytes[1] << " of " << bytes[0] << " bytes";
    EXPECT_GT(bytes[1], bytes[0] / 2);
}

TEST(MeshStreaming, SparseTrainingIsRefusedClearly) {
    PlanBuilder b(streaming(nano()), 32, 32, kernels(), wl::MachineConfig{}.sram_bytes, /*train=*/true);
    b.set_sparse([](const PlannedOp&) { return PlanBuilder::SparseCounts{10, 10}; });
    PlanResult s = b.take();
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.error.find("training sparse weights with streaming"), std::string::npos) << s.error;
}

// The compile cache tells the two executions apart, and a plan file keeps what streaming needs.
TEST(MeshStreaming, TheKeyAndThePlanFileCarryTheExecution) {
    const GPTConfig cfg = config(2, 2, 32, 16, 23);
    const PlanShape res = PlanShape::of(cfg, 16, 16, 49152, false), str = PlanShape::of(streaming(cfg), 16, 16, 49152, false);
    EXPECT_FALSE(res == str);
    EXPECT_NE(res.hash(), str.hash());
    PlanResult r = plan_model(streaming(cfg), 16, 16, kernels());
    ASSERT_TRUE(r.ok) << r.error;
    SourceHashes h(kernels());
    const PlanKey key = PlanKey::of(str, r.plan, h);
    EXPECT_EQ(key.what_changed(res, h), "wafer.execution streaming -> resident");
    MeshPlan back;
    PlanKey key_back;
    ASSERT_EQ(read_plan_file(write_plan_file(key, r.plan), streaming(cfg), &key_back, &back), "");
    EXPECT_TRUE(back.streaming);
    int between = 0;
    for (const PlannedOp& o : back.ops)
        for (const Transfer& in : o.inputs) between += in.between_layers;
    EXPECT_EQ(between, 3);
}

}  // namespace
