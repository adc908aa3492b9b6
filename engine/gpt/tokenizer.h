// tokenizer.h: text <-> token ids. Two kinds: "char" (tokenizer_char.h, built
// from a corpus) and "bpe" (tokenizer_bpe.h, GPT-2's byte-level BPE).
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace wl::gpt {

class Tokenizer {
public:
    virtual ~Tokenizer() = default;
    virtual std::string kind() const = 0;                         // "char" | "bpe"
    virtual int vocab_size() const = 0;
    virtual std::vector<int> encode(const std::string& text) const = 0;   // throws on text it cannot encode
    virtual std::string decode(const std::vector<int>& ids) const = 0;     // throws on ids out of range
    virtual std::string state() const = 0;   // what a checkpoint stores to rebuild it (char: the vocabulary)
};

// Rebuilds a tokenizer from kind() + state(); "bpe" loads GPT-2's files from bpe_dir
// (empty: default_bpe_dir()) and, given a state, refuses files whose fingerprint is another.
// Throws std::runtime_error with the reason.
std::unique_ptr<Tokenizer> make_tokenizer(const std::string& kind, const std::string& state,
                                          const std::string& bpe_dir = "");

// A model's vocabulary is its tokenizer's: a larger one samples ids the tokenizer cannot decode, a
// smaller one cannot embed ids it encodes. Throws std::runtime_error naming `what` (a file) and both sizes.
void require_same_vocab(const Tokenizer& t, int model_vocab, const std::string& what);

}  // namespace wl::gpt
