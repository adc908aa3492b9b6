// tokenizer_char.cpp: see tokenizer_char.h.
#include "engine/gpt/tokenizer_char.h"

#include <cstdio>
#include <stdexcept>

namespace wl::gpt {

CharTokenizer CharTokenizer::from_text(const std::string& text) {
    bool seen[256] = {};
    for (unsigned char c : text) seen[c] = true;
    std::string chars;
    for (int c = 0; c < 256; c++)
        if (seen[c]) chars.push_back(char(c));
    if (chars.empty()) throw std::runtime_error("char tokenizer: empty text");
    return CharTokenizer(chars);
}

CharTokenizer::CharTokenizer(std::string chars) : chars_(std::move(chars)) {
    for (int& i : index_) i = -1;
    for (size_t i = 0; i < chars_.size(); i++) {
        unsigned char c = chars_[i];
        if (index_[c] >= 0) throw std::runtime_error("char tokenizer: vocabulary repeats a character");
        // from_text's order, the only one a model was trained with: another order makes every id another character
        if (i > 0 && c < (unsigned char)chars_[i - 1]) {
            char buf[256];
            std::snprintf(buf, sizeof buf, "char tokenizer: the vocabulary is not in byte order (0x%02x at position %zu comes after 0x%02x): "
                          "a model's vocabulary is its text's distinct bytes, sorted", c, i, (unsigned char)chars_[i - 1]);
            throw std::runtime_error(buf);
        }
        index_[c] = int(i);
    }
}

std::vector<int> CharTokenizer::encode(const std::string& text) const {
    std::vector<int> ids;
    ids.reserve(text.size());
    for (size_t i = 0; i < text.size(); i++) {
        int id = index_[(unsigned char)text[i]];
        if (id < 0) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "char tokenizer: byte 0x%02x at offset %zu is not in the vocabulary",
                          (unsigned char)text[i], i);
            throw std::runtime_error(buf);
        }
        ids.push_back(id);
    }
    return ids;
}

std::string CharTokenizer::decode(const std::vector<int>& ids) const {
    std::string s;
    s.reserve(ids.size());
    for (int id : ids) {
        if (id < 0 || id >= vocab_size())
            throw std::runtime_error("char tokenizer: id " + std::to_string(id) + " out of range");
        s.push_back(chars_[id]);
    }
    return s;
}

}  // namespace wl::gpt
