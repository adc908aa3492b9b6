// diagnostics.cpp: quoting the file's text in a message; rendering a diagnostic as text (for CLIs
// and tests) and as JSON (the CLI's --json, the app's state()).
#include "engine/lang/diagnostics.h"

#include "engine/core/parse_number.h"

#include <nlohmann/json.hpp>

namespace wl::lang {

static constexpr size_t kShownBytes = 40;   // docs/reliability.md: a long value in a message is cut to 40 bytes

std::string quoted(std::string_view text) { return wl::quote_prefix(text, kShownBytes); }
std::string shown(std::string_view text) { return text.size() <= kShownBytes ? std::string(text) : wl::quote_prefix(text, kShownBytes); }

std::string format_diagnostic(const Diagnostic& d) {
    std::string s = d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " +
                    (d.severity == Severity::Error ? "error: " : "warning: ") + d.message;
    for (const DiagNote& n : d.notes) s += "\n  note: " + note_text(n, d.file + ":");
    return s;
}

std::string note_text(const DiagNote& n, const std::string& prefix) {
    return n.line > 0 ? prefix + std::to_string(n.line) + ":" + std::to_string(n.col) + ": " + n.message : n.message;
}

std::string message_with_notes(const Diagnostic& d) {
    std::string s = d.message;
    for (const DiagNote& n : d.notes) s += "\nnote: " + note_text(n, "");
    return s;
}

nlohmann::json diagnostics_json(const std::vector<Diagnostic>& list) {
    nlohmann::json a = nlohmann::json::array();
    for (const Diagnostic& d : list) {
        nlohmann::json notes = nlohmann::json::array();
        for (const DiagNote& n : d.notes) notes.push_back(note_text(n, ""));
        a.push_back({{"file", d.file}, {"line", d.line}, {"col", d.col}, {"severity", d.severity == Severity::Error ? "error" : "warning"},
                     {"message", d.message}, {"notes", notes}});
    }
    return a;
}

}  // namespace wl::lang
