// train_guide_test.cpp: the Train section's guide — every op a training step runs on the mesh
// (resident and streamed) has words, lights PEs and is named by the guide; the loss's start is ln V.
#include "ui/train_guide.h"

#include "ui/placement_overlay.h"
#include "ui/train_session.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace {

const std::string kModels = std::string(WAFERLAB_SOURCE_DIR) + "/models";

std::string tiny_config() {   // two layers, so a layer's number is read, not assumed
    static const wltest::TempPath tmp("train_guide_tiny.yaml");
    std::ofstream(tmp.str()) << "model: {n_layer: 2, n_head: 2, n_embd: 16, block_size: 16}\n"
                                "train_input: {batch_size: 2, corpus_chars: 6000}\n"
                                "optimizer: {learning_rate: 3e-3, warmup_steps: 2, decay_steps: 50}\n"
                                "runconfig: {eval_steps: 2, seed: 7}\n";
    return tmp.str();
}

// One step of tiny_config's GPT on 16x16, nothing evaluated or sampled.
wlui::TrainSettings one_step() {
    wlui::TrainSettings s;
    s.config = tiny_config();
    s.mesh_w = s.mesh_h = 16;
    s.steps = 1;
    s.eval_every = 1000, s.sample_every = 1000;
    return s;
}

// Every (phase, op) one step runs, as train_state() names them unit by unit; each must be explained.
void every_op_has_words(wl::gpt::Execution e) {
    const std::string execution = wl::gpt::execution_name(e);
    wlui::TrainSession t(kModels);
    wlui::TrainSettings s = one_step();
    s.execution = e;
    ASSERT_TRUE(t.start(s)) << t.error();
    std::set<std::string> seen;
    for (int i = 0; i < 100000 && t.status() != wlui::TrainSession::Status::Done; i++) {
        t.tick(0);   // one unit
        ASSERT_TRUE(t.error().empty()) << t.error();
        const nlohmann::json j = t.to_json();
        if (!t.stepping() || j["op"].is_null()) continue;
        const std::string op = j["op"], phase = j["phase"];
        if (!seen.insert(phase + " " + op).second) continue;
        EXPECT_FALSE(wlui::op_in_words(op).empty()) << execution << ": " << phase << " " << op;
        const wlui::PeOverlay ov = wlui::training_overlay(t.mesh()->mesh().plan(), op, phase);
        if (op != "store") {
            EXPECT_GT(ov.lit, 0) << execution << ": " << phase << " " << op << " lights no PE";
        }
        wlui::TrainGuideInput in{phase, op, ov.lit, ov.lit_box, t.corpus().vocab, t.losses(), t.step()};
        const wlui::TrainGuide g = wlui::train_guide(in);
        EXPECT_EQ(g.now.rfind(phase + " " + op + ": ", 0), 0u) << g.now;
        EXPECT_FALSE(g.why.empty()) << phase;
    }
    EXPECT_EQ(t.status(), wlui::TrainSession::Status::Done);
    for (const char* want : {"forward l1.qkv", "backward l0.atty"}) EXPECT_TRUE(seen.count(want)) << execution << ": " << want;
    // Resident: AdamW on each op's PEs; streamed: the layers' weights come and go over the edge.
    for (const char* want : execution == "resident" ? std::vector<const char*>{"optimiser l0.qkv"}
                                                    : std::vector<const char*>{"forward l1.weights", "backward l0.grads"})
        EXPECT_TRUE(seen.count(want)) << execution << ": " << want;
}

}  // namespace

TEST(TrainGuide, OpsInWords) {
    EXPECT_EQ(wlui::op_in_words("l0.qkv"), "the matmul that makes the queries, keys and values for layer 0");
    EXPECT_EQ(wlui::op_in_words("l11.fch_gelu"), "GELU, the MLP's bend, in layer 11");
    EXPECT_NE(wlui::op_in_words("logits").find("vocabulary"), std::string::npos);
    for (const char* whole : {"encoded", "lnf", "dlogits", "grad_norm", "store"}) EXPECT_FALSE(wlui::op_in_words(whole).empty()) << whole;
    EXPECT_EQ(wlui::op_in_words("l3.weights"), "layer 3's weights streaming in over the mesh's edge");
    EXPECT_EQ(wlui::op_in_words("l0.nosuch"), "");
    EXPECT_EQ(wlui::op_in_words("nosuch"), "");
    EXPECT_EQ(wlui::op_in_words("l"), "");
}

TEST(TrainGuide, RowWhyAndLoss) {
    wlui::TrainGuideInput in{"forward", "l0.qkv", 3, {4, 2, 3, 1}, 65, {}, 0};
    wlui::TrainGuide g = wlui::train_guide(in);
    EXPECT_EQ(g.now, "forward l0.qkv: the matmul that makes the queries, keys and values for layer 0");
    EXPECT_EQ(g.row, "The lit row: 3 PEs, x 4..6 at y 2.");
    EXPECT_NE(g.why.find("dependency order"), std::string::npos);
    EXPECT_NE(g.why.find("its 3 PEs work at once"), std::string::npos);
    EXPECT_NE(g.loss.find("ln 65 = 4.17"), std::string::npos) << g.loss;
    EXPECT_EQ(g.loss.find("Now"), std::string::npos);
    in.losses = {4.2f, 3.5f};
    in.step = 2;
    in.phase = "backward";
    g = wlui::train_guide(in);
    EXPECT_EQ(g.now.rfind("backward l0.qkv: the gradient flowing back through the matmul", 0), 0u) << g.now;
    EXPECT_NE(g.why.find("reverse"), std::string::npos);
    EXPECT_NE(g.loss.find("Now 3.50 at step 2, below a blind guess."), std::string::npos) << g.loss;
    g = wlui::train_guide({"", "", 0, {0, 0, 0, 0}, 45, {}, 0});
    EXPECT_EQ(g.op, "");
    EXPECT_NE(g.now.find("Between jobs"), std::string::npos);
    EXPECT_NE(g.loss.find("ln 45 = 3.81"), std::string::npos);
}

TEST(TrainGuide, EveryOpOfAResidentStep) { every_op_has_words(wl::gpt::Execution::Resident); }
TEST(TrainGuide, EveryOpOfAStreamedStep) { every_op_has_words(wl::gpt::Execution::Streaming); }

// Pipelined (wafer.schedule: pipelined): a sequence's units are its forward's, loss's and
// backward's launches, one per op and chunk, and while one runs the ops working beside it are lit
// too, each in its chunk's colour with the chunk written over it (a backward's tagged "back"); the
// guide says why several rows are lit.
TEST(TrainGuide, APipelinedStepLightsEveryOpWorking) {
    wlui::TrainSession t(kModels);
    wlui::TrainSettings s = one_step();
    s.set = "wafer.schedule=pipelined,model.block_size=64";   // 8 chunks: launches overlap between units
    ASSERT_TRUE(t.start(s)) << t.error();
    size_t most[2] = {0, 0};   // the most launches working at once during a forward unit, a backward unit
    for (int i = 0; i < 100000 && t.status() != wlui::TrainSession::Status::Done; i++) {
        t.tick(0);
        ASSERT_TRUE(t.error().empty()) << t.error();
        if (!t.stepping()) continue;
        const wl::model::TrainWork* w = t.mesh()->next_work();
        if (!w || w->chunk < 0) continue;
        const std::string phase = wl::model::train_phase_name(w->phase);
        ASSERT_TRUE(phase == "forward" || phase == "backward") << phase;
        EXPECT_NE(t.to_json().dump().find("chunk " + std::to_string(w->chunk)), std::string::npos) << "the panel names the chunk";
        const std::vector<wl::model::LaunchSpan> working = t.mesh()->mesh().in_flight();
        size_t& seen = most[phase == "backward"];
        if (working.size() <= seen) continue;
        seen = working.size();
        const wlui::PeOverlay ov = wlui::timeline_overlay(t.mesh()->mesh().plan(), working, working.front().end - 1);
        EXPECT_EQ(ov.tags.size(), working.size());
        for (size_t k = 0; k < working.size(); k++)
            EXPECT_EQ(ov.tags[k].second.find(" back") != std::string::npos, working[k].backward) << ov.tags[k].second;
        const wlui::TrainGuide g = wlui::train_guide({phase, w->op, ov.lit, ov.lit_box, t.corpus().vocab, t.losses(), t.step(),
                                                      w->chunk, int(ov.tags.size())});
        EXPECT_EQ(g.now.rfind(phase + " " + w->op + ", chunk " + std::to_string(w->chunk) + ": ", 0), 0u) << g.now;
        EXPECT_NE(g.why.find(std::to_string(working.size()) + " ops are lit now"), std::string::npos) << g.why;
    }
    EXPECT_EQ(t.status(), wlui::TrainSession::Status::Done);
    EXPECT_GT(most[0], 1u) << "no two launches of the forward worked at once";
    EXPECT_GT(most[1], 1u) << "no two launches of the backward worked at once";
}
