#include "ui/kernel_doc.h"

#include "engine/lang/lexer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace wlui {

namespace {

Syntax syntax_of(wl::lang::TokenClass c) {
    using wl::lang::TokenClass;
    switch (c) {
    case TokenClass::Keyword: return Syntax::Keyword;
    case TokenClass::Type: return Syntax::Type;
    case TokenClass::Builtin: return Syntax::Builtin;
    case TokenClass::Number: return Syntax::Number;
    case TokenClass::Comment: return Syntax::Comment;
    case TokenClass::Operator:
    case TokenClass::Punctuation: return Syntax::Punct;
    case TokenClass::Identifier:
    case TokenClass::Error: break;
    }
    return Syntax::Plain;
}

}  // namespace

void KernelDoc::open(std::string name, std::string text) {
    name_ = std::move(name);
    buf_.set_text(text);
    seen_version_ = compiled_version_ = ~0ull;
    refresh();
}

void KernelDoc::refresh() {
    if (seen_version_ == buf_.version()) return;
    seen_version_ = buf_.version();
    const std::string text = buf_.text();

    spans_.clear();
    sections_.clear();
    definitions_.clear();
    int depth = 0;
    bool named = false;                  // the next identifier names a program section
    bool defines = false;                // the next identifier is defined here (after fn, task, const, var, dsd, colour)
    for (const wl::lang::HighlightSpan& h : wl::lang::lex_for_highlight(text)) {
        const std::string_view word(text.data() + h.offset, h.length);
        if (word == "{") ++depth;
        if (word == "}") depth = std::max(0, depth - 1);
        if (depth == 0 && h.cls == wl::lang::TokenClass::Keyword && (word == "layout" || word == "host" || word == "program")) {
            sections_.push_back({std::string(word), h.line - 1});
            named = word == "program";
        } else if (named && h.cls == wl::lang::TokenClass::Identifier) {
            sections_.back().label = std::string(word);
            named = false;
        }
        if (defines && h.cls == wl::lang::TokenClass::Identifier) definitions_.push_back({std::string(word), {h.line - 1, h.col - 1}});
        defines = h.cls == wl::lang::TokenClass::Keyword &&
                  (word == "fn" || word == "task" || word == "const" || word == "var" || word == "dsd" || word == "colour");
        // Comments can span lines; split them so each span stays on one line.
        int line = h.line - 1, col = h.col - 1;
        uint32_t start = h.offset, end = h.offset + h.length;
        for (uint32_t i = start; i <= end; ++i) {
            if (i == end || text[i] == '\n') {
                spans_.push_back({line, col, int(i - start), syntax_of(h.cls)});
                ++line;
                col = 0;
                start = i + 1;
            }
        }
    }
    // Live errors: a check without code generation, cheap enough for every edit.
    wl::lang::CompileOptions opt;
    opt.codegen = false;
    adopt(wl::lang::compile(text, name_, opt));
}

const wl::lang::CompileResult& KernelDoc::compile() {
    refresh();
    if (!compiled()) {
        wl::lang::CompileOptions opt;
        opt.optimise = optimise_;
        adopt(wl::lang::compile(buf_.text(), name_, opt));
        compiled_version_ = buf_.version();
    }
    return result_;
}

void KernelDoc::set_optimise(bool on) {
    if (on == optimise_) return;
    optimise_ = on;
    compiled_version_ = ~0ull;   // the code changes, the text does not
}

void KernelDoc::adopt(wl::lang::CompileResult r) {
    result_ = std::move(r);
    markers_.clear();
    for (const wl::lang::Diagnostic& d : result_.diagnostics) {
        if (d.line < 1) continue;
        markers_.push_back(marker_at(d.line, d.col, d.severity == wl::lang::Severity::Error ? EditorMarker::Error : EditorMarker::Warning,
                                     wl::lang::message_with_notes(d)));
    }
}

EditorMarker KernelDoc::marker_at(int line, int col, EditorMarker::Severity severity, std::string message) const {
    EditorMarker m;
    m.line = line - 1;
    m.col = std::max(0, col - 1);
    // Underline the word at the place (or one character).
    static const std::string none;
    const std::string& l = m.line >= 0 && m.line < buf_.line_count() ? buf_.line(m.line) : none;
    int e = m.col;
    while (e < int(l.size()) && (std::isalnum((unsigned char)l[size_t(e)]) || l[size_t(e)] == '_')) ++e;
    m.len = std::max(1, e - m.col);
    m.severity = severity;
    m.message = std::move(message);
    return m;
}

std::optional<TextPos> KernelDoc::definition(std::string_view name) const {
    if (name.size() > 2 && name.substr(name.size() - 2) == "()") name.remove_suffix(2);   // `load_w()` in a lesson's text
    for (const auto& [n, at] : definitions_)
        if (n == name) return at;
    return std::nullopt;
}

int KernelDoc::section_at(int line) const {
    int at = -1;
    for (size_t i = 0; i < sections_.size() && sections_[i].line <= line; ++i) at = int(i);
    return at;
}

nlohmann::json KernelDoc::diagnostics_json() const { return wl::lang::diagnostics_json(result_.diagnostics); }

}  // namespace wlui
