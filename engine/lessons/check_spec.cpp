// check_spec.cpp: the check.txt reader (format in check_spec.h).
#include "engine/lessons/check_spec.h"

#include "engine/core/line_ends.h"
#include "engine/core/parse_number.h"
#include "engine/fabric/mesh.h"
#include "engine/lang/run.h"
#include "engine/gpu/gpu_preset.h"
#include "engine/model/sparsity.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace wl::lessons {

namespace {

std::string trim(std::string_view s) {
    size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
    return std::string(s.substr(a, b - a));
}

// '#' starts a comment, except inside free text (hint, when-wrong), where it is kept.
std::string strip_comment(const std::string& s) {
    const size_t h = s.find('#');
    return trim(h == std::string::npos ? s : s.substr(0, h));
}

// Numbers go through the engine's one parser (engine/core/parse_number.h): no NaN, no infinity,
// no wrap, the whole word. "" or the message's tail: "expects an integer in 1..10000, got '0.5'".
// integer_word: wl::integer_or_why into the field's own type.
template <class T>
std::string integer_word(const std::string& s, const wl::NumberRange& r, T* out) {
    long long v = 0;
    std::string why = wl::integer_or_why(s, r, &v);
    if (why.empty()) *out = T(v);
    return why;
}

constexpr double kMaxCycles = double(wl::lang::kMaxCycleBudget);

// "y @ (3,0): 2 4 6 8" -> symbol, x, y, values. Returns an error message or "".
std::string parse_expect(const std::string& rest, ExpectLine* e) {
    const size_t at = rest.find('@');
    const size_t open = rest.find('(');
    const size_t comma = rest.find(',');
    const size_t close = rest.find(')');
    const size_t colon = rest.find(':', close == std::string::npos ? 0 : close);
    if (at == std::string::npos || open == std::string::npos || comma == std::string::npos ||
        close == std::string::npos || colon == std::string::npos || !(at < open && open < comma && comma < close))
        return "expect needs the form 'expect NAME @ (X,Y): V1 V2 ...'";
    e->symbol = trim(rest.substr(0, at));
    if (e->symbol.empty()) return "expect: the symbol name is missing before '@'";
    const wl::NumberRange side = wl::NumberRange::closed(0, wl::kMaxMeshSide - 1);
    const std::string bad = integer_word(trim(rest.substr(open + 1, comma - open - 1)), side, &e->x) + integer_word(trim(rest.substr(comma + 1, close - comma - 1)), side, &e->y);
    if (!bad.empty()) return "expect: the PE is two whole numbers, as in (3,0): " + bad;
    std::istringstream vs(rest.substr(colon + 1));
    std::string tok;
    while (vs >> tok) {
        double v = 0;
        if (const std::string err = wl::real_or_why(tok, wl::NumberRange::any(), &v); !err.empty()) return "expect: a value " + err;
        e->values.push_back(v);
    }
    if (e->values.empty()) return "expect: no values after ':'";
    return "";
}

// A word of a train or forward line given twice would leave one of its values unread: "" or the error.
std::string given_twice(const char* line, const std::string& key, const std::string& val, std::map<std::string, std::string>* given) {
    const auto [at, fresh] = given->emplace(key, val);
    if (fresh) return "";
    return std::string(line) + ": " + key + " is given twice ('" + at->second + "' and '" + val + "'); give it once";
}

// "tiny.yaml steps 20 kernel crossentropy.wk [mesh 8x8]" -> t. Returns an error message or "".
std::string parse_train(const std::string& rest, TrainSpec* t) {
    const char* form = "train needs the form 'train CONFIG steps N kernel FILE.wk [mesh WxH]'";
    std::istringstream in(rest);
    std::string key, val;
    if (!(in >> t->config)) return form;
    std::map<std::string, std::string> given;
    while (in >> key) {
        if (!(in >> val)) return form;
        if (const std::string why = given_twice("train", key, val, &given); !why.empty()) return why;
        if (key == "steps") {
            if (const std::string err = integer_word(val, wl::NumberRange::closed(1, 10000), &t->steps); !err.empty()) return "train: steps " + err;
        } else if (key == "kernel") {
            if (val.size() < 4 || val.compare(val.size() - 3, 3, ".wk") != 0 || val.find('/') != std::string::npos)
                return "train: kernel needs a file name of models/kernels, as in gelu.wk";
            t->kernel = val;
        } else if (key == "mesh") {
            wl::Mesh m;
            if (!wl::parse_mesh(val, &m)) return "train: mesh " + wl::mesh_error(val);
            t->mesh_w = m.w, t->mesh_h = m.h;
        } else {
            return "train: unknown word '" + key + "' (" + form + ")";
        }
    }
    if (t->steps == 0 || t->kernel.empty()) return form;
    return "";
}

// "tiny.yaml kernel matmul.wk [mesh 8x8] [execution streaming] [sparsity 0.75]" -> f. An error message or "".
std::string parse_forward(const std::string& rest, ForwardSpec* f) {
    const char* form = "forward needs the form 'forward CONFIG kernel FILE.wk [mesh WxH] [execution resident|streaming] [sparsity S]'";
    std::istringstream in(rest);
    std::string key, val;
    if (!(in >> f->config) || f->config == "kernel") return form;
    std::map<std::string, std::string> given;
    while (in >> key) {
        if (!(in >> val)) return form;
        if (const std::string why = given_twice("forward", key, val, &given); !why.empty()) return why;
        if (key == "kernel") {
            if (val.size() < 4 || val.compare(val.size() - 3, 3, ".wk") != 0 || val.find('/') != std::string::npos)
                return "forward: kernel needs a file name of models/kernels, as in matmul.wk";
            f->kernel = val;
        } else if (key == "mesh") {
            wl::Mesh m;
            if (!wl::parse_mesh(val, &m)) return "forward: mesh " + wl::mesh_error(val);
            f->mesh_w = m.w, f->mesh_h = m.h;
        } else if (key == "execution") {
            wl::gpt::Execution e;
            if (!wl::gpt::execution_from_name(val, &e)) return "forward: execution is resident or streaming";
            f->execution = e;
        } else if (key == "sparsity") {
            if (const std::string err = wl::real_or_why(val, wl::NumberRange{0, wl::model::kMaxSparsity, true, false}, &f->sparsity); !err.empty())
                return "forward: sparsity " + err;
        } else {
            return "forward: unknown word '" + key + "' (" + form + ")";
        }
    }
    if (f->kernel.empty()) return form;
    if (f->sparsity > 0 && f->execution == wl::gpt::Execution::Streaming)
        return "forward: sparsity with execution streaming: the planner streams dense weights only";
    return "";
}

}  // namespace

std::string value_key(const std::string& symbol, int x, int y) {
    return symbol + "@" + std::to_string(x) + "," + std::to_string(y);
}

CheckSpec parse_check_spec(std::string_view text, std::vector<SpecError>* errors) {
    CheckSpec spec;
    std::istringstream in{wl::lone_cr_as_lf(text)};
    std::string raw;
    int n = 0;
    std::string key;   // the directive of the line being read ("cycles below" apart from "cycles")
    auto fail = [&](std::string msg) {
        if (errors) errors->push_back({n, std::move(msg)});
    };
    // What a when-wrong line advises on; Rejected: a line already reported, whose advice goes nowhere.
    enum class Advised { None, Expect, Loss, Logits, Cycles, Rejected } advised = Advised::None;
    int advice_line = 0;   // the when-wrong already given for it (0: none)
    // The directives of rejected lines. Each still counts as given for the rules about which lines
    // need which, so its own error is the one said, not "loss below needs a train line" beside a
    // train line the author can see (as a rejected grid counts as given in a kernel).
    std::set<std::string> rejected;
    auto advise = [&](Advised a) { advised = a, advice_line = 0; };
    auto reject = [&](std::string msg) {
        fail(std::move(msg));
        rejected.insert(key);
        if (key == "expect" || key == "loss" || key == "logits" || key == "cycles below") advise(Advised::Rejected);
    };
    // The line each once-only directive was first given on: a second would silently replace it.
    std::map<std::string, int> first;
    auto once = [&](const std::string& what) {
        const auto [at, fresh] = first.emplace(what, n);
        if (!fresh) reject(what + " is given twice (the first is line " + std::to_string(at->second) + "); give it once");
        return fresh;
    };
    while (std::getline(in, raw)) {
        ++n;
        const std::string line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        const size_t sp = line.find_first_of(" \t");
        const std::string word = line.substr(0, sp);
        const std::string rest = sp == std::string::npos ? "" : trim(line.substr(sp));
        const std::string arg = strip_comment(rest);
        key = word == "cycles" && arg.compare(0, 5, "below") == 0 ? "cycles below" : word;
        // A control byte (a NUL, an escape) would reach the student's screen inside a hint: said at its column.
        if (const auto c = std::find_if(raw.begin(), raw.end(), [](char ch) { return (unsigned char)ch < 0x20 && ch != '\t' && ch != '\r'; });
            c != raw.end()) {
            char b[64];
            std::snprintf(b, sizeof b, "column %zu: control byte 0x%02x; a check line is text", size_t(c - raw.begin()) + 1, unsigned((unsigned char)*c));
            reject(b);
            continue;
        }
        if (word == "hint" || word == "when-wrong") {
            if (rest.empty()) { fail(word + " needs text"); continue; }
            if (word == "hint") {
                spec.hints.push_back(rest);
                continue;
            }
            if (advised == Advised::None) {
                fail("when-wrong must follow an expect, a loss, a logits or a cycles below line");
                continue;
            }
            if (advice_line) {
                fail("when-wrong is given twice for one line (the first is line " + std::to_string(advice_line) + "); give it once");
                continue;
            }
            advice_line = n;
            if (advised == Advised::Rejected) continue;   // advice on a line whose own error is said
            if (advised == Advised::Expect) spec.expects.back().when_wrong = rest;
            else if (advised == Advised::Logits) spec.forward.logits_when_wrong = rest;
            else if (advised == Advised::Cycles) spec.forward.cycles_when_wrong = rest;
            else spec.train.when_wrong = rest;
            continue;
        }
        double v = 0;
        if (word == "expect") {
            ExpectLine e;
            e.line = n;
            const std::string err = parse_expect(arg, &e);
            if (!err.empty()) reject(err);
            else spec.expects.push_back(std::move(e)), advise(Advised::Expect);
        } else if (word == "tolerance") {
            if (!once(word)) continue;
            if (const std::string err = wl::real_or_why(arg, wl::NumberRange::at_least(0), &v); !err.empty()) reject("tolerance " + err);
            else spec.tolerance = v;
        } else if (key == "cycles below") {   // a forward's: cycles below N
            if (!once("cycles below")) continue;
            uint64_t c = 0;
            if (const std::string err = integer_word(trim(arg.substr(5)), wl::NumberRange::closed(1, kMaxCycles), &c); !err.empty()) reject("cycles below " + err);
            else spec.forward.cycles_below = c, spec.forward.cycles_line = n, advise(Advised::Cycles);
        } else if (word == "cycles") {
            if (!once(word)) continue;
            uint64_t c = 0;
            if (const std::string err = integer_word(arg, wl::NumberRange::closed(1, kMaxCycles), &c); !err.empty()) reject("cycles " + err);
            else spec.cycle_budget = c;
        } else if (word == "pes") {
            if (!once(word)) continue;
            int pes = 0;
            if (const std::string err = integer_word(arg, wl::NumberRange::closed(1, double(wl::kMaxMeshSide) * wl::kMaxMeshSide), &pes); !err.empty()) reject("pes " + err);
            else spec.pes = pes;
        } else if (word == "train") {
            TrainSpec t;
            t.line = n;
            const std::string err = parse_train(arg, &t);
            if (!err.empty()) reject(err);
            else if (spec.trains()) reject("train: only one train line (the first is line " + std::to_string(spec.train.line) + ")");
            else {
                t.loss_below = spec.train.loss_below, t.loss_line = spec.train.loss_line, t.when_wrong = spec.train.when_wrong;
                spec.train = t;
            }
        } else if (word == "forward") {
            ForwardSpec f;
            f.line = n;
            const std::string err = parse_forward(arg, &f);
            if (!err.empty()) reject(err);
            else if (spec.forwards()) reject("forward: only one forward line (the first is line " + std::to_string(spec.forward.line) + ")");
            else {
                f.logits_match = spec.forward.logits_match, f.logits_line = spec.forward.logits_line;
                f.cycles_below = spec.forward.cycles_below, f.cycles_line = spec.forward.cycles_line;
                f.logits_when_wrong = spec.forward.logits_when_wrong, f.cycles_when_wrong = spec.forward.cycles_when_wrong;
                spec.forward = f;
            }
        } else if (word == "logits") {
            if (!once(word)) continue;
            if (arg != "match") reject("logits needs the form 'logits match'");
            else spec.forward.logits_match = true, spec.forward.logits_line = n, advise(Advised::Logits);
        } else if (word == "loss") {
            if (!once(word)) continue;
            const size_t sp2 = arg.find_first_of(" \t");
            if (arg.substr(0, sp2) != "below" || sp2 == std::string::npos) reject("loss needs the form 'loss below X', X > 0");
            else if (const std::string err = wl::real_or_why(trim(arg.substr(sp2)), wl::NumberRange::above(0), &v); !err.empty()) reject("loss below " + err);
            else spec.train.loss_below = v, spec.train.loss_line = n, advise(Advised::Loss);
        } else if (word == "faster-than-gpu") {
            if (!once(word)) continue;
            const std::vector<std::string> ids = wl::gpu::gpu_ids();
            if (std::find(ids.begin(), ids.end(), arg) == ids.end()) {
                std::string list;
                for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
                reject("faster-than-gpu needs one of the GPU model's ids: " + list);
            } else {
                spec.faster_than_gpu = arg, spec.gpu_line = n;
            }
        } else {
            reject("unknown directive '" + word + "' (expect, when-wrong, tolerance, cycles, pes, hint, train, loss, "
                   "faster-than-gpu, forward, logits)");
        }
    }
    // The pairs that only mean something together, named at the line that is there (a rejected
    // line is there: its own error is said).
    auto given = [&](bool accepted, const char* word) { return accepted || rejected.count(word); };
    if (spec.train.loss_line && !given(spec.trains(), "train")) {
        n = spec.train.loss_line;
        fail("loss below needs a train line: which training should reach it?");
    } else if (spec.trains() && !given(spec.train.loss_line, "loss")) {
        n = spec.train.line;
        fail("train needs a 'loss below X' line: a training check must say what loss to reach");
    }
    if (spec.trains() && (!spec.expects.empty() || spec.cycle_budget || spec.pes || !spec.faster_than_gpu.empty())) {
        n = spec.train.line;
        fail("train checks a model kernel, which has no host block: expect, cycles, pes and faster-than-gpu cannot go with it");
    }
    const ForwardSpec& f = spec.forward;
    if ((f.logits_line || f.cycles_line) && !given(spec.forwards(), "forward")) {
        n = f.logits_line ? f.logits_line : f.cycles_line;
        fail(std::string(f.logits_line ? "logits match" : "cycles below") + " needs a forward line: which forward should it check?");
    } else if (spec.forwards() && !given(f.logits_match, "logits")) {
        n = f.line;
        fail("forward needs a 'logits match' line: a fast kernel must still be right");
    }
    if (spec.forwards() && (spec.trains() || !spec.expects.empty() || spec.cycle_budget || spec.pes || !spec.faster_than_gpu.empty())) {
        n = f.line;
        fail("forward checks a model kernel, which has no host block: train, expect, cycles, pes and faster-than-gpu cannot go "
             "with it (its own bound is 'cycles below N')");
    }
    return spec;
}

}  // namespace wl::lessons
