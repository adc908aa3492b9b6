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
