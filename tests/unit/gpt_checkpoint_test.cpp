// gpt_checkpoint_test.cpp: save/resume bit-identity, corrupt and truncated
// files, and the llm.c (gpt2_124M.bin layout) importer on a small file this test writes.
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/trainer.h"

#include "tests/kill_mid_write.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace wl::gpt;

GPTConfig tiny() {
    return parse_config_text(
        "model: {n_layer: 2, n_head: 2, n_embd: 16, block_size: 16}\n"
        "train_input: {batch_size: 3, corpus: stories, corpus_chars: 4000}\n"
        "optimizer: {warmup_steps: 2, decay_steps: 8}\n"
        "runconfig: {max_steps: 10, eval_steps: 2, seed: 9}\n",
        "tiny");
}

std::string read_all(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}
void write_all(const std::string& p, const std::string& b) { std::ofstream(p, std::ios::binary) << b; }

TEST(GptCheckpoint, ResumeIsBitIdentical) {
    const wltest::TempPath tmp_path("resume.ckpt");
    std::string path = tmp_path.str();
    Trainer straight(tiny());
    for (int i = 0; i < 6; i++) straight.train_step();

    Trainer first(tiny());
    for (int i = 0; i < 3; i++) first.train_step();
    first.save(path);
    auto resumed = Trainer::resume(path);
    EXPECT_EQ(resumed->step, 3);
    EXPECT_EQ(resumed->tokenizer->state(), first.tokenizer->state());
    for (int i = 0; i < 3; i++) resumed->train_step();

    ASSERT_EQ(resumed->model->num_parameters, straight.model->num_parameters);
    EXPECT_EQ(std::memcmp(resumed->model->params_memory.data(), straight.model->params_memory.data(),
                          straight.model->num_parameters * sizeof(float)), 0);
    EXPECT_EQ(std::memcmp(resumed->opt.v.data(), straight.opt.v.data(), straight.opt.v.size() * sizeof(float)), 0);
    EXPECT_EQ(resumed->model->mean_loss, straight.model->mean_loss);
}

// The file is written in pieces from where the weights lie (no buffer of them): its bytes are
// checkpoint_bytes' (the app's download), with and without the optimiser's moments.
TEST(GptCheckpoint, TheFileIsCheckpointBytes) {
    const wltest::TempPath tmp_path("pieces.ckpt");
    Trainer t(tiny());
    t.train_step();
    for (const AdamW* opt : {static_cast<const AdamW*>(&t.opt), static_cast<const AdamW*>(nullptr)}) {
        save_checkpoint(tmp_path.str(), *t.model, opt, 1, "char", t.tokenizer->state());
        EXPECT_EQ(read_all(tmp_path.str()), checkpoint_bytes(*t.model, opt, 1, "char", t.tokenizer->state()));
    }
    EXPECT_EQ(load_checkpoint(tmp_path.str()).step, 1);
}

TEST(GptCheckpoint, RejectsTruncatedCorruptAndForeignFiles) {
    const wltest::TempPath tmp_path("good.ckpt"), tmp_bad("bad.ckpt");
    const std::string path = tmp_path.str(), bad = tmp_bad.str();
    Trainer t(tiny());
    t.train_step();
    t.save(path);
    std::string good = read_all(path);
    Checkpoint ck = load_checkpoint(path);
    EXPECT_EQ(ck.params, t.model->params_memory);

    auto expect_error = [&](const std::string& bytes, const std::string& needle) {
        write_all(bad, bytes);
        try {
            load_checkpoint(bad);
            ADD_FAILURE() << "no error for: " << needle;
        } catch (const CheckpointError& e) {
            std::string m = e.what();
            EXPECT_EQ(m.rfind(bad, 0), 0u) << m;   // names the file
            EXPECT_NE(m.find(needle), std::string::npos) << m;
        }
    };
    for (size_t cut : {size_t(0), size_t(5), size_t(19), size_t(27), good.size() / 2, good.size() - 1})
        expect_error(good.substr(0, cut), cut == 0 ? "bad magic" : cut < 28 ? "truncated checkpoint" : "size mismatch");
    std::string flipped = good;
    flipped[good.size() / 2] ^= 0x10;
    expect_error(flipped, "checksum mismatch");
    expect_error(good + "x", "size mismatch");
    std::string v2 = good;
    v2[8] = 2;
    expect_error(v2, "version 2");
    expect_error("hello, I am a text file that is long enough", "bad magic");
    EXPECT_THROW(load_checkpoint(wltest::TempPath("missing.ckpt").str()), CheckpointError);
}

#ifndef __EMSCRIPTEN__
// A training run killed while it writes a checkpoint: the previous checkpoint is
// still there, whole, and resumes; nothing half-written is left under the name.
TEST(GptCheckpoint, AKillMidSaveLeavesThePreviousCheckpoint) {
    const wltest::TempPath tmp_path("killed.ckpt");
    const std::string path = tmp_path.str();
    Trainer t(tiny());
    t.train_step();
    t.save(path);
    const std::string before = read_all(path);
    t.train_step();
    t.train_step();
    const int sig = wltest::kill_mid_write(before.size() / 2, [&] { t.save(path); });
    ASSERT_EQ(sig, SIGXFSZ) << "the save was not cut short";
    EXPECT_EQ(read_all(path), before);
    auto resumed = Trainer::resume(path);
    EXPECT_EQ(resumed->step, 1);
    // The half-written temporary is beside it, not in its place; the next save succeeds.
    int partial = 0;
    for (const auto& e : std::filesystem::directory_iterator(tmp_path.path().parent_path()))
        if (e.path().filename().string().rfind(tmp_path.path().filename().string() + ".tmp-", 0) == 0) {
            EXPECT_EQ(e.file_size(), before.size() / 2);
            std::filesystem::remove(e.path());
            partial++;
        }
    EXPECT_EQ(partial, 1);
    t.save(path);
    EXPECT_EQ(Trainer::resume(path)->step, 3);
}
#endif

// A small GPT-2-shaped model written in llm.c's layout (version 3, vocab padded to a multiple of 8).
TEST(GptCheckpoint, ImportsLlmcLayout) {
    GPTConfig cfg;
    cfg.n_layer = 2;
    cfg.n_head = 2;
    cfg.n_embd = 16;
    cfg.block_size = 12;
    cfg.vocab_size = 21;
    const int Vp = 24;
    GPT ref(cfg);
    ref.init_weights(77);
    std::vector<int32_t> header(256, 0);
    header[0] = 20240326;
    header[1] = 3;
    header[2] = cfg.block_size;
    header[3] = cfg.vocab_size;
    header[4] = cfg.n_layer;
    header[5] = cfg.n_head;
    header[6] = cfg.n_embd;
    header[7] = Vp;
    std::string bytes(reinterpret_cast<const char*>(header.data()), 1024);
    const size_t wte = size_t(cfg.vocab_size) * cfg.n_embd;
    bytes.append(reinterpret_cast<const char*>(ref.params_memory.data()), wte * 4);
    std::vector<float> pad(size_t(Vp - cfg.vocab_size) * cfg.n_embd, 123.0f);   // padding rows: ignored
    bytes.append(reinterpret_cast<const char*>(pad.data()), pad.size() * 4);
    bytes.append(reinterpret_cast<const char*>(ref.params_memory.data() + wte), (ref.num_parameters - wte) * 4);
    const wltest::TempPath tmp_path("llmc.bin");
    std::string path = tmp_path.str();
    write_all(path, bytes);

    auto model = import_llmc(path);
    EXPECT_EQ(model->cfg.n_layer, 2);
    EXPECT_EQ(model->V, 21);
    EXPECT_EQ(model->params_memory, ref.params_memory);
    std::vector<int> x = {1, 5, 20, 3, 3, 0, 7};
    model->forward(x.data(), nullptr, 1, int(x.size()));
    ref.forward(x.data(), nullptr, 1, int(x.size()));
    EXPECT_EQ(std::memcmp(model->logits(), ref.logits(), x.size() * 21 * sizeof(float)), 0);

    write_all(path, bytes.substr(0, bytes.size() - 4));
    EXPECT_THROW(import_llmc(path), CheckpointError);
    std::string wrong = bytes;
    wrong[0] = 1;
    write_all(path, wrong);
    EXPECT_THROW(import_llmc(path), CheckpointError);
    std::string silly = bytes;
    int32_t huge = 1 << 30;
    std::memcpy(&silly[6 * 4], &huge, 4);   // C
    write_all(path, silly);
    EXPECT_THROW(import_llmc(path), CheckpointError);
}

// A shorter context keeps wpe's first rows: for prompts that fit it, the logits are the full model's.
TEST(GptCheckpoint, WithContextComputesWhatTheModelComputesWithinIt) {
    GPTConfig cfg;
    cfg.n_layer = 2;
    cfg.n_head = 2;
    cfg.n_embd = 16;
    cfg.block_size = 12;
    cfg.vocab_size = 21;
    GPT full(cfg);
    full.init_weights(78);
    GPTConfig shorter = cfg;
    shorter.block_size = 5;
    shorter.mesh = "64x64";   // the config's other keys are taken
    const auto cut = with_context(full, shorter);
    EXPECT_EQ(cut->maxT, 5);
    EXPECT_EQ(cut->cfg.mesh, "64x64");
    const std::vector<int> x = {4, 20, 0, 9, 9};
    cut->forward(x.data(), nullptr, 1, 5);
    full.forward(x.data(), nullptr, 1, 5);
    EXPECT_EQ(std::memcmp(cut->logits(), full.logits(), 5 * 21 * sizeof(float)), 0);
    GPTConfig longer = cfg;
    longer.block_size = 13;
    EXPECT_THROW(with_context(full, longer), std::invalid_argument);
    GPTConfig other = shorter;
    other.n_embd = 32;
    other.vocab_size = 50;
    try {
        with_context(full, other);
        ADD_FAILURE() << "a config of another shape was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("model.n_embd 32 (the weights' 16), model.vocab_size 50 (the weights' 21)"),
                  std::string::npos) << e.what();
    }
    GPTConfig bpe = shorter;   // the same shape, for another tokenizer: its ids would mean other tokens
    bpe.tokenizer = "bpe";
    try {
        with_context(full, bpe);
        ADD_FAILURE() << "a config of another tokenizer was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("train_input.tokenizer bpe (the weights' char)"), std::string::npos) << e.what();
    }
}

}  // namespace
