// tokenizer_char.h: character-level tokenizer, nanoGPT's shakespeare_char:
// the vocabulary is the sorted set of characters in the corpus.
// Characters are bytes: UTF-8 text round-trips exactly, a multi-byte character
// becomes several tokens.
#pragma once
#include "engine/gpt/tokenizer.h"

namespace wl::gpt {

class CharTokenizer : public Tokenizer {
public:
    static CharTokenizer from_text(const std::string& text);   // sorted distinct bytes
    explicit CharTokenizer(std::string chars);                  // id i <-> chars[i]; no repeats

    std::string kind() const override { return "char"; }
    int vocab_size() const override { return int(chars_.size()); }
    std::vector<int> encode(const std::string& text) const override;
    std::string decode(const std::vector<int>& ids) const override;
    std::string state() const override { return chars_; }

private:
    std::string chars_;
    int index_[256];
};

}  // namespace wl::gpt
