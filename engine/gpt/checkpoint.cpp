// checkpoint.cpp: see checkpoint.h.
#include "engine/gpt/checkpoint.h"

#include "engine/core/read_file.h"

#include "engine/core/atomic_file.h"
#include "engine/core/byte_io.h"
#include "engine/core/fnv.h"
#include "engine/core/memory_limit.h"
#include "engine/gpt/adamw.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/tokenizer_char.h"
#include "engine/gpt/tokenizer.h"
#include "engine/core/parse_number.h"

#include <cmath>
#include <cstring>
#include <sys/stat.h>

namespace wl::gpt {

namespace {

constexpr char kMagic[8] = {'W', 'L', 'G', 'P', 'T', 'C', 'K', 'P'};
constexpr uint32_t kVersion = 1;
constexpr int kMaxPaddedVocab = 1 << 24;   // llm.c's Vp: V rounded up, so at most the vocabulary's range and some

uint64_t fnv1a64(const char* p, size_t n) {
    Fnv1a h;
    h.add(p, n);
    return h.value();
}

std::vector<float> get_floats(ByteReader& r, size_t n, const char* what) {
    if (n > r.left() / 4) throw ByteError(std::string("truncated (while reading ") + what + ")");
    std::vector<float> v(n);
    std::memcpy(v.data(), r.raw(n * 4, what).data(), n * 4);
    return v;
}

std::string slurp(const std::string& path, uint64_t limit, const char* what) {
    std::string bytes, error;
    if (!read_file(path, limit, what, &bytes, &error)) throw CheckpointError(error);
    return bytes;
}

// A checkpoint's bytes, its header read first: a file that is not one (/dev/zero, a text) is
// refused by its magic at once, and one that is reads no more than its header declares, and only
// if this machine could hold it.
std::string read_checkpoint_bytes(const std::string& path) {
    std::string head, error;
    if (!read_head(path, 20, "checkpoint", &head, &error)) throw CheckpointError(error);
    if (head.size() < 20) return slurp(path, 20, "checkpoint");   // parse_checkpoint says what is wrong
    if (std::memcmp(head.data(), kMagic, 8) != 0) throw CheckpointError(path + ": not a WaferLab GPT checkpoint (bad magic)");
    uint64_t payload = 0;
    std::memcpy(&payload, head.data() + 12, 8);
    const uint64_t whole = payload > kMaxCheckpointBytes ? UINT64_MAX : 28 + payload;
    if (whole > kMaxCheckpointBytes || whole > host_memory_limit())
        throw CheckpointError(path + ": its header declares " + byte_size_text(double(payload)) + " of weights and state; " +
                              (whole > kMaxCheckpointBytes ? "a checkpoint is at most " + byte_size_text(double(kMaxCheckpointBytes))
                                                           : "this machine allows " + byte_size_text(double(host_memory_limit()))));
    // A file reads whole, and parse_checkpoint's size check says if it is longer than declared; a
    // device or a pipe is read to one byte past the declared size, no further.
    struct stat st {};
    const bool file = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    return slurp(path, file ? kMaxCheckpointBytes : whole + 1, "checkpoint");
}

}  // namespace

// The envelope opens with the payload's size and closes with its checksum.
namespace {
// whole: the payload and the checksum will follow into the same buffer (reserved at once).
ByteWriter open_envelope(uint64_t payload_size, bool whole) {
    ByteWriter f;
    if (whole) f.reserve(8 + 4 + 8 + payload_size + 8);
    f.raw({kMagic, 8});
    f.u32(kVersion);
    f.u64(payload_size);
    return f;
}

std::string close_envelope(ByteWriter& f, size_t payload_at) {
    f.u64(fnv1a64(f.bytes().data() + payload_at, f.size() - payload_at));
    return f.take();
}
}  // namespace

std::string checkpoint_envelope(const std::string& payload) {
    ByteWriter f = open_envelope(payload.size(), true);
    const size_t at = f.size();
    f.raw(payload);
    return close_envelope(f, at);
}

namespace {
// The payload's fields before the floats, and the float arrays after them.
struct Payload {
    ByteWriter head;
    std::vector<std::string_view> floats;
    uint64_t size() const {
        uint64_t n = head.size();
        for (std::string_view f : floats) n += f.size();
        return n;
    }
};

std::string_view float_bytes(std::span<const float> v) { return {reinterpret_cast<const char*>(v.data()), v.size() * 4}; }

CheckpointState state_of(const GPT& model, const AdamW* opt) {
    CheckpointState s{model.params_memory, {}, {}, opt ? opt->t : 0};
    if (opt && opt->m.size() == model.num_parameters) s.m = opt->m, s.v = opt->v;
    return s;
}

Payload payload(const GPTConfig& cfg, const CheckpointState& s, int64_t step, const std::string& tokenizer_kind,
                const std::string& tokenizer_state) {
    const bool has_opt = !s.m.empty();
    if (s.params.size() != count_parameters(cfg) || (has_opt && (s.m.size() != s.params.size() || s.v.size() != s.params.size())))
        throw CheckpointError("checkpoint: " + std::to_string(s.params.size()) + " weights and " + std::to_string(s.m.size()) +
                              " moments for a model of " + std::to_string(count_parameters(cfg)) + " parameters");
    Payload p;
    ByteWriter& head = p.head;
    head.str(cfg.to_text());
    head.str(tokenizer_kind);
    head.str(tokenizer_state);
    head.put(int64_t(step));
    head.put(int64_t(s.adam_t));
    head.u64(s.params.size());
    head.u8(has_opt);
    p.floats.push_back(float_bytes(s.params));
    if (has_opt) {
        p.floats.push_back(float_bytes(s.m));
        p.floats.push_back(float_bytes(s.v));
    }
    return p;
}
}  // namespace

std::string checkpoint_bytes(const GPT& model, const AdamW* opt, int64_t step, const std::string& tokenizer_kind,
                             const std::string& tokenizer_state) {
    const Payload p = payload(model.cfg, state_of(model, opt), step, tokenizer_kind, tokenizer_state);
    ByteWriter f = open_envelope(p.size(), true);
    const size_t at = f.size();
    f.raw(p.head.bytes());
    for (std::string_view floats : p.floats) f.raw(floats);
    return close_envelope(f, at);
}

void save_checkpoint(const std::string& path, const GPT& model, const AdamW* opt, int64_t step,
                     const std::string& tokenizer_kind, const std::string& tokenizer_state) {
    save_checkpoint(path, model.cfg, state_of(model, opt), step, tokenizer_kind, tokenizer_state);
}

void save_checkpoint(const std::string& path, const GPTConfig& cfg, const CheckpointState& state, int64_t step,
                     const std::string& tokenizer_kind, const std::string& tokenizer_state) {
    // checkpoint_bytes' bytes, written in pieces from where they lie: GPT-2 small's weights and
    // moments are 1.5 GB, not copied into a buffer first. A crash mid-save leaves the previous
    // checkpoint, never half of one.
    const Payload p = payload(cfg, state, step, tokenizer_kind, tokenizer_state);
    ByteWriter head = open_envelope(p.size(), false), tail;
    Fnv1a h;
    h.add(p.head.bytes().data(), p.head.size());
    for (std::string_view floats : p.floats) h.add(floats.data(), floats.size());
    tail.u64(h.value());
    std::vector<std::string_view> pieces = {head.bytes(), p.head.bytes()};
    pieces.insert(pieces.end(), p.floats.begin(), p.floats.end());
    pieces.push_back(tail.bytes());
    std::string error;
    if (!write_file_atomically(path, pieces, &error)) throw CheckpointError(error);
}

Checkpoint load_checkpoint(const std::string& path) { return parse_checkpoint(read_checkpoint_bytes(path), path); }

// Every value of v finite, or a CheckpointError naming the first that is not.
static void require_finite(const std::vector<float>& v, const std::string& path, const char* what, const char* hint) {
    for (size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
            throw CheckpointError(path + ": " + what + " " + std::to_string(i) + " of " + std::to_string(v.size()) + " is " +
                                  (std::isnan(v[i]) ? "NaN" : "infinite") + hint);
}

// What a checkpoint says about itself, checked as it loads (a checksum proves only that the
// bytes are the ones written): counts not negative, every weight and moment finite, and a
// tokenizer whose vocabulary is the model's, so a load never leads to blank text or "id out of range".
static void validate(const Checkpoint& ck, const std::string& path) {
    if (ck.step < 0) throw CheckpointError(path + ": step " + std::to_string(ck.step) + " is negative");
    if (ck.adam_t < 0) throw CheckpointError(path + ": AdamW's step " + std::to_string(ck.adam_t) + " is negative");
    // No run gets further than runconfig.max_steps allows (its key's range, gpt_config.h).
    if (ck.step > kMaxSteps) throw CheckpointError(path + ": step " + std::to_string(ck.step) + " is past any run's (runconfig.max_steps is at most " + std::to_string(kMaxSteps) + ")");
    if (ck.adam_t > ck.step) throw CheckpointError(path + ": AdamW's step " + std::to_string(ck.adam_t) + " is past the run's step " + std::to_string(ck.step));
    const char* diverged = " (a checkpoint of a diverged run?)";
    require_finite(ck.params, path, "weight", diverged);
    require_finite(ck.m, path, "AdamW first moment", diverged);
    require_finite(ck.v, path, "AdamW second moment", diverged);
    for (size_t i = 0; i < ck.v.size(); ++i)   // a running mean of squares; AdamW takes its square root
        if (ck.v[i] < 0)
            throw CheckpointError(path + ": AdamW second moment " + std::to_string(i) + " of " + std::to_string(ck.v.size()) + " is negative (" +
                                  std::to_string(ck.v[i]) + "): a mean of squares cannot be");
    if (ck.cfg.tokenizer != ck.tokenizer_kind)
        throw CheckpointError(path + ": its config's train_input.tokenizer is " + quote_prefix(ck.cfg.tokenizer) + " but the tokenizer it holds is " +
                              quote_prefix(ck.tokenizer_kind));
    if (ck.tokenizer_kind == "char") {
        std::unique_ptr<CharTokenizer> t;
        try {
            t = std::make_unique<CharTokenizer>(ck.tokenizer_state);
        } catch (const std::exception& e) {
            throw CheckpointError(path + ": " + e.what());
        }
        try {
            require_same_vocab(*t, ck.cfg.vocab_size, path);
        } catch (const std::runtime_error& e) {
            throw CheckpointError(e.what());   // a CheckpointError, as every load error is
        }
    } else if (ck.tokenizer_kind == "bpe") {   // its files, read when the tokenizer is made, give its size
        const std::string& f = ck.tokenizer_state;   // empty (written before fingerprints) or 16 hex digits
        if (!f.empty() && (f.size() != 16 || f.find_first_not_of("0123456789abcdef") != std::string::npos))
            throw CheckpointError(path + ": its BPE vocabulary fingerprint " + quote_prefix(f) + " is not 16 hex digits");
    } else {
        throw CheckpointError(path + ": tokenizer " + quote_prefix(ck.tokenizer_kind) + " (expected char or bpe)");
    }
}

// The envelope's magic is checked; a read past the end is a ByteError.
static Checkpoint parse_checkpoint_checked(const std::string& b, const std::string& path) {
    ByteReader h(std::string_view(b).substr(8));
    uint32_t version = h.u32("version");
    if (version != kVersion)
        throw CheckpointError(path + ": checkpoint version " + std::to_string(version) + ", this build reads " +
                              std::to_string(kVersion));
    uint64_t n = h.u64("payload size");
    if (b.size() < 28 || n != b.size() - 28)
        throw CheckpointError(path + ": size mismatch (header says " + std::to_string(n) + " payload bytes, file has " +
                              std::to_string(b.size() < 28 ? 0 : b.size() - 28) + "): truncated or extended");
    uint64_t want;
    std::memcpy(&want, b.data() + 20 + n, 8);
    if (fnv1a64(b.data() + 20, n) != want) throw CheckpointError(path + ": checksum mismatch (corrupt checkpoint)");

    ByteReader r(std::string_view(b).substr(20, n));
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
    uint64_t P = r.u64("parameter count");
    if (ck.cfg.vocab_size <= 0) throw CheckpointError(path + ": embedded config has no vocab_size");
    if (P != count_parameters(ck.cfg))
        throw CheckpointError(path + ": parameter count " + std::to_string(P) + " does not match its config (" +
                              std::to_string(count_parameters(ck.cfg)) + ")");
    const uint8_t has_opt = r.u8("optimizer flag");
    if (has_opt > 1) throw CheckpointError(path + ": optimizer flag " + std::to_string(has_opt) + " is neither 0 nor 1");
    ck.params = get_floats(r, P, "parameters");
    if (has_opt) {
        ck.m = get_floats(r, P, "Adam m");
        ck.v = get_floats(r, P, "Adam v");
    }
    if (r.left()) throw CheckpointError(path + ": trailing bytes in payload");
    validate(ck, path);
    return ck;
}

Checkpoint parse_checkpoint(const std::string& b, const std::string& path) {
    if (b.size() < 8 ? std::memcmp(b.data(), kMagic, b.size()) != 0 || b.empty() : std::memcmp(b.data(), kMagic, 8) != 0)
        throw CheckpointError(path + ": not a WaferLab GPT checkpoint (bad magic)");
    if (b.size() < 28)   // the magic is right: a checkpoint cut short, not another kind of file
        throw CheckpointError(path + ": truncated checkpoint (" + std::to_string(b.size()) + " bytes; its header and checksum alone are 28)");
    try {
        return parse_checkpoint_checked(b, path);
    } catch (const ByteError& e) {
        throw CheckpointError(path + ": " + e.what() + " in the checkpoint");
    }
}

std::unique_ptr<Tokenizer> checkpoint_tokenizer(const Checkpoint& ck, const std::string& path, const std::string& bpe_dir) {
    std::unique_ptr<Tokenizer> t;
    try {
        t = make_tokenizer(ck.tokenizer_kind, ck.tokenizer_state, bpe_dir);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    require_same_vocab(*t, ck.cfg.vocab_size, path);
    return t;
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

void apply_checkpoint_overrides(Checkpoint& ck, const Overrides& overrides, const std::string& where, const std::string& path) {
    GPTConfig cfg = ck.cfg;
    apply_overrides(cfg, overrides, where);
    if (cfg.vocab_size == 0) cfg.vocab_size = ck.cfg.vocab_size;   // 0 is "from the tokenizer": the checkpoint's
    for (const ConfigDifference& d : config_differences(ck.cfg, cfg))
        if (d.path.rfind("model.", 0) == 0 || d.path == "train_input.tokenizer")
            throw ConfigError(where + ": " + d.path + " " + d.b + " cannot apply to " + path + ", whose weights are for " + d.path + " " + d.a +
                              " (a checkpoint fixes model.* and train_input.tokenizer)");
    ck.cfg = cfg;
}

static void parse_llmc_magic(std::string_view b, const std::string& path) {
    int32_t magic = 0;
    std::memcpy(&magic, b.data(), 4);
    if (magic != 20240326) throw CheckpointError(path + ": bad magic " + std::to_string(magic) + " (llm.c's is 20240326)");
}

std::unique_ptr<GPT> import_llmc(const std::string& path) {
    std::string head, error;   // its magic first, as a checkpoint's (/dev/zero is not 16 GiB of weights)
    if (!read_head(path, 4, "llm.c weights", &head, &error)) throw CheckpointError(error);
    if (head.size() == 4) parse_llmc_magic(head, path);
    return parse_llmc(slurp(path, kMaxCheckpointBytes, "llm.c weights"), path);
}

bool is_llmc_file(const std::string& path) {
    std::string head, error;
    int32_t magic = 0;
    if (!read_head(path, 4, "weights", &head, &error) || head.size() < 4) return false;
    std::memcpy(&magic, head.data(), 4);
    return magic == 20240326;
}

// The weights as the model of a config: GPT-2's tokenizer, the config's keys, its context.
static LlmcModel configured_llmc(std::unique_ptr<GPT> weights, const std::string& name,
                                 const std::function<void(GPTConfig*)>& configure, const std::string& bpe_dir) {
    LlmcModel m;
    m.model = std::move(weights);
    m.tokenizer = make_tokenizer("bpe", "", bpe_dir);
    require_same_vocab(*m.tokenizer, m.model->cfg.vocab_size, name + " (llm.c's weights are for GPT-2's tokenizer)");
    GPTConfig cfg = m.model->cfg;
    configure(&cfg);
    const int positions = m.model->maxT;
    m.model = with_context(*m.model, cfg);
    m.source = "llm.c weights " + name;
    if (m.model->maxT < positions) m.source += " (the first " + std::to_string(m.model->maxT) + " of its " + std::to_string(positions) + " positions)";
    return m;
}

LlmcModel llmc_model(const std::string& path, const std::function<void(GPTConfig*)>& configure, const std::string& bpe_dir) {
    return configured_llmc(import_llmc(path), path, configure, bpe_dir);
}

LlmcModel llmc_model_from_bytes(std::string bytes, const std::string& name, const std::function<void(GPTConfig*)>& configure,
                                const std::string& bpe_dir) {
    std::unique_ptr<GPT> weights = parse_llmc(bytes, name);
    std::string().swap(bytes);   // the file's bytes go before the shorter-context copy is made
    return configured_llmc(std::move(weights), name, configure, bpe_dir);
}

LlmcHeader parse_llmc_header(std::string_view b, const std::string& path) {
    if (b.size() >= 4) parse_llmc_magic(b, path);   // a file of another kind is named so, whatever its size
    if (b.size() < 1024) throw CheckpointError(path + ": too short for llm.c's 256-int header");
    int32_t h[256];
    std::memcpy(h, b.data(), sizeof h);
    if (h[1] != 1 && h[1] != 3)
        throw CheckpointError(path + ": llm.c version " + std::to_string(h[1]) + " (supported: 1, 3)");
    // The header's fields through the config's keys, so each is held to its key's range and rules
    // and an error names the field, the key and the limit.
    LlmcHeader out;
    GPTConfig& cfg = out.cfg;
    cfg.tokenizer = "bpe";   // llm.c's weights are GPT-2's, for its tokenizer
    const int Vp = h[1] == 3 ? h[7] : h[3];
    try {
        const std::pair<const char*, const char*> fields[] = {
            {"maxT", "model.block_size"}, {"V", "model.vocab_size"}, {"L", "model.n_layer"}, {"NH", "model.n_head"}, {"C", "model.n_embd"}};
        for (int k = 0; k < 5; ++k)
            cfg.set(fields[k].second, std::to_string(h[2 + k]), path + ": llm.c header field " + fields[k].first);
        if (cfg.vocab_size < 1) throw ConfigError(path + ": llm.c header field V: model.vocab_size 0 (the weights need a vocabulary)");
        cfg.validate(path + ": llm.c header (C " + std::to_string(h[6]) + ", NH " + std::to_string(h[5]) + ")");
    } catch (const ConfigError& e) {
        throw CheckpointError(e.what());
    }
    if (Vp < cfg.vocab_size || Vp > kMaxPaddedVocab)
        throw CheckpointError(path + ": llm.c header field Vp (the padded vocabulary) " + std::to_string(Vp) + " is outside V.." +
                              std::to_string(kMaxPaddedVocab) + " (V " + std::to_string(cfg.vocab_size) + ")");
    out.padded_vocab = Vp;
    const uint64_t C = uint64_t(cfg.n_embd);
    out.file_bytes = 1024 + (uint64_t(count_parameters(cfg)) + (uint64_t(Vp) - uint64_t(cfg.vocab_size)) * C) * 4;
    return out;
}

void check_llmc_size(const LlmcHeader& h, uint64_t bytes, const std::string& path) {
    if (bytes != h.file_bytes)
        throw CheckpointError(path + ": expected " + std::to_string(h.file_bytes) + " bytes for this header, found " + std::to_string(bytes));
}

std::unique_ptr<GPT> parse_llmc(std::string_view b, const std::string& path) {
    const LlmcHeader h = parse_llmc_header(b, path);
    check_llmc_size(h, b.size(), path);
    const GPTConfig& cfg = h.cfg;
    const size_t C = size_t(cfg.n_embd), P = count_parameters(cfg);
    auto model = std::make_unique<GPT>(cfg);
    const char* src = b.data() + 1024;
    const size_t wte = size_t(cfg.vocab_size) * C;
    std::memcpy(model->params_memory.data(), src, wte * 4);                           // wte rows 0..V-1
    src += size_t(h.padded_vocab) * C * 4;                                            // skip padding rows
    std::memcpy(model->params_memory.data() + wte, src, (P - wte) * 4);               // wpe .. lnfb
    require_finite(model->params_memory, path, "weight", " (llm.c's layout: wte, wpe, then each layer's tensors)");
    return model;
}

GPTConfig context_config(const GPTConfig& m, GPTConfig cfg) {
    if (cfg.vocab_size == 0) cfg.vocab_size = m.vocab_size;   // 0: the tokenizer's, which is the weights
    std::string differ;
    const auto check = [&](const char* key, int want, int have) {
        if (want != have) differ += std::string(differ.empty() ? "" : ", ") + key + " " + std::to_string(want) + " (the weights' " + std::to_string(have) + ")";
    };
    check("model.n_layer", cfg.n_layer, m.n_layer);
    check("model.n_head", cfg.n_head, m.n_head);
    check("model.n_embd", cfg.n_embd, m.n_embd);
    check("model.vocab_size", cfg.vocab_size, m.vocab_size);
    if (cfg.tokenizer != m.tokenizer) differ += std::string(differ.empty() ? "" : ", ") + "train_input.tokenizer " + cfg.tokenizer + " (the weights' " + m.tokenizer + ")";
    if (!differ.empty()) throw std::invalid_argument("the config's shape is not the weights': " + differ);
    if (cfg.block_size < 1 || cfg.block_size > m.block_size)
        throw std::invalid_argument("model.block_size " + std::to_string(cfg.block_size) + " is outside 1.." +
                                    std::to_string(m.block_size) + ", the positions the weights have");
    return cfg;
}

std::unique_ptr<GPT> with_context(const GPT& model, GPTConfig cfg) {
    const GPTConfig& m = model.cfg;
    cfg = context_config(m, std::move(cfg));
    auto out = std::make_unique<GPT>(cfg);
    const std::vector<ParamInfo> from = param_infos(m), to = param_infos(cfg);
    size_t a = 0, b = 0;
    for (size_t i = 0; i < from.size(); i++) {   // wpe keeps its first rows; the rest are the same size
        std::copy_n(model.params_memory.data() + a, to[i].count, out->params_memory.data() + b);
        a += from[i].count;
        b += to[i].count;
    }
    return out;
}

}  // namespace wl::gpt
