// notices_test.cpp: the app's notices (ui/notices.h): shown once each until dismissed, and a
// training notice (a text refused for training) gone once a training start succeeds, on a real
// TrainSession's run id: not when the start fails, nor when it is only asked for.
#include "ui/notices.h"

#include "ui/train_session.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using wlui::Notices;
using wlui::TrainSession;

namespace {
const std::string kModels = std::string(WAFERLAB_SOURCE_DIR) + "/models";

wlui::TrainSettings tiny() {   // a GPT that starts in milliseconds
    static const wltest::TempPath tmp("notices_tiny.yaml");   // read by the session's start
    const std::string path = tmp.str();
    std::ofstream(path) << "model: {n_layer: 1, n_head: 2, n_embd: 16, block_size: 16}\n"
                           "train_input: {batch_size: 2, corpus_chars: 6000}\n"
                           "runconfig: {eval_steps: 1, seed: 7}\n";
    wlui::TrainSettings s;
    s.config = path;
    s.mesh_w = s.mesh_h = 16;
    s.steps = 1;
    return s;
}

void ticks(TrainSession& t) {
    for (int i = 0; i < 200000 && t.starting() && t.status() == TrainSession::Status::Starting; i++) t.tick(0);
}
}  // namespace

TEST(Notices, EachOnceUntilDismissed) {
    Notices n;
    EXPECT_TRUE(n.empty());
    n.add("a");
    n.add("b", Notices::About::Training);
    n.add("a");
    EXPECT_EQ(n.texts(), (std::vector<std::string>{"a", "b"}));
    n.training_run(0);   // the run id it began with: nothing is stale
    EXPECT_EQ(n.texts().size(), 2u);
    n.clear();
    EXPECT_TRUE(n.empty());
}

TEST(Notices, ATrainingRefusalGoesOnceATrainingStartSucceeds) {
    TrainSession t(kModels);
    Notices n;
    n.training_run(t.run_id());
    ASSERT_FALSE(t.set_text("empty.txt", ""));
    n.add(t.error(), Notices::About::Training);
    n.add("Could not open the example: x.", Notices::About::App);
    n.training_run(t.run_id());
    ASSERT_EQ(n.texts().size(), 2u);

    wlui::TrainSettings bad = tiny();   // a start that fails in its units: the refusal stays
    bad.mesh_w = bad.mesh_h = 2;
    ASSERT_TRUE(t.start(bad)) << t.error();
    ticks(t);
    n.training_run(t.run_id());
    EXPECT_FALSE(t.has_run());
    EXPECT_EQ(n.texts().size(), 2u);

    ASSERT_TRUE(t.start(tiny())) << t.error();   // asked for, still being built: it stays
    t.tick(0);
    ASSERT_TRUE(t.starting());
    n.training_run(t.run_id());
    EXPECT_EQ(n.texts().size(), 2u);
    ticks(t);   // built: the run is the new one, and the refusal is stale
    ASSERT_EQ(t.status(), TrainSession::Status::Running) << t.error();
    n.training_run(t.run_id());
    EXPECT_EQ(n.texts(), (std::vector<std::string>{"Could not open the example: x."}));
    n.add("empty.txt is empty: there is nothing to train on", Notices::About::Training);   // a new refusal shows again
    n.training_run(t.run_id());
    EXPECT_EQ(n.texts().size(), 2u);
}
