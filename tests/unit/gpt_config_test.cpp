// gpt_config_test.cpp: the YAML params files (engine/gpt/gpt_config.h): every shipped file
// loads, the converted files equal the flat .cfg files they replaced (and train to the same
// bits), one test per class of mistake, --set overrides, and the key table in docs/configs.md.
#include "engine/gpt/gpt_config.h"
#include "engine/fabric/wafer.h"
#include "engine/gpt/trainer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace wl::gpt;

const std::string kSrc = WAFERLAB_SOURCE_DIR;

std::string error_of(const std::string& text) {
    try {
        parse_config_text(text, "test.yaml");
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

std::string read_all(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

TEST(GptConfig, ParsesSectionsCommentsAndDefaults) {
    GPTConfig c = parse_config_text("# comment\nmodel:\n  n_layer: 2   # trailing\n\noptimizer:\n  learning_rate: 3e-4\n"
                                    "train_input: {corpus: addition}\nwafer:\n",
                                    "x");
    EXPECT_EQ(c.n_layer, 2);
    EXPECT_DOUBLE_EQ(c.learning_rate, 3e-4);
    EXPECT_EQ(c.corpus, "addition");
    EXPECT_EQ(c.n_head, GPTConfig{}.n_head);   // untouched keys keep their defaults
    EXPECT_EQ(c.mesh, GPTConfig{}.mesh);
    GPTConfig back = parse_config_text(c.to_text(), "roundtrip");
    EXPECT_EQ(back.to_text(), c.to_text());
    c.data = "a path: with # and \"quotes\"";
    EXPECT_EQ(parse_config_text(c.to_text(), "roundtrip").data, c.data);
    EXPECT_EQ(parse_config_text("", "empty").to_text(), GPTConfig{}.to_text());   // an empty file: every default
}

TEST(GptConfig, EveryShippedParamsFileLoads) {
    int n = 0;
    for (const char* dir : {"/models", "/lessons/13-training"})
        for (const auto& e : std::filesystem::directory_iterator(kSrc + dir))
            if (e.path().extension() == ".yaml") {
                SCOPED_TRACE(e.path().string());
                EXPECT_NO_THROW(load_config(e.path().string()));
                n++;
            }
    EXPECT_GE(n, 4);
    GPTConfig small = load_config(kSrc + "/models/gpt2-small.yaml");
    EXPECT_EQ(count_parameters(small), 124439808u);   // GPT-2 small (unpadded vocab), as llm.c reports
    GPTConfig nano = load_config(kSrc + "/models/gpt-nano.yaml");
    nano.vocab_size = 45;
    EXPECT_GE(count_parameters(nano), 100000u);
    EXPECT_LE(count_parameters(nano), 300000u);
}

// The YAML files replaced flat `key = value` files (kept in tests/fixtures/flat_configs as they
// were): every key must come out the same, and a few training steps give the same bits.
TEST(GptConfig, ConvertedFilesEqualTheFlatOnesTheyReplaced) {
    const std::string flat = kSrc + "/tests/fixtures/flat_configs/";
    for (const auto& [yaml, cfg] : {std::pair{"/models/gpt-nano.yaml", "gpt-nano.cfg"},
                                    std::pair{"/models/gpt-micro.yaml", "gpt-micro.cfg"},
                                    std::pair{"/models/gpt2-small.yaml", "gpt2-small.cfg"},
                                    std::pair{"/lessons/13-training/tiny.yaml", "tiny.cfg"}}) {
        SCOPED_TRACE(yaml);
        EXPECT_EQ(load_config(kSrc + yaml).to_text(), parse_flat_config_text(read_all(flat + cfg), cfg).to_text());
    }
    // Lesson 13's GPT, three steps from each: identical losses and weights.
    Trainer a(load_config(kSrc + "/lessons/13-training/tiny.yaml"));
    Trainer b(parse_flat_config_text(read_all(flat + "tiny.cfg"), "tiny.cfg"));
    for (int i = 0; i < 3; i++) {
        const float la = a.train_step(), lb = b.train_step();
        EXPECT_EQ(std::memcmp(&la, &lb, sizeof la), 0) << "step " << i << ": " << la << " vs " << lb;
    }
    ASSERT_EQ(a.model->params_memory.size(), b.model->params_memory.size());
    EXPECT_EQ(std::memcmp(a.model->params_memory.data(), b.model->params_memory.data(),
                          a.model->params_memory.size() * sizeof(float)), 0);
}

// One test per class of mistake; each message names file:line:col.
TEST(GptConfigErrors, UnknownKeySuggestsTheNearest) {
    EXPECT_EQ(error_of("optimiser:\n  learning_rate: 1e-3\n"),
              "test.yaml:1:1: optimiser: unknown section; did you mean optimizer?");
    EXPECT_EQ(error_of("optimizer:\n  learning_rat: 1e-3\n"),
              "test.yaml:2:3: optimizer.learning_rat: unknown key; did you mean optimizer.learning_rate?");
    EXPECT_EQ(error_of("model:\n  batch_size: 4\n"),   // a key in the wrong section
              "test.yaml:2:3: model.batch_size: unknown key; did you mean train_input.batch_size?");
    EXPECT_EQ(error_of("runconfig:\n  max_iters: 4\n"),   // the flat format's name
              "test.yaml:2:3: runconfig.max_iters: unknown key; did you mean runconfig.max_steps?");
    EXPECT_EQ(error_of("model:\n  zzzzzzzz: 4\n"), "test.yaml:2:3: model.zzzzzzzz: unknown key (docs/configs.md lists the keys)");
}

TEST(GptConfigErrors, WrongTypeNamesTheExpectedType) {
    EXPECT_EQ(error_of("model:\n  n_embd: big\n"), "test.yaml:2:11: model.n_embd: expected an integer in 1..16384, got 'big'");
    EXPECT_EQ(error_of("optimizer: {learning_rate: 1e-3x}\n"),
              "test.yaml:1:28: optimizer.learning_rate: expected a number in 0..10, got '1e-3x'");
    EXPECT_EQ(error_of("runconfig:\n  seed: -1\n"), "test.yaml:2:9: runconfig.seed: expected an integer in 0..18446744073709551615, got '-1'");
    EXPECT_EQ(error_of("optimizer:\n  learning_rate: [1, 2]\n"),
              "test.yaml:2:18: optimizer.learning_rate: expected a number, got a sequence");
    EXPECT_EQ(error_of("optimizer:\n  learning_rate:\n"), "test.yaml:2:3: optimizer.learning_rate: expected a number, got nothing");
}

TEST(GptConfigErrors, ValueOutOfRangeIsPlacedAtItsKey) {
    EXPECT_EQ(error_of("model:\n  n_head: 4\n  n_embd: 130\n"),
              "test.yaml:3:3: model.n_embd must be a positive multiple of model.n_head");
    EXPECT_EQ(error_of("train_input:\n  tokenizer: words\n"), "test.yaml:2:3: train_input.tokenizer must be char or bpe, got 'words'");
    EXPECT_EQ(error_of("optimizer: {grad_accum_steps: 0}\n"), "test.yaml:1:31: optimizer.grad_accum_steps: expected an integer in 1..65536, got '0'");
    EXPECT_EQ(error_of("wafer: {mesh: 0x4}\n"), "test.yaml:1:9: wafer.mesh expects WxH, each 1..256 (as in 32x32), got '0x4'");
    EXPECT_EQ(error_of("train_input: {corpus: file}\n"), "test.yaml: train_input.data corpus: file needs data: <path>");
    // 010 is 8 to a YAML 1.1 reader and 10 to a 1.2 one: refused, at its place (a float's leading 0 is no octal).
    EXPECT_EQ(error_of("model:\n  n_layer: 010\n"), "test.yaml:2:12: model.n_layer: '010' has a leading 0, which YAML 1.1 readers (PyYAML) take as octal; write 10");
    EXPECT_EQ(error_of("runconfig: {seed: 007}\n"), "test.yaml:1:19: runconfig.seed: '007' has a leading 0, which YAML 1.1 readers (PyYAML) take as octal; write 7");
    EXPECT_EQ(error_of("optimizer: {learning_rate: 0.001}\nmodel: {n_layer: 0}\n").find("leading"), std::string::npos);
}

TEST(GptConfigErrors, BadYamlAndBadShape) {
    EXPECT_EQ(error_of("model:\n  n_layer: [1, 2\n"), "test.yaml:3:1: end of sequence flow not found");
    EXPECT_EQ(error_of("just words\n"),
              "test.yaml:1:1: expected sections (model:, train_input:, optimizer:, runconfig:, wafer:), got a scalar");
    EXPECT_EQ(error_of("model: 3\n"), "test.yaml:1:8: model: expected keys (key: value), got a scalar");
    EXPECT_EQ(error_of("model:\n  n_layer: 2\n  n_layer: 3\n"), "test.yaml:3:3: model.n_layer: given twice (first at test.yaml:2:3)");
    try {
        load_config("/nonexistent/model.yaml");
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_EQ(std::string(e.what()), "/nonexistent/model.yaml: cannot open config file (No such file or directory)");
    }
}

TEST(GptConfig, SetOverridesAnyKey) {
    GPTConfig c = load_config(kSrc + "/models/gpt-nano.yaml");
    apply_overrides(c, "optimizer.learning_rate=1e-3, train_input.batch_size=4\nwafer.mode=cycle");
    EXPECT_DOUBLE_EQ(c.learning_rate, 1e-3);
    EXPECT_EQ(c.batch_size, 4);
    EXPECT_EQ(c.mode, "cycle");
    auto err = [&](const std::string& o) {
        try {
            apply_overrides(c, o);
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(err("optimiser.learning_rate=1e-3"), "--set: optimiser.learning_rate: unknown key; did you mean optimizer.learning_rate?");
    EXPECT_EQ(err("learning_rate=1e-3"), "--set: learning_rate: unknown key; did you mean optimizer.learning_rate?");
    EXPECT_EQ(err("optimizer.learning_rate"), "--set: expected key=value, got 'optimizer.learning_rate'");
    EXPECT_EQ(err("model.n_layer=x"), "--set: model.n_layer: expected an integer in 1..1024, got 'x'");
    EXPECT_EQ(err("wafer.execution=streaming"), "");
    EXPECT_EQ(err("wafer.execution=pipelined"), "--set: wafer.execution must be resident or streaming, got 'pipelined'");
}

// The key table in docs/configs.md is generated from WL_CONFIG_KEYS; this keeps the doc current.
// wafer.arch names a machine profile (engine/fabric/wafer.h); the model compiler plans for its SRAM.
TEST(GptConfig, ArchIsAMachineProfile) {
    EXPECT_EQ(GPTConfig{}.arch, "default");
    const GPTConfig c = parse_config_text("wafer:\n  arch: wse3\n", "test.yaml");
    EXPECT_EQ(c.arch, "wse3");
    EXPECT_STREQ(machine_profile_of(c).id, "wse3");
    EXPECT_EQ(machine_profile_of(c).sram_bytes_per_pe, wl::kSramBytesPerPe);
    const std::string e = error_of("wafer:\n  arch: wse9\n");
    EXPECT_NE(e.find("wafer.arch must be default, wse2 or wse3, got 'wse9'"), std::string::npos) << e;
    EXPECT_NE(GPTConfig{}.to_text().find("arch: \"default\""), std::string::npos);
}

TEST(GptConfig, DocsListEveryKey) {
    const std::string doc = read_all(kSrc + "/docs/configs.md");
    EXPECT_NE(doc.find(config_keys_markdown()), std::string::npos)
        << "docs/configs.md's key table is stale; replace it with:\n" << config_keys_markdown();
}

}  // namespace
