// corpus.h: training text. Built-in corpora are generated from a seed, so the
// project ships no data: "addition" (multi-digit sums written as text, with an
// exact-match scorer) and "stories" (template English-like tales). Any text
// file works too. The last val_fraction of the text is the validation split.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/gpt/gpt_config.h"

namespace wl::gpt {

struct Corpus {
    std::string name;   // "stories", "addition", or the file path
    std::string text;
    size_t split = 0;   // text[0, split) trains, text[split, end) validates
    std::string train() const { return text.substr(0, split); }
    std::string val() const { return text.substr(split); }
};

std::string generate_stories(uint64_t seed, size_t chars);
std::string generate_addition(uint64_t seed, size_t chars, int digits);   // lines "123+45=168\n"
std::string read_text_file(const std::string& path);                      // throws naming the path (and a binary file: binary_text)
// "" for text; else why `text` is not ("NAME looks binary (it has NUL bytes): train on a text file"):
// text has no NUL bytes and few control characters besides tab, newline and carriage return.
std::string binary_text(const std::string& name, const std::string& text);

// From cfg.corpus / cfg.data / cfg.seed / cfg.corpus_chars / cfg.val_fraction.
Corpus make_corpus(const GPTConfig& cfg);
// Text already in memory (a file the app was given) as a corpus: cfg's val_fraction splits it;
// throws when it is too short for cfg.block_size.
Corpus corpus_from_text(const std::string& name, std::string text, const GPTConfig& cfg);

// Exact-match scoring for the addition task: `complete` gets "a+b=" and returns
// the model's continuation; it is right when the text before the first '\n' is a+b.
struct AdditionProblem {
    std::string prompt;   // "123+45="
    std::string answer;   // "168"
};
std::vector<AdditionProblem> addition_problems(uint64_t seed, int n, int digits);
double addition_accuracy(const std::vector<AdditionProblem>& problems,
                         const std::function<std::string(const std::string&)>& complete);

}  // namespace wl::gpt
