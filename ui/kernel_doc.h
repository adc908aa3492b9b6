// kernel_doc.h: the kernel open in the editor — its text, its syntax colours
// and its diagnostics, kept in step with the compiler as the user types.
// The compiler is the engine's (engine/lang); this file only adapts its data
// to the editor's types and caches it per text version.
#pragma once
#include "engine/lang/compile.h"
#include "ui/code_editor.h"
#include "ui/text_buffer.h"

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wlui {

class KernelDoc {
public:
    // [SECTION] content
    void open(std::string name, std::string text);     // replaces the text; not modified
    const std::string& name() const { return name_; }  // e.g. "hello.wk"
    void rename(std::string name) { name_ = std::move(name); }   // Save as: same text and history
    TextBuffer& buffer() { return buf_; }
    const TextBuffer& buffer() const { return buf_; }

    // Re-lexes and re-checks when the text changed since the last call.
    void refresh();
    // A full compile (with code generation), e.g. on Ctrl+Enter.
    const wl::lang::CompileResult& compile();
    // The optimising code generator (CompileOptions::optimise) for the next compile(): the same
    // results in fewer instructions and cycles. Off by default: the lessons' counts are plain code's.
    void set_optimise(bool on);
    bool optimise() const { return optimise_; }

    // The file's top-level parts — layout, each program, host — for the editor's tabs.
    struct Section {
        std::string label;   // "layout", "program sender", "host"
        int line = 0;        // 0-based
    };

    // [SECTION] what the editor and the JS hook show
    const std::vector<Section>& sections() const { return sections_; }
    int section_at(int line) const;                   // the section holding a 0-based line, or -1
    // Where `name` (or `name()`) is defined, by fn, task, const, var, dsd or colour: the first
    // definition in the file (each program may define its own), or nullopt.
    std::optional<TextPos> definition(std::string_view name) const;
    const std::vector<SyntaxSpan>& spans() const { return spans_; }
    const std::vector<EditorMarker>& markers() const { return markers_; }
    // A marker under the word at 1-based (line, col) of the text (one character when no word starts there).
    EditorMarker marker_at(int line, int col, EditorMarker::Severity severity, std::string message) const;
    const std::vector<wl::lang::Diagnostic>& diagnostics() const { return result_.diagnostics; }
    const wl::lang::CompileResult& result() const { return result_; }
    bool compiled() const { return compiled_version_ == buf_.version(); }   // result_ has code for this text
    nlohmann::json diagnostics_json() const;

private:
    void adopt(wl::lang::CompileResult r);

    std::string name_ = "untitled.wk";
    TextBuffer buf_;
    std::vector<SyntaxSpan> spans_;
    std::vector<EditorMarker> markers_;
    std::vector<Section> sections_;
    std::vector<std::pair<std::string, TextPos>> definitions_;   // in the file's order
    wl::lang::CompileResult result_;
    uint64_t seen_version_ = ~0ull, compiled_version_ = ~0ull;
    bool optimise_ = false;
};

}  // namespace wlui
