// gpt_data_test.cpp: corpora, the addition scorer, the data loader.
#include "engine/gpt/corpus.h"
#include "engine/gpt/dataloader.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/gpt_config.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

using namespace wl::gpt;

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
    const wltest::TempPath tmp_path("corpus.txt");
    std::string path = tmp_path.str();
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
        EXPECT_EQ(std::string(e.what()), "train_input.data: /nonexistent/text.txt: cannot open training text file (No such file or directory)");
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
