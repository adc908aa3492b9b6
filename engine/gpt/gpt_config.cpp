// gpt_config.cpp: see gpt_config.h. One table maps key -> member.
#include "engine/gpt/gpt_config.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

namespace wl::gpt {

namespace {

enum class Kind { Int, U64, Real, Text };

struct Field {
    const char* key;
    Kind kind;
    std::function<void*(GPTConfig&)> at;
};

const std::vector<Field>& fields() {
#define F(name, kind) Field{#name, kind, [](GPTConfig& c) -> void* { return &c.name; }}
    static const std::vector<Field> f = {
        F(n_layer, Kind::Int),        F(n_head, Kind::Int),          F(n_embd, Kind::Int),
        F(block_size, Kind::Int),     F(vocab_size, Kind::Int),      F(batch_size, Kind::Int),
        F(max_iters, Kind::Int),      F(learning_rate, Kind::Real),  F(min_lr, Kind::Real),
        F(warmup_iters, Kind::Int),   F(lr_decay_iters, Kind::Int),  F(weight_decay, Kind::Real),
        F(beta1, Kind::Real),         F(beta2, Kind::Real),          F(adam_eps, Kind::Real),
        F(grad_clip, Kind::Real),     F(eval_interval, Kind::Int),   F(eval_iters, Kind::Int),
        F(seed, Kind::U64),           F(tokenizer, Kind::Text),      F(corpus, Kind::Text),
        F(data, Kind::Text),          F(val_fraction, Kind::Real),   F(corpus_chars, Kind::Int),
        F(addition_digits, Kind::Int),
    };
#undef F
    return f;
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string prefix(const std::string& where) { return where.empty() ? "" : where + ": "; }

}  // namespace

std::vector<std::string> GPTConfig::keys() {
    std::vector<std::string> k;
    for (const Field& f : fields()) k.push_back(f.key);
    return k;
}

void GPTConfig::set(const std::string& key, const std::string& value, const std::string& where) {
    for (const Field& f : fields()) {
        if (key != f.key) continue;
        void* p = f.at(*this);
        const char* s = value.c_str();
        char* end = nullptr;
        errno = 0;
        switch (f.kind) {
        case Kind::Int: {
            long long v = std::strtoll(s, &end, 10);
            if (value.empty() || *end || errno || v < -2147483647LL || v > 2147483647LL)
                throw ConfigError(prefix(where) + key + " expects an integer, got '" + value + "'");
            *static_cast<int*>(p) = int(v);
            return;
        }
        case Kind::U64: {
            unsigned long long v = std::strtoull(s, &end, 10);
            if (value.empty() || value[0] == '-' || *end || errno)
                throw ConfigError(prefix(where) + key + " expects a non-negative integer, got '" + value + "'");
            *static_cast<uint64_t*>(p) = v;
            return;
        }
        case Kind::Real: {
            double v = std::strtod(s, &end);
            if (value.empty() || *end || errno || v != v)
                throw ConfigError(prefix(where) + key + " expects a number, got '" + value + "'");
            *static_cast<double*>(p) = v;
            return;
        }
        case Kind::Text:
            *static_cast<std::string*>(p) = value;
            return;
        }
    }
    std::string known;
    for (const Field& f : fields()) known += std::string(known.empty() ? "" : ", ") + f.key;
    throw ConfigError(prefix(where) + "unknown key '" + key + "' (known: " + known + ")");
}

void GPTConfig::validate(const std::string& where) const {
    auto fail = [&](const std::string& m) { throw ConfigError(prefix(where) + m); };
    if (n_layer < 1) fail("n_layer must be >= 1");
    if (n_head < 1) fail("n_head must be >= 1");
    if (n_embd < 1 || n_embd % n_head != 0) fail("n_embd must be a positive multiple of n_head");
    if (block_size < 1) fail("block_size must be >= 1");
    if (vocab_size < 0) fail("vocab_size must be >= 0 (0: from the tokenizer)");
    if (batch_size < 1) fail("batch_size must be >= 1");
    if (max_iters < 0) fail("max_iters must be >= 0");
    if (!(learning_rate >= 0) || !(min_lr >= 0)) fail("learning rates must be >= 0");
    if (warmup_iters < 0 || lr_decay_iters < 0) fail("warmup_iters and lr_decay_iters must be >= 0");
    if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) fail("beta1 and beta2 must be in [0, 1)");
    if (!(adam_eps > 0)) fail("adam_eps must be > 0");
    if (!(grad_clip >= 0)) fail("grad_clip must be >= 0");
    if (eval_interval < 1 || eval_iters < 1) fail("eval_interval and eval_iters must be >= 1");
    if (tokenizer != "char" && tokenizer != "bpe") fail("tokenizer must be 'char' or 'bpe', got '" + tokenizer + "'");
    if (corpus != "stories" && corpus != "addition" && corpus != "file")
        fail("corpus must be 'stories', 'addition' or 'file', got '" + corpus + "'");
    if (corpus == "file" && data.empty()) fail("corpus = file needs data = <path>");
    if (!(val_fraction > 0 && val_fraction < 1)) fail("val_fraction must be in (0, 1)");
    if (corpus_chars < 1000) fail("corpus_chars must be >= 1000");
    if (addition_digits < 1 || addition_digits > 9) fail("addition_digits must be in 1..9");
}

std::string GPTConfig::to_text() const {
    std::ostringstream o;
    o.precision(17);
    GPTConfig c = *this;
    for (const Field& f : fields()) {
        void* p = f.at(c);
        o << f.key << " = ";
        switch (f.kind) {
        case Kind::Int: o << *static_cast<int*>(p); break;
        case Kind::U64: o << *static_cast<uint64_t*>(p); break;
        case Kind::Real: o << *static_cast<double*>(p); break;
        case Kind::Text: o << *static_cast<std::string*>(p); break;
        }
        o << "\n";
    }
    return o.str();
}

GPTConfig parse_config_text(const std::string& text, const std::string& name) {
    GPTConfig c;
    std::istringstream in(text);
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        std::string where = name + ":" + std::to_string(lineno);
        if (auto h = line.find('#'); h != std::string::npos) line = line.substr(0, h);
        line = trim(line);
        if (line.empty()) continue;
        auto eq = line.find('=');
        if (eq == std::string::npos) throw ConfigError(where + ": expected 'key = value', got '" + line + "'");
        std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
        if (key.empty()) throw ConfigError(where + ": missing key before '='");
        c.set(key, value, where);
    }
    c.validate(name);
    return c;
}

GPTConfig load_config(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw ConfigError(path + ": cannot open config file");
    std::stringstream ss;
    ss << f.rdbuf();
    return parse_config_text(ss.str(), path);
}

}  // namespace wl::gpt
