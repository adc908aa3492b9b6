// check_spec.cpp: the check.txt reader (format in check_spec.h).
#include "engine/lessons/check_spec.h"

#include "engine/fabric/mesh.h"
#include "engine/gpu/gpu_preset.h"
#include "engine/model/sparsity.h"

#include <algorithm>
#include <cstdlib>
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

bool parse_number(const std::string& s, double* out) {
    if (s.empty()) return false;
    char* end = nullptr;
    *out = std::strtod(s.c_str(), &end);
    return end && *end == '\0';
}

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
    double x = 0, y = 0;
    if (!parse_number(trim(rest.substr(open + 1, comma - open - 1)), &x) ||
        !parse_number(trim(rest.substr(comma + 1, close - comma - 1)), &y) || x < 0 || y < 0 ||
        x != double(int(x)) || y != double(int(y)))
        return "expect: the PE must be two whole numbers, as in (3,0)";
    e->x = int(x), e->y = int(y);
    std::istringstream vs(rest.substr(colon + 1));
    std::string tok;
    while (vs >> tok) {
        double v = 0;
        if (!parse_number(tok, &v)) return "expect: '" + tok + "' is not a number";
        e->values.push_back(v);
    }
    if (e->values.empty()) return "expect: no values after ':'";
    return "";
}

// "tiny.yaml steps 20 kernel crossentropy.wk [mesh 8x8]" -> t. Returns an error message or "".
std::string parse_train(const std::string& rest, TrainSpec* t) {
    const char* form = "train needs the form 'train CONFIG steps N kernel FILE.wk [mesh WxH]'";
    std::istringstream in(rest);
    std::string key, val;
    if (!(in >> t->config)) return form;
    while (in >> key) {
        if (!(in >> val)) return form;
        double v = 0;
        if (key == "steps") {
            if (!parse_number(val, &v) || v < 1 || v > 10000 || v != double(int(v))) return "train: steps needs a whole number from 1 to 10000";
            t->steps = int(v);
        } else if (key == "kernel") {
            if (val.size() < 4 || val.compare(val.size() - 3, 3, ".wk") != 0 || val.find('/') != std::string::npos)
                return "train: kernel needs a file name of models/kernels, as in gelu.wk";
            t->kernel = val;
        } else if (key == "mesh") {
            wl::Mesh m;
            if (!wl::parse_mesh(val, &m)) return "train: mesh needs WxH, as in 32x32";
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
    while (in >> key) {
        if (!(in >> val)) return form;
        double v = 0;
        if (key == "kernel") {
            if (val.size() < 4 || val.compare(val.size() - 3, 3, ".wk") != 0 || val.find('/') != std::string::npos)
                return "forward: kernel needs a file name of models/kernels, as in matmul.wk";
            f->kernel = val;
        } else if (key == "mesh") {
            wl::Mesh m;
            if (!wl::parse_mesh(val, &m)) return "forward: mesh needs WxH, as in 32x32";
            f->mesh_w = m.w, f->mesh_h = m.h;
        } else if (key == "execution") {
            if (val != "resident" && val != "streaming") return "forward: execution is resident or streaming";
            f->execution = val;
        } else if (key == "sparsity") {
            if (!parse_number(val, &v) || v <= 0 || v > wl::model::kMaxSparsity)
                return "forward: sparsity needs a fraction above 0, at most " + std::to_string(wl::model::kMaxSparsity).substr(0, 4);
            f->sparsity = v;
        } else {
            return "forward: unknown word '" + key + "' (" + form + ")";
        }
    }
    if (f->kernel.empty()) return form;
    if (f->sparsity > 0 && f->execution == "streaming")
        return "forward: sparsity with execution streaming: the planner streams dense weights only";
    return "";
}

}  // namespace

std::string value_key(const std::string& symbol, int x, int y) {
    return symbol + "@" + std::to_string(x) + "," + std::to_string(y);
}

CheckSpec parse_check_spec(std::string_view text, std::vector<SpecError>* errors) {
    CheckSpec spec;
    std::istringstream in{std::string(text)};
    std::string raw;
    int n = 0;
    auto fail = [&](std::string msg) {
        if (errors) errors->push_back({n, std::move(msg)});
    };
    enum class Advised { None, Expect, Loss, Logits, Cycles } advised = Advised::None;   // what a when-wrong line advises on
    while (std::getline(in, raw)) {
        ++n;
        const std::string line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        const size_t sp = line.find_first_of(" \t");
        const std::string word = line.substr(0, sp);
        const std::string rest = sp == std::string::npos ? "" : trim(line.substr(sp));
        if (word == "hint" || word == "when-wrong") {
            if (rest.empty()) { fail(word + " needs text"); continue; }
            if (word == "hint") spec.hints.push_back(rest);
            else if (advised == Advised::None) fail("when-wrong must follow an expect, a loss, a logits or a cycles below line");
            else if (advised == Advised::Expect) spec.expects.back().when_wrong = rest;
            else if (advised == Advised::Logits) spec.forward.logits_when_wrong = rest;
            else if (advised == Advised::Cycles) spec.forward.cycles_when_wrong = rest;
            else spec.train.when_wrong = rest;
            continue;
        }
        const std::string arg = strip_comment(rest);
        double v = 0;
        if (word == "expect") {
            ExpectLine e;
            e.line = n;
            const std::string err = parse_expect(arg, &e);
            if (!err.empty()) fail(err);
            else spec.expects.push_back(std::move(e)), advised = Advised::Expect;
        } else if (word == "tolerance") {
            if (!parse_number(arg, &v) || v < 0) fail("tolerance needs a number >= 0");
            else spec.tolerance = v;
        } else if (word == "cycles" && arg.compare(0, 5, "below") == 0) {   // a forward's: cycles below N
            const std::string num = trim(arg.substr(5));
            if (!parse_number(num, &v) || v < 1 || v != double(uint64_t(v))) fail("cycles below needs a whole number >= 1");
            else spec.forward.cycles_below = uint64_t(v), spec.forward.cycles_line = n, advised = Advised::Cycles;
        } else if (word == "cycles") {
            if (!parse_number(arg, &v) || v < 1 || v != double(uint64_t(v))) fail("cycles needs a whole number >= 1");
            else spec.cycle_budget = uint64_t(v);
        } else if (word == "pes") {
            if (!parse_number(arg, &v) || v < 1 || v != double(int(v))) fail("pes needs a whole number >= 1");
            else spec.pes = int(v);
        } else if (word == "train") {
            TrainSpec t;
            t.line = n;
            const std::string err = parse_train(arg, &t);
            if (!err.empty()) fail(err);
            else if (spec.trains()) fail("train: only one train line (the first is line " + std::to_string(spec.train.line) + ")");
            else {
                t.loss_below = spec.train.loss_below, t.loss_line = spec.train.loss_line, t.when_wrong = spec.train.when_wrong;
                spec.train = t;
            }
        } else if (word == "forward") {
            ForwardSpec f;
            f.line = n;
            const std::string err = parse_forward(arg, &f);
            if (!err.empty()) fail(err);
            else if (spec.forwards()) fail("forward: only one forward line (the first is line " + std::to_string(spec.forward.line) + ")");
            else {
                f.logits_match = spec.forward.logits_match, f.logits_line = spec.forward.logits_line;
                f.cycles_below = spec.forward.cycles_below, f.cycles_line = spec.forward.cycles_line;
                f.logits_when_wrong = spec.forward.logits_when_wrong, f.cycles_when_wrong = spec.forward.cycles_when_wrong;
                spec.forward = f;
            }
        } else if (word == "logits") {
            if (arg != "match") fail("logits needs the form 'logits match'");
            else spec.forward.logits_match = true, spec.forward.logits_line = n, advised = Advised::Logits;
        } else if (word == "loss") {
            const size_t sp2 = arg.find_first_of(" \t");
            if (arg.substr(0, sp2) != "below" || sp2 == std::string::npos || !parse_number(trim(arg.substr(sp2)), &v) || v <= 0)
                fail("loss needs the form 'loss below X', X > 0");
            else spec.train.loss_below = v, spec.train.loss_line = n, advised = Advised::Loss;
        } else if (word == "faster-than-gpu") {
            const std::vector<std::string> ids = wl::gpu::gpu_ids();
            if (std::find(ids.begin(), ids.end(), arg) == ids.end()) {
                std::string list;
                for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
                fail("faster-than-gpu needs one of the GPU model's ids: " + list);
            } else {
                spec.faster_than_gpu = arg, spec.gpu_line = n;
            }
        } else {
            fail("unknown directive '" + word + "' (expect, when-wrong, tolerance, cycles, pes, hint, train, loss, "
                 "faster-than-gpu, forward, logits)");
        }
    }
    // The pairs that only mean something together, named at the line that is there.
    if (spec.train.loss_line && !spec.trains()) {
        n = spec.train.loss_line;
        fail("loss below needs a train line: which training should reach it?");
    } else if (spec.trains() && !spec.train.loss_line) {
        n = spec.train.line;
        fail("train needs a 'loss below X' line: a training check must say what loss to reach");
    }
    if (spec.trains() && (!spec.expects.empty() || spec.cycle_budget || spec.pes || !spec.faster_than_gpu.empty())) {
        n = spec.train.line;
        fail("train checks a model kernel, which has no host block: expect, cycles, pes and faster-than-gpu cannot go with it");
    }
    const ForwardSpec& f = spec.forward;
    if ((f.logits_line || f.cycles_line) && !spec.forwards()) {
        n = f.logits_line ? f.logits_line : f.cycles_line;
        fail(std::string(f.logits_line ? "logits match" : "cycles below") + " needs a forward line: which forward should it check?");
    } else if (spec.forwards() && !f.logits_match) {
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
