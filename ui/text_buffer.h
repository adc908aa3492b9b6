// text_buffer.h: the kernel editor's text model — lines, cursor, selection, undo.
// Pure C++ (no ImGui), so it is unit-tested on its own; code_editor.cpp draws it.
//
// Positions are (line, col) with col a byte offset into the line; cursor moves
// step over whole UTF-8 sequences. Every edit goes through apply(), which
// records it for undo; consecutive typed characters merge into one undo step.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

struct TextPos {
    int line = 0, col = 0;
    auto operator<=>(const TextPos&) const = default;
};

class TextBuffer {
public:
    TextBuffer() : lines_{""} {}
    explicit TextBuffer(std::string_view text) { set_text(text); }

    // [SECTION] content
    void set_text(std::string_view text);      // clears undo history and the modified flag
    std::string text() const;
    int line_count() const { return int(lines_.size()); }
    const std::string& line(int i) const { return lines_[size_t(i)]; }
    uint64_t version() const { return version_; }   // bumps on every change
    bool modified() const { return long(undo_.size()) != saved_depth_; }
    void mark_saved();

    // [SECTION] cursor and selection (the selection runs from anchor to cursor)
    TextPos cursor() const { return cursor_; }
    void set_cursor(TextPos p, bool extend_selection = false);
    bool has_selection() const { return anchor_ != cursor_; }
    TextPos selection_start() const { return std::min(anchor_, cursor_); }
    TextPos selection_end() const { return std::max(anchor_, cursor_); }
    std::string selected_text() const;
    void select_all();
    void select(TextPos from, TextPos to);     // anchor at `from`, cursor at `to` (clamped)
    void select_word(TextPos at);              // the word (or run of symbols) holding the character at `at`
    // The next `needle` at or after `from` (case-insensitive in ASCII), wrapping past the end to
    // the top; its start, or -1 lines when there is none. A needle spans one line.
    TextPos find(std::string_view needle, TextPos from) const;
    TextPos clamp(TextPos p) const;

    enum class Move { Left, Right, WordLeft, WordRight, Up, Down, Home, End, PageUp, PageDown, Top, Bottom };
    void move(Move m, bool extend_selection, int page_lines = 20);

    // [SECTION] editing
    void insert(std::string_view s);           // replaces the selection
    void newline();                            // keeps the current line's indentation
    void backspace();
    void del();
    void indent_or_tab();                      // four spaces
    bool undo();
    bool redo();
    bool can_undo() const { return !undo_.empty(); }
    bool can_redo() const { return !redo_.empty(); }

private:
    struct Edit {
        TextPos at;                 // where `removed` was and `inserted` now is
        std::string removed, inserted;
        TextPos cursor_before, cursor_after;
        bool typing = false;        // may merge with the next typed character
    };
    TextPos apply(TextPos from, TextPos to, std::string_view text);   // raw replace, returns end of inserted text
    void record(Edit e);
    std::string slice(TextPos from, TextPos to) const;
    TextPos advance(TextPos p, std::string_view text) const;

    std::vector<std::string> lines_;
    TextPos cursor_, anchor_;
    int want_col_ = -1;             // column kept while moving up and down
    std::vector<Edit> undo_, redo_;
    uint64_t version_ = 0;
    long saved_depth_ = 0;          // undo depth of the saved text; -1 once unreachable
};

}  // namespace wlui
