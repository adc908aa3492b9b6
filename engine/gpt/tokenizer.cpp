// tokenizer.cpp: see tokenizer.h.
#include "engine/gpt/tokenizer.h"

#include "engine/gpt/tokenizer_bpe.h"
#include "engine/gpt/tokenizer_char.h"

#include <stdexcept>

namespace wl::gpt {

void require_same_vocab(const Tokenizer& t, int model_vocab, const std::string& what) {
    if (t.vocab_size() == model_vocab) return;
    throw std::runtime_error(what + ": its " + t.kind() + " tokenizer has " + std::to_string(t.vocab_size()) +
                             " tokens, its model.vocab_size is " + std::to_string(model_vocab) + " (they must be equal)");
}

std::unique_ptr<Tokenizer> make_tokenizer(const std::string& kind, const std::string& state,
                                          const std::string& bpe_dir) {
    if (kind == "char") return std::make_unique<CharTokenizer>(state);
    if (kind == "bpe") {
        std::string dir = bpe_dir.empty() ? default_bpe_dir() : bpe_dir;
        auto t = std::make_unique<BpeTokenizer>(BpeTokenizer::load(dir + "/encoder.json", dir + "/vocab.bpe"));
        if (!state.empty() && state != t->state())   // empty: a checkpoint from before fingerprints
            throw std::runtime_error(dir + "/encoder.json and vocab.bpe are not the vocabulary the weights were trained with (its fingerprint " +
                                     state + ", these files' " + t->state() + "): the same ids would mean other tokens");
        return t;
    }
    throw std::runtime_error("unknown tokenizer kind '" + kind + "' (expected char or bpe)");
}

}  // namespace wl::gpt
