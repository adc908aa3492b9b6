// gpt_config.cpp: see gpt_config.h. WL_CONFIG_KEYS becomes the field table every
// reader here uses; yaml-cpp reads the files, we convert the scalars ourselves with
// engine/core/parse_number.h (the parser the CLI's flags use), each against its key's range.
#include "engine/gpt/gpt_config.h"

#include "engine/core/line_ends.h"
#include "engine/core/read_file.h"

#include "engine/fabric/mesh.h"
#include "engine/fabric/wafer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <sstream>

namespace wl::gpt {

namespace {

enum class Kind { Int, U64, Real, Text, Execution };

struct Field {
    const char* section;
    const char* key;
    const char* member;   // the flat format's name
    Kind kind;
    NumberRange range;
    void* (*at)(GPTConfig&);
    const char* help;
    std::string path() const { return std::string(section) + "." + key; }
};

const std::vector<Field>& fields() {
#define WL_FIELD(section, key, member, kind, range, help) \
    Field{#section, #key, #member, Kind::kind, NumberRange::range, [](GPTConfig& c) -> void* { return &c.member; }, help},
    static const std::vector<Field> f = {WL_CONFIG_KEYS(WL_FIELD)};
#undef WL_FIELD
    return f;
}

const char* kind_name(Kind k) {
    switch (k) {
    case Kind::Int: return "integer";
    case Kind::U64: return "non-negative integer";
    case Kind::Real: return "number";
    case Kind::Text: case Kind::Execution: return "text";
    }
    return "?";
}

std::string prefix(const std::string& where) { return where.empty() ? "" : where + ": "; }

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); j++) row[j] = j;
    for (size_t i = 1; i <= a.size(); i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); j++) {
            size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

// The known path nearest to an unknown one: the same key (or a flat-format name) in
// another section first, then the smallest edit distance if it is close enough.
std::string nearest_path(const std::string& path) {
    if (path.size() > 200) return "";   // no key is that long; the edit distance would take minutes
    const std::string key = path.substr(path.find('.') == std::string::npos ? 0 : path.find('.') + 1);
    for (const Field& f : fields())
        if (key == f.key || key == f.member) return f.path();
    std::string best;
    size_t best_d = std::string::npos;
    for (const Field& f : fields()) {
        size_t d = edit_distance(path, f.path());
        if (d < best_d) best_d = d, best = f.path();
    }
    return best_d <= std::max<size_t>(2, path.size() / 3) ? best : "";
}

std::string unknown_key(const std::string& path) {
    std::string near = nearest_path(path);
    return (path.size() > 60 ? quote_prefix(path) : path) + ": unknown key" + (near.empty() ? " (docs/configs.md lists the keys)" : "; did you mean " + near + "?");
}

const Field* find(const std::string& path) {
    for (const Field& f : fields())
        if (path == f.path()) return &f;
    return nullptr;
}

// One scalar into the member, parsed whole in its type and range; the message names the key and
// what was expected, and quotes at most the start of a long value.
void assign(const Field& f, GPTConfig& c, const std::string& value, const std::string& where) {
    void* p = f.at(c);
    std::string want;
    // An integer with a leading 0 (010) is 8 to a YAML 1.1 reader (PyYAML, which reads ModelZoo's
    // configs) and 10 to a YAML 1.2 one: neither here, as in the kernel language.
    if (f.kind == Kind::Int || f.kind == Kind::U64) {
        const std::string t = trim(value);
        const size_t d = !t.empty() && (t[0] == '-' || t[0] == '+') ? 1 : 0;
        if (t.size() > d + 1 && t[d] == '0' && t.find_first_not_of("0123456789", d) == std::string::npos) {
            const size_t first = std::min(t.find_first_not_of('0', d), t.size() - 1);
            throw ConfigError(prefix(where) + f.path() + ": " + quote_prefix(t) + " has a leading 0, which YAML 1.1 readers (PyYAML) take as octal; write " +
                              t.substr(0, d) + t.substr(first));
        }
    }
    switch (f.kind) {
    case Kind::Int: {
        long long v = 0;
        const NumberRange r{std::max(f.range.lo, double(INT32_MIN)), std::min(f.range.hi, double(INT32_MAX)), false, false};
        if ((want = parse_integer(value, f.range.bounded() ? f.range : r, &v)).empty()) *static_cast<int*>(p) = int(v);
        break;
    }
    case Kind::U64: {
        uint64_t v = 0;
        if ((want = parse_u64(value, &v)).empty()) *static_cast<uint64_t*>(p) = v;
        break;
    }
    case Kind::Real: {
        double v = 0;
        if ((want = parse_real(value, f.range, &v)).empty()) *static_cast<double*>(p) = v;
        break;
    }
    case Kind::Text:
        for (unsigned char ch : value)
            if (ch < 0x20 || ch == 0x7f)
                throw ConfigError(prefix(where) + f.path() + ": expected text without control characters");
        *static_cast<std::string*>(p) = value;
        return;
    case Kind::Execution:
        if (!execution_from_name(value, static_cast<Execution*>(p)))
            throw ConfigError(prefix(where) + f.path() + " must be resident or streaming, got " + quote_prefix(value));
        return;
    }
    if (!want.empty()) throw ConfigError(prefix(where) + f.path() + ": expected " + want + ", got " + quote_prefix(value));
}

// A number key's value as a double, for its range check.
double number_of(const Field& f, const GPTConfig& cfg) {
    GPTConfig c = cfg;
    void* p = f.at(c);
    switch (f.kind) {
    case Kind::Int: return *static_cast<int*>(p);
    case Kind::U64: return double(*static_cast<uint64_t*>(p));
    case Kind::Real: return *static_cast<double*>(p);
    case Kind::Text: case Kind::Execution: break;
    }
    return 0;
}

std::string value_text(const Field& f, const GPTConfig& cfg) {
    GPTConfig c = cfg;
    void* p = f.at(c);
    std::ostringstream o;
    o.precision(17);
    switch (f.kind) {
    case Kind::Int: o << *static_cast<int*>(p); break;
    case Kind::U64: o << *static_cast<uint64_t*>(p); break;
    case Kind::Real: o << *static_cast<double*>(p); break;
    case Kind::Text: o << *static_cast<std::string*>(p); break;
    case Kind::Execution: o << execution_name(*static_cast<Execution*>(p)); break;
    }
    return o.str();
}

std::string place(const std::string& name, const YAML::Mark& m) {
    return name + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

const char* node_kind(const YAML::Node& n) {
    switch (n.Type()) {
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Null: return "nothing";
    default: return "a scalar";
    }
}

bool is_section(const std::string& s) {
    for (const Field& f : fields())
        if (s == f.section) return true;
    return false;
}

// Range and name checks. fail(path, message) throws, placed at that key when the caller knows where it is.
void check(const GPTConfig& c, const std::function<void(const char*, const std::string&)>& fail) {
    for (const Field& f : fields()) {   // each number in its key's range (a config built in code, or a checkpoint's)
        if (f.kind == Kind::Text || f.kind == Kind::Execution || !f.range.bounded()) continue;
        const double v = number_of(f, c);
        if (!f.range.contains(v)) {
            std::ostringstream o;
            o.precision(17);
            o << v;
            fail(f.path().c_str(), "must be in " + f.range.text() + ", got " + o.str());   // fail throws: the path outlives it
        }
    }
    if (c.n_embd % c.n_head != 0) fail("model.n_embd", "must be a positive multiple of model.n_head");
    if (c.tokenizer != "char" && c.tokenizer != "bpe") fail("train_input.tokenizer", "must be char or bpe, got " + quote_prefix(c.tokenizer));
    if (c.corpus != "stories" && c.corpus != "addition" && c.corpus != "file")
        fail("train_input.corpus", "must be stories, addition or file, got " + quote_prefix(c.corpus));
    if (c.corpus == "file" && c.data.empty()) fail("train_input.data", "corpus: file needs data: <path>");
    std::string opt = c.optimizer_type;
    std::transform(opt.begin(), opt.end(), opt.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (opt != "adamw") fail("optimizer.optimizer_type", "must be AdamW, got " + quote_prefix(c.optimizer_type));
    Mesh m;
    if (!parse_mesh(c.mesh, &m)) fail("wafer.mesh", mesh_error(c.mesh));
    if (!find_machine_profile(c.arch)) fail("wafer.arch", "must be " + machine_profile_list() + ", got " + quote_prefix(c.arch));
    if (c.mode != "fast" && c.mode != "cycle") fail("wafer.mode", "must be fast or cycle, got " + quote_prefix(c.mode));
    if (c.schedule != "pipelined" && c.schedule != "sequential")
        fail("wafer.schedule", "must be pipelined or sequential, got " + quote_prefix(c.schedule));
    else if (c.schedule == "pipelined" && c.execution == Execution::Streaming)   // it would run sequential without a word
        fail("wafer.schedule", "pipelined does not apply to wafer.execution streaming: a streamed model runs one layer at a time, "
                               "its ops one after another (sequential); give one");
    if (c.sequences_in_flight > 1 && c.schedule != "pipelined")   // columns no schedule would use
        fail("wafer.sequences_in_flight", "more than 1 needs wafer.schedule pipelined: the sequential schedule takes a batch's "
                                          "sequences one after another");
}

}  // namespace

const char* execution_name(Execution e) { return e == Execution::Streaming ? "streaming" : "resident"; }

bool execution_from_name(const std::string& s, Execution* out) {
    if (s == "resident") return *out = Execution::Resident, true;
    if (s == "streaming") return *out = Execution::Streaming, true;
    return false;
}

std::vector<std::string> GPTConfig::keys() {
    std::vector<std::string> k;
    for (const Field& f : fields()) k.push_back(f.path());
    return k;
}

void GPTConfig::set(const std::string& path, const std::string& value, const std::string& where) {
    const Field* f = find(path);
    if (!f) throw ConfigError(prefix(where) + unknown_key(path));
    assign(*f, *this, value, where);
}

void GPTConfig::validate(const std::string& where) const {
    check(*this, [&](const char* path, const std::string& m) { throw ConfigError(prefix(where) + path + " " + m); });
}

// Written by hand, not with YAML::Emitter: the emitter's statics crash the WASM build at exit.
// Text is always double-quoted (never read back as a number or null); set() refuses control
// characters, so escaping \\ and " is all it needs.
std::string GPTConfig::to_text() const {
    std::string out, section;
    for (const Field& f : fields()) {
        if (section != f.section) {
            section = f.section;
            out += section + ":\n";
        }
        std::string v = value_text(f, *this);
        if (f.kind == Kind::Text || f.kind == Kind::Execution) {
            std::string q = "\"";
            for (char ch : v) {
                if (ch == '\\' || ch == '"') q += '\\';
                q += ch;
            }
            v = q + "\"";
        }
        out += "  " + std::string(f.key) + ": " + v + "\n";
    }
    return out;
}

GPTConfig parse_config_text(const std::string& text, const std::string& name, bool empty_ok) {
    const std::string lf = lone_cr_as_lf(text);   // yaml-cpp does not end a line at a lone CR: an old Mac file would be one comment line
    // A NUL is no YAML character; yaml-cpp reads one as the end of its line and blames the next.
    if (const size_t nul = lf.find('\0'); nul != std::string::npos) {
        const size_t line_start = lf.rfind('\n', nul) == std::string::npos ? 0 : lf.rfind('\n', nul) + 1;
        const long line = 1 + std::count(lf.begin(), lf.begin() + long(line_start), '\n');
        throw ConfigError(name + ":" + std::to_string(line) + ":" + std::to_string(nul - line_start + 1) + ": a NUL byte: a config is text (is this a binary file?)");
    }
    YAML::Node root;
    try {
        const std::vector<YAML::Node> docs = YAML::LoadAll(lf);
        if (docs.size() > 1)   // the second would be dropped without a word
            throw ConfigError(place(name, docs[1].Mark()) + ": a second YAML document (after ---); a config is one");
        if (!docs.empty()) root = docs[0];
    } catch (const YAML::Exception& e) {   // yaml-cpp says "bad file" where its nesting limit stops it
        throw ConfigError(place(name, e.mark) + ": " +
                          (e.msg == YAML::ErrorMsg::BAD_FILE ? "nested too deep (a config is sections of keys: two levels)" : e.msg));
    }
    GPTConfig c;
    std::map<std::string, std::string> at;   // path -> where it was set, for validate's messages
    if (root.IsNull()) {
        if (!empty_ok)
            throw ConfigError(name + ": the config is empty: it sets no section (model:, train_input:, optimizer:, runconfig:, wafer:); "
                                     "models/gpt-nano.yaml is one to start from");
        c.validate(name);
        return c;
    }
    if (!root.IsMap())
        throw ConfigError(place(name, root.Mark()) + ": expected sections (model:, train_input:, optimizer:, runconfig:, "
                          "wafer:), got " + node_kind(root));
    std::map<std::string, int> seen_sections;
    for (auto s = root.begin(); s != root.end(); ++s) {
        const YAML::Node sk = s->first;   // copies: the iterator's -> is a proxy that dies here
        const YAML::Node sv = s->second;
        if (!sk.IsScalar()) throw ConfigError(place(name, sk.Mark()) + ": a section name must be a plain word");
        const std::string section = sk.Scalar();
        if (!is_section(section)) {
            std::string guess;   // the nearest section, through the first key if it has one
            if (sv.IsMap() && sv.size() > 0 && sv.begin()->first.IsScalar())
                guess = nearest_path(section + "." + sv.begin()->first.Scalar());
            std::string msg = (section.size() > 60 ? quote_prefix(section) : section) + ": unknown section";
            if (!guess.empty()) msg += "; did you mean " + guess.substr(0, guess.find('.')) + "?";
            else msg += " (model, train_input, optimizer, runconfig, wafer)";
            throw ConfigError(place(name, sk.Mark()) + ": " + msg);
        }
        if (seen_sections.count(section))
            throw ConfigError(place(name, sk.Mark()) + ": " + section + ": section given twice (first at line " +
                              std::to_string(seen_sections[section]) + ")");
        seen_sections[section] = sk.Mark().line + 1;
        if (sv.IsNull()) continue;
        if (!sv.IsMap())
            throw ConfigError(place(name, sv.Mark()) + ": " + section + ": expected keys (key: value), got " + node_kind(sv));
        for (auto k = sv.begin(); k != sv.end(); ++k) {
            const YAML::Node kk = k->first;
            const YAML::Node kv = k->second;
            if (!kk.IsScalar()) throw ConfigError(place(name, kk.Mark()) + ": " + section + ": a key must be a plain word");
            const std::string path = section + "." + kk.Scalar();
            const Field* f = find(path);
            if (!f) throw ConfigError(place(name, kk.Mark()) + ": " + unknown_key(path));
            if (at.count(path)) throw ConfigError(place(name, kk.Mark()) + ": " + path + ": given twice (first at " + at[path] + ")");
            const std::string where = place(name, kk.Mark());
            if (!kv.IsScalar())
                throw ConfigError(place(name, kv.IsNull() ? kk.Mark() : kv.Mark()) + ": " + path + ": expected " +
                                  (f->kind == Kind::Int ? "an " : "a ") + kind_name(f->kind) + ", got " + node_kind(kv));
            if (kv.Tag() != "?" && kv.Tag() != "!")   // plain and quoted scalars; a tag (!custom 3) would be dropped unsaid
                throw ConfigError(place(name, kv.Mark()) + ": " + path + ": the YAML tag " + quote_prefix(kv.Tag()) + " is not one a config reads");
            assign(*f, c, kv.Scalar(), place(name, kv.Mark()));
            at[path] = where;
        }
    }
    check(c, [&](const char* path, const std::string& m) {
        auto it = at.find(path);
        throw ConfigError((it != at.end() ? it->second : name) + ": " + path + " " + m);
    });
    if (!empty_ok) {   // a file a user wrote: a key its corpus never reads is a mistake to say (not in a checkpoint's, which holds every key)
        std::vector<std::string> keys;
        for (const auto& [path, where] : at) keys.push_back(path);
        if (const std::string why = corpus_key_unread(c, keys); !why.empty()) throw ConfigError(at[why.substr(0, why.find(':'))] + ": " + why);
    }
    return c;
}

GPTConfig load_config(const std::string& path) {
    std::string text, error;
    if (!read_file(path, kMaxSourceBytes, "config", &text, &error)) throw ConfigError(error);
    return parse_config_text(text, path_in_message(path), false);
}

GPTConfig parse_flat_config_text(const std::string& text, const std::string& name) {
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
        const Field* f = nullptr;
        for (const Field& x : fields())
            if (key == x.member) f = &x;
        if (!f) throw ConfigError(where + ": unknown key '" + key + "'");
        assign(*f, c, value, where);
    }
    c.validate(name);
    return c;
}

Overrides parse_overrides(const std::string& text, const std::string& where) {
    std::string all = text;
    std::replace(all.begin(), all.end(), '\n', ',');
    std::istringstream in(all);
    Overrides out;
    for (std::string kv; std::getline(in, kv, ',');) {
        if (trim(kv).empty()) continue;
        auto eq = kv.find('=');
        if (eq == std::string::npos) throw ConfigError(prefix(where) + "expected key=value, got " + quote_prefix(kv));
        const Override o{trim(kv.substr(0, eq)), trim(kv.substr(eq + 1))};
        // A key given twice with two values: the first would be dropped without a word (as a value flag given twice is refused).
        for (const Override& e : out)
            if (e.key == o.key && e.value != o.value)
                throw ConfigError(prefix(where) + o.key + " is set twice (" + quote_prefix(e.value) + " and " + quote_prefix(o.value) + "); give it once");
        out.push_back(o);
    }
    return out;
}

void apply_overrides(GPTConfig& cfg, const Overrides& overrides, const std::string& where) {
    std::vector<std::string> keys;
    for (const Override& o : overrides) {
        cfg.set(o.key, o.value, where);
        keys.push_back(o.key);
    }
    cfg.validate(where);
    if (const std::string why = corpus_key_unread(cfg, keys); !why.empty()) throw ConfigError(prefix(where) + why);
}

std::string corpus_key_unread(const GPTConfig& c, const std::vector<std::string>& keys) {
    const auto given = [&](const char* k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
    const std::string corpus = "train_input.corpus is '" + c.corpus + "'";
    if (given("train_input.data") && c.corpus != "file")
        return "train_input.data: " + corpus + ", which reads no file (train_input.corpus: file, or --data, trains on one)";
    if (given("train_input.corpus_chars") && c.corpus == "file")
        return "train_input.corpus_chars: " + corpus + ": a text file is its own size (corpus_chars sizes a generated corpus)";
    if (given("train_input.addition_digits") && c.corpus != "addition")
        return "train_input.addition_digits: " + corpus + ": only the addition corpus has operands";
    return "";
}

void apply_overrides(GPTConfig& cfg, const std::string& overrides, const std::string& where) {
    apply_overrides(cfg, parse_overrides(overrides, where), where);
}

const wl::MachineProfile& machine_profile_of(const GPTConfig& c) {
    if (const wl::MachineProfile* p = find_machine_profile(c.arch)) return *p;
    throw ConfigError("wafer.arch must be " + machine_profile_list() + ", got " + quote_prefix(c.arch));
}

std::vector<ConfigDifference> config_differences(const GPTConfig& a, const GPTConfig& b) {
    std::vector<ConfigDifference> out;
    for (const Field& f : fields()) {
        if (f.path() == "model.vocab_size" && (a.vocab_size == 0 || b.vocab_size == 0)) continue;
        std::string va = value_text(f, a), vb = value_text(f, b);
        if (va != vb) out.push_back({f.path(), va, vb});
    }
    return out;
}

const std::vector<ConfigKeyInfo>& config_key_table() {
    static const std::vector<ConfigKeyInfo> t = [] {
        std::vector<ConfigKeyInfo> rows;
        const GPTConfig defaults;
        for (const Field& f : fields())
            rows.push_back({f.path(), kind_name(f.kind), f.range.bounded() ? f.range.text() : "", value_text(f, defaults), f.help});
        return rows;
    }();
    return t;
}

std::string config_keys_markdown() {
    std::string s = "| key | type | range | default | what it sets |\n|---|---|---|---|---|\n";
    for (const ConfigKeyInfo& k : config_key_table())
        s += "| `" + k.path + "` | " + k.type + " | " + (k.range.empty() ? "" : k.range) + " | " + (k.fallback.empty() ? "(empty)" : "`" + k.fallback + "`") + " | " +
             k.help + " |\n";
    return s;
}

}  // namespace wl::gpt
