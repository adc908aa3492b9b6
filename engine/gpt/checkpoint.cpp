// checkpoint.cpp: see checkpoint.h.
#include "engine/gpt/checkpoint.h"

#include "engine/core/atomic_file.h"
#include "engine/core/fnv.h"
#include "engine/gpt/adamw.h"
#include "engine/gpt/gpt.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace wl::gpt {

namespace {

constexpr char kMagic[8] = {'W', 'L', 'G', 'P', 'T', 'C', 'K', 'P'};
constexpr uint32_t kVersion = 1;

uint64_t fnv1a64(const char* p, size_t n) {
    Fnv1a h;
    h.add(p, n);
    return h.value();
}

struct Writer {
    std::string b;
    template <class X>
    void put(const X& x) { b.append(reinterpret_cast<const char*>(&x), sizeof x); }
    void str(const std::string& s) { put(uint32_t(s.size())); b += s; }
    void floats(const std::vector<float>& v) { b.append(reinterpret_cast<const char*>(v.data()), v.size() * 4); }
};

struct Reader {
    const std::string& b;
    size_t pos;
    const std::string& path;
    void need(size_t n, const char* what) {
        if (pos + n > b.size() || pos + n < pos)
            throw CheckpointError(path + ": truncated checkpoint (while reading " + what + ")");
    }
    template <class X>
    X get(const char* what) {
        need(sizeof(X), what);
        X x;
        std::memcpy(&x, b.data() + pos, sizeof x);
        pos += sizeof x;
        return x;
    }
    std::string str(const char* what) {
        uint32_t n = get<uint32_t>(what);
        need(n, what);
        std::string s = b.substr(pos, n);
        pos += n;
        return s;
    }
    std::vector<float> floats(size_t n, const char* what) {
        if (n > (b.size() - pos) / 4) throw CheckpointError(path + ": truncated checkpoint (while reading " + what + ")");
        std::vector<float> v(n);
        std::memcpy(v.data(), b.data() + pos, n * 4);
        pos += n * 4;
        return v;
    }
};

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw CheckpointError(path + ": cannot open");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

std::string checkpoint_envelope(const std::string& payload) {
    Writer f;
    f.b.append(kMagic, 8);
    f.put(kVersion);
    f.put(uint64_t(payload.size()));
    f.b += payload;
    f.put(fnv1a64(payload.data(), payload.size()));
    return f.b;
}

std::string checkpoint_bytes(const GPT& model, const AdamW* opt, int64_t step, const std::string& tokenizer_kind,
                             const std::string& tokenizer_state) {
    Writer p;
    p.str(model.cfg.to_text());
    p.str(tokenizer_kind);
    p.str(tokenizer_state);
    p.put(int64_t(step));
    p.put(int64_t(opt ? opt->t : 0));
    p.put(uint64_t(model.num_parameters));
    bool has_opt = opt && opt->m.size() == model.num_parameters;
    p.put(uint8_t(has_opt));
    p.floats(model.params_memory);
    if (has_opt) {
        p.floats(opt->m);
        p.floats(opt->v);
    }
    return checkpoint_envelope(p.b);
}

void save_checkpoint(const std::string& path, const GPT& model, const AdamW* opt, int64_t step,
                     const std::string& tokenizer_kind, const std::string& tokenizer_state) {
    // A crash mid-save leaves the previous checkpoint, never half of one.
    std::string error;
    if (!write_file_atomically(path, checkpoint_bytes(model, opt, step, tokenizer_kind, tokenizer_state), &error))
        throw CheckpointError(error);
}

Checkpoint load_checkpoint(const std::string& path) { return parse_checkpoint(slurp(path), path); }

Checkpoint parse_checkpoint(const std::string& b, const std::string& path) {
    if (b.size() < 20 || std::memcmp(b.data(), kMagic, 8) != 0)
        throw CheckpointError(path + ": not a WaferLab GPT checkpoint (bad magic)");
    Reader h{b, 8, path};
    uint32_t version = h.get<uint32_t>("version");
    if (version != kVersion)
        throw CheckpointError(path + ": checkpoint version " + std::to_string(version) + ", this build reads " +
                              std::to_string(kVersion));
    uint64_t n = h.get<uint64_t>("payload size");
    if (b.size() < 28 || n != b.size() - 28)
        throw CheckpointError(path + ": size mismatch (header says " + std::to_string(n) + " payload bytes, file has " +
                              std::to_string(b.size() < 28 ? 0 : b.size() - 28) + "): truncated or extended");
    uint64_t want;
    std::memcpy(&want, b.data() + 20 + n, 8);
    if (fnv1a64(b.data() + 20, n) != want) throw CheckpointError(path + ": checksum mismatch (corrupt checkpoint)");

    std::string payload = b.substr(20, n);
    Reader r{payload, 0, path};
    Checkpoint ck;
    std::string cfg_text = r.str("config");
    try {
        // Checkpoints written before the YAML params files embed the flat `key = value` text.
        const bool flat = cfg_text.rfind("n_layer = ", 0) == 0;
        ck.cfg = flat ? parse_flat_config_text(cfg_text, path + " (embedded config)")
                      : parse_config_text(cfg_text, path + " (embedded config)");
    } catch (const ConfigError& e) {
        throw CheckpointError(e.what());
    }
    ck.tokenizer_kind = r.str("tokenizer kind");
    ck.tokenizer_state = r.str("tokenizer state");
    ck.step = r.get<int64_t>("step");
    ck.adam_t = r.get<int64_t>("adam step");
    uint64_t P = r.get<uint64_t>("parameter count");
    if (ck.cfg.vocab_size <= 0) throw CheckpointError(path + ": embedded config has no vocab_size");
    if (P != count_parameters(ck.cfg))
        throw CheckpointError(path + ": parameter count " + std::to_string(P) + " does not match its config (" +
                              std::to_string(count_parameters(ck.cfg)) + ")");
    uint8_t has_opt = r.get<uint8_t>("optimizer flag");
    ck.params = r.floats(P, "parameters");
    if (has_opt) {
        ck.m = r.floats(P, "Adam m");
        ck.v = r.floats(P, "Adam v");
    }
    if (r.pos != payload.size()) throw CheckpointError(path + ": trailing bytes in payload");
    return ck;
}

std::unique_ptr<GPT> model_from_checkpoint(const Checkpoint& ck, AdamW* opt) {
    auto model = std::make_unique<GPT>(ck.cfg);
    model->params_memory = ck.params;
    if (opt) {
        if (!ck.m.empty()) {
            opt->m = ck.m;
            opt->v = ck.v;
            opt->t = ck.adam_t;
        } else {
            *opt = AdamW(model->num_parameters);
        }
    }
    return model;
}

std::unique_ptr<GPT> import_llmc(const std::string& path) { return parse_llmc(slurp(path), path); }

std::unique_ptr<GPT> parse_llmc(const std::string& b, const std::string& path) {
    if (b.size() < 1024) throw CheckpointError(path + ": too short for llm.c's 256-int header");
    int32_t h[256];
    std::memcpy(h, b.data(), sizeof h);
    if (h[0] != 20240326) throw CheckpointError(path + ": bad magic " + std::to_string(h[0]) + " (llm.c's is 20240326)");
    if (h[1] != 1 && h[1] != 3)
        throw CheckpointError(path + ": llm.c version " + std::to_string(h[1]) + " (supported: 1, 3)");
    GPTConfig cfg;
    cfg.block_size = h[2];
    cfg.vocab_size = h[3];
    cfg.n_layer = h[4];
    cfg.n_head = h[5];
    cfg.n_embd = h[6];
    const int Vp = h[1] == 3 ? h[7] : h[3];
    if (cfg.block_size < 1 || cfg.vocab_size < 1 || cfg.n_layer < 1 || cfg.n_head < 1 || cfg.n_embd < 1 ||
        cfg.n_embd % cfg.n_head || Vp < cfg.vocab_size || cfg.n_embd > 65536 || cfg.n_layer > 1024 ||
        cfg.block_size > 1 << 20 || Vp > 1 << 24)
        throw CheckpointError(path + ": implausible header (maxT " + std::to_string(h[2]) + ", V " + std::to_string(h[3]) +
                              ", L " + std::to_string(h[4]) + ", NH " + std::to_string(h[5]) + ", C " +
                              std::to_string(h[6]) + ", Vp " + std::to_string(Vp) + ")");
    const size_t C = size_t(cfg.n_embd);
    const size_t P = count_parameters(cfg), Pp = P + (size_t(Vp) - size_t(cfg.vocab_size)) * C;
    if (b.size() != 1024 + Pp * 4)
        throw CheckpointError(path + ": expected " + std::to_string(1024 + Pp * 4) + " bytes for this header, found " +
                              std::to_string(b.size()));
    auto model = std::make_unique<GPT>(cfg);
    const char* src = b.data() + 1024;
    const size_t wte = size_t(cfg.vocab_size) * C;
    std::memcpy(model->params_memory.data(), src, wte * 4);                           // wte rows 0..V-1
    src += size_t(Vp) * C * 4;                                                        // skip padding rows
    std::memcpy(model->params_memory.data() + wte, src, (P - wte) * 4);               // wpe .. lnfb
    return model;
}

}  // namespace wl::gpt
