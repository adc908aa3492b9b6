// diagnostics.h: what the kernel compiler reports — plain data, never printed
// by the library. The app, the CLI and the tests decide how to show them.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace wl::lang {

enum class Severity : uint8_t { Error, Warning };

struct DiagNote {
    int line = 0, col = 0;            // 0 = no position
    std::string message;
};

struct Diagnostic {
    std::string file;
    int line = 0, col = 0;            // 1-based; the token that caused it
    Severity severity = Severity::Error;
    std::string message;
    std::vector<DiagNote> notes;
};

// Collects diagnostics in report order; caps the list so garbage input stays cheap.
class Diagnostics {
public:
    static constexpr size_t kMaxReported = 200;

    explicit Diagnostics(std::string file = "") : file_(std::move(file)) {}
    Diagnostic* error(int line, int col, std::string msg) { return add(Severity::Error, line, col, std::move(msg)); }
    Diagnostic* warning(int line, int col, std::string msg) { return add(Severity::Warning, line, col, std::move(msg)); }
    int errors() const { return errors_; }
    bool truncated() const { return truncated_; }
    bool dropped_errors() const { return dropped_errors_; }   // some diagnostic past the cap was an error
    const std::vector<Diagnostic>& list() const { return list_; }
    std::vector<Diagnostic> take() { return std::move(list_); }
    // Adds `note` to each diagnostic kept since the list held `from` (say where a check ran).
    void note_since(size_t from, const DiagNote& note) {
        for (size_t i = from; i < list_.size(); ++i) list_[i].notes.push_back(note);
    }
    const std::string& file() const { return file_; }

private:
    Diagnostic* add(Severity s, int line, int col, std::string msg) {
        if (s == Severity::Error) errors_++;
        // Once per place and message: a program placed on 256 PEs repeats its problems per PE.
        if (!seen_.insert({line, col, msg}).second) return &scratch_;
        if (list_.size() >= kMaxReported) {
            truncated_ = true;
            dropped_errors_ = dropped_errors_ || s == Severity::Error;
            return &scratch_;   // counted, not kept
        }
        list_.push_back(Diagnostic{file_, line, col, s, std::move(msg), {}});
        return &list_.back();
    }
    std::string file_;
    std::vector<Diagnostic> list_;
    std::set<std::tuple<int, int, std::string>> seen_;
    Diagnostic scratch_;
    int errors_ = 0;
    bool truncated_ = false, dropped_errors_ = false;
};

// Text of the file in a message: a name quoted ('main'), a literal's digits as written (099).
// Either is cut past 40 bytes and its size said, quoted: 'vvvv...' (1000000 bytes) (wl::quote_prefix),
// so an identifier of a megabyte makes a line of a hundred bytes, not a megabyte of stderr.
// Every diagnostic that shows a name or a literal goes through one of the two.
std::string quoted(std::string_view text);   // 'abc'
std::string shown(std::string_view text);    // abc: where a message names it bare (program p needs ...)

// "file:line:col: error: message" plus "  note: ..." lines (for CLIs and tests).
std::string format_diagnostic(const Diagnostic& d);
// A note's text, its place first ("12:5: ...") when it has one, after `prefix` ("file.wk:").
std::string note_text(const DiagNote& n, const std::string& prefix);
// The message, then each note on a line of its own ("note: ..."), for an editor's hover.
std::string message_with_notes(const Diagnostic& d);
// [{file, line, col, severity: "error"|"warning", message, notes: ["12:5: ..."]}]: the app's
// state().diagnostics and `waferlab-cli run/check --json` alike.
nlohmann::json diagnostics_json(const std::vector<Diagnostic>& list);

}  // namespace wl::lang
