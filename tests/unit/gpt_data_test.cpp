// gpt_data_test.cpp: configs, corpora, the addition scorer, the data loader.
#include "engine/gpt/corpus.h"
#include "engine/gpt/dataloader.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/gpt_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

using namespace wl::gpt;

std::string error_of(const std::string& text) {
    try {
        parse_config_text(text, "test.cfg");
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(GptConfig, ParsesKeysCommentsAndDefaults) {
    GPTConfig c = parse_config_text("# comment\n n_layer = 2 # trailing\n\nlearning_rate=3e-4\ncorpus = addition\n", "x");
    EXPECT_EQ(c.n_layer, 2);
    EXPECT_DOUBLE_EQ(c.learning_rate, 3e-4);
    EXPECT_EQ(c.corpus, "addition");
    EXPECT_EQ(c.n_head, GPTConfig{}.n_head);   // untouched keys keep their defaults
    GPTConfig back = parse_config_text(c.to_text(), "roundtrip");
    EXPECT_EQ(back.to_text(), c.to_text());
}

TEST(GptConfig, ErrorsNameFileAndLine) {
    EXPECT_EQ(error_of("n_layer = 2\nn_layres = 3\n").rfind("test.cfg:2: unknown key 'n_layres'", 0), 0u);
    EXPECT_EQ(error_of("\n\nn_embd = big\n"), "test.cfg:3: n_embd expects an integer, got 'big'");
    EXPECT_EQ(error_of("learning_rate = 1e-3x\n"), "test.cfg:1: learning_rate expects a number, got '1e-3x'");
    EXPECT_EQ(error_of("just words\n"), "test.cfg:1: expected 'key = value', got 'just words'");
    EXPECT_EQ(error_of("seed = -1\n"), "test.cfg:1: seed expects a non-negative integer, got '-1'");
    EXPECT_EQ(error_of("n_embd = 130\nn_head = 4\n"), "test.cfg: n_embd must be a positive multiple of n_head");
    EXPECT_EQ(error_of("corpus = file\n"), "test.cfg: corpus = file needs data = <path>");
    EXPECT_EQ(error_of("tokenizer = words\n"), "test.cfg: tokenizer must be 'char' or 'bpe', got 'words'");
    try {
        load_config("/nonexistent/model.cfg");
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_EQ(std::string(e.what()), "/nonexistent/model.cfg: cannot open config file");
    }
}

TEST(GptConfig, ShippedModelsParse) {
    std::string dir = std::string(WAFERLAB_SOURCE_DIR) + "/models/";
    GPTConfig nano = load_config(dir + "gpt-nano.cfg");
    GPTConfig micro = load_config(dir + "gpt-micro.cfg");
    GPTConfig small = load_config(dir + "gpt2-small.cfg");
    EXPECT_EQ(micro.n_layer, 4);
    EXPECT_EQ(micro.n_head, 4);
    EXPECT_EQ(micro.n_embd, 128);
    EXPECT_EQ(micro.block_size, 64);
    EXPECT_EQ(micro.batch_size, 12);
    EXPECT_DOUBLE_EQ(micro.learning_rate, 1e-3);
    nano.vocab_size = 45;
    size_t p = count_parameters(nano);
    EXPECT_GE(p, 100000u);
    EXPECT_LE(p, 300000u);
    EXPECT_EQ(count_parameters(small), 124439808u);   // GPT-2 small (unpadded vocab), as llm.c reports
}

TEST(GptCorpus, GeneratedCorporaAreSeededAndWellFormed) {
    EXPECT_EQ(generate_stories(7, 5000), generate_stories(7, 5000));
    EXPECT_NE(generate_stories(7, 5000), generate_stories(8, 5000));
    std::string s = generate_stories(7, 20000);
    EXPECT_GE(s.size(), 20000u);
    EXPECT_NE(s.find("Once upon a time"), std::string::npos);

    std::string a = generate_addition(3, 4000, 3);
    size_t lines = 0, pos = 0;
    while (pos < a.size()) {
        size_t nl = a.find('\n', pos);
        ASSERT_NE(nl, std::string::npos);
        std::string line = a.substr(pos, nl - pos);
        size_t plus = line.find('+'), eq = line.find('=');
        ASSERT_TRUE(plus != std::string::npos && eq != std::string::npos) << line;
        long x = std::stol(line.substr(0, plus)), y = std::stol(line.substr(plus + 1, eq - plus - 1));
        EXPECT_LT(x, 1000);
        EXPECT_EQ(std::stol(line.substr(eq + 1)), x + y) << line;
        pos = nl + 1;
        lines++;
    }
    EXPECT_GT(lines, 200u);
}

TEST(GptCorpus, AdditionScorerIsExactMatch) {
    auto probs = addition_problems(11, 50, 4);
    ASSERT_EQ(probs.size(), 50u);
    auto oracle = [](const std::string& p) {
        long a = std::stol(p.substr(0, p.find('+'))), b = std::stol(p.substr(p.find('+') + 1));
        return std::to_string(a + b) + "\n1+1=2";   // text after the newline is ignored
    };
    EXPECT_DOUBLE_EQ(addition_accuracy(probs, oracle), 1.0);
    EXPECT_DOUBLE_EQ(addition_accuracy(probs, [&](const std::string& p) { return oracle(p) + "0"; }), 1.0);
    EXPECT_DOUBLE_EQ(addition_accuracy(probs, [&](const std::string& p) { return "0" + oracle(p); }), 0.0);
    int calls = 0;
    auto half = [&](const std::string& p) { return (calls++ % 2) ? oracle(p) : std::string("?"); };
    EXPECT_DOUBLE_EQ(addition_accuracy(probs, half), 0.5);
}

TEST(GptCorpus, FileCorpusSplitsAndMissingFileErrors) {
    std::string path = testing::TempDir() + "wl_corpus.txt";
    std::string text;
    for (int i = 0; i < 100; i++) text += "line " + std::to_string(i) + " of the user's text\n";
    std::ofstream(path, std::ios::binary) << text;
    GPTConfig c;
    c.corpus = "file";
    c.data = path;
    c.val_fraction = 0.25;
    Corpus corpus = make_corpus(c);
    EXPECT_EQ(corpus.text, text);
    EXPECT_EQ(corpus.train() + corpus.val(), text);
    EXPECT_EQ(corpus.split, size_t(double(text.size()) * 0.75));
    c.data = "/nonexistent/text.txt";
    try {
        make_corpus(c);
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "/nonexistent/text.txt: cannot open text file");
    }
}

TEST(GptDataLoader, WindowsAreShiftedAndSeeded) {
    std::vector<int> tokens(500);
    for (int i = 0; i < 500; i++) tokens[i] = i;
    DataLoader d(tokens, 4, 16, 42, 0), same(tokens, 4, 16, 42, 0), other(tokens, 4, 16, 42, 1);
    std::vector<int> x(64), y(64), x2(64), y2(64);
    d.batch(5, x.data(), y.data());
    same.batch(5, x2.data(), y2.data());
    EXPECT_EQ(x, x2);
    for (int b = 0; b < 4; b++)
        for (int t = 0; t < 16; t++) {
            EXPECT_EQ(y[b * 16 + t], x[b * 16 + t] + 1);
            if (t) {
                EXPECT_EQ(x[b * 16 + t], x[b * 16 + t - 1] + 1);
            }
        }
    other.batch(5, x2.data(), y2.data());
    EXPECT_NE(x, x2);
    EXPECT_THROW(DataLoader(std::vector<int>(16), 1, 16, 1, 0), std::runtime_error);
}

}  // namespace
