// corpus.cpp: see corpus.h.
#include "engine/gpt/corpus.h"

#include "engine/core/read_file.h"
#include "engine/gpt/rng.h"

#include <sstream>
#include <stdexcept>

namespace wl::gpt {

namespace {

template <size_t N>
const char* pick(Rng& r, const char* const (&list)[N]) {
    return list[r.below(N)];
}

const char* const kNames[] = {"Tom", "Mia", "Sam", "Lily", "Ben", "Zoe", "Max", "Anna", "Leo", "Ruby", "Jack", "Ella"};
const char* const kAnimals[] = {"cat", "dog", "fox", "bird", "rabbit", "bear", "frog", "mouse", "duck", "horse"};
const char* const kAdjs[] = {"little", "happy", "brave", "sleepy", "clever", "tiny", "kind", "shy", "funny", "old"};
const char* const kPlaces[] = {"park", "forest", "garden", "river", "house", "school", "hill", "beach", "farm", "town"};
const char* const kThings[] = {"ball", "kite", "apple", "book", "hat", "box", "cake", "stick", "flower", "shell"};
const char* const kVerbs[] = {"play", "run", "sing", "jump", "read", "dance", "swim", "draw", "climb", "hide"};
const char* const kFeelings[] = {"happy", "sad", "scared", "proud", "surprised", "tired", "excited", "calm"};
const char* const kColors[] = {"red", "blue", "green", "yellow", "pink", "brown", "white", "purple"};

std::string story(Rng& r) {
    std::string name = pick(r, kNames), animal = pick(r, kAnimals), place = pick(r, kPlaces),
                thing = pick(r, kThings), color = pick(r, kColors), friend_ = pick(r, kNames);
    if (friend_ == name) friend_ = "Grandma";
    std::ostringstream s;
    switch (r.below(3)) {
    case 0: s << "Once upon a time, there was a " << pick(r, kAdjs) << " " << animal << " named " << name << ". "; break;
    case 1: s << "One day, " << name << " the " << animal << " went to the " << place << ". "; break;
    default: s << "There was a " << pick(r, kAdjs) << " " << animal << ". Its name was " << name << ". "; break;
    }
    s << name << " liked to " << pick(r, kVerbs) << " in the " << place << ". ";
    switch (r.below(3)) {
    case 0: s << "One day, " << name << " found a " << color << " " << thing << ". "; break;
    case 1: s << name << " saw a " << color << " " << thing << " under a tree. "; break;
    default: s << "In the " << place << ", there was a big " << color << " " << thing << ". "; break;
    }
    const char* feel = pick(r, kFeelings);
    s << name << " felt " << feel << ". ";
    switch (r.below(3)) {
    case 0: s << name << " gave the " << thing << " to " << friend_ << ". " << friend_ << " said, \"Thank you, " << name << "!\" "; break;
    case 1: s << friend_ << " came to " << pick(r, kVerbs) << " with " << name << ". They played with the " << thing << " all day. "; break;
    default: s << name << " asked, \"Can I " << pick(r, kVerbs) << " with the " << thing << "?\" " << friend_ << " said yes. "; break;
    }
    s << (r.below(2) ? "In the end, they were friends.\n\n" : "That night, " + name + " slept well.\n\n");
    return s.str();
}

uint64_t operand(Rng& r, int digits) {
    int d = 1 + int(r.below(uint64_t(digits)));   // 1..digits digits, so short sums appear too
    uint64_t lo = 1, hi = 10;
    for (int i = 1; i < d; i++) { lo *= 10; hi *= 10; }
    if (d == 1) lo = 0;
    return lo + r.below(hi - lo);
}

}  // namespace

std::string generate_stories(uint64_t seed, size_t chars) {
    Rng r(seed ^ 0x53544f52ull);
    std::string out;
    while (out.size() < chars) out += story(r);
    return out;
}

std::vector<AdditionProblem> addition_problems(uint64_t seed, int n, int digits) {
    Rng r(seed ^ 0x41444421ull);
    std::vector<AdditionProblem> p;
    for (int i = 0; i < n; i++) {
        uint64_t a = operand(r, digits), b = operand(r, digits);
        p.push_back({std::to_string(a) + "+" + std::to_string(b) + "=", std::to_string(a + b)});
    }
    return p;
}

std::string generate_addition(uint64_t seed, size_t chars, int digits) {
    std::string out;
    Rng r(seed ^ 0x41444421ull);
    while (out.size() < chars) {
        uint64_t a = operand(r, digits), b = operand(r, digits);
        out += std::to_string(a) + "+" + std::to_string(b) + "=" + std::to_string(a + b) + "\n";
    }
    return out;
}

double addition_accuracy(const std::vector<AdditionProblem>& problems,
                         const std::function<std::string(const std::string&)>& complete) {
    if (problems.empty()) return 0.0;
    int right = 0;
    for (const AdditionProblem& p : problems) {
        std::string got = complete(p.prompt);
        got = got.substr(0, got.find('\n'));
        right += got == p.answer;
    }
    return double(right) / double(problems.size());
}

std::string read_text_file(const std::string& path) {
    std::string text, error;
    if (!read_file(path, kMaxTextBytes, "training text", &text, &error)) throw std::runtime_error(error);
    if (const std::string why = binary_text(path_in_message(path), text); !why.empty()) throw std::runtime_error(why);
    return text;
}

std::string binary_text(const std::string& name, const std::string& text) {
    size_t control = 0;
    for (unsigned char c : text) {
        if (c == 0) return name + " looks binary (it has NUL bytes): train on a text file";
        control += c < 32 && c != '\n' && c != '\r' && c != '\t';
    }
    if (control * 100 > text.size()) return name + " looks binary (" + std::to_string(control) + " control bytes): train on a text file";
    return "";
}

Corpus make_corpus(const GPTConfig& cfg) {
    Corpus c;
    if (cfg.corpus == "stories") {
        c.name = "stories";
        c.text = generate_stories(cfg.seed, size_t(cfg.corpus_chars));
    } else if (cfg.corpus == "addition") {
        c.name = "addition";
        c.text = generate_addition(cfg.seed, size_t(cfg.corpus_chars), cfg.addition_digits);
    } else if (cfg.corpus == "file") {
        std::string text;
        try {
            text = read_text_file(cfg.data);
        } catch (const std::exception& e) {   // the key that named it (--data sets it too)
            throw std::runtime_error(std::string("train_input.data: ") + e.what());
        }
        return corpus_from_text(cfg.data, text, cfg);
    } else {
        throw std::runtime_error("unknown corpus '" + cfg.corpus + "' (expected stories, addition or file)");
    }
    return corpus_from_text(c.name, std::move(c.text), cfg);
}

Corpus corpus_from_text(const std::string& name, std::string text, const GPTConfig& cfg) {
    Corpus c;
    c.name = name;
    c.text = std::move(text);
    size_t need = 2 * (size_t(cfg.block_size) + 2);
    if (c.text.size() < need)
        throw std::runtime_error(c.name + ": text too short (" + std::to_string(c.text.size()) + " bytes; need at least " +
                                 std::to_string(need) + " for block_size " + std::to_string(cfg.block_size) + ")");
    c.split = size_t(double(c.text.size()) * (1.0 - cfg.val_fraction));
    return c;
}

}  // namespace wl::gpt
