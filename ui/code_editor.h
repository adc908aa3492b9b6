// code_editor.h: the kernel editor widget — syntax colours, line numbers,
// diagnostics with squiggles and hover messages, keyboard and mouse editing.
// It draws a TextBuffer (the model) and keeps only view state.
#pragma once
#include "ui/text_buffer.h"

#include <imgui.h>
#include <string>
#include <optional>
#include <vector>

namespace wlui {

// What the editor colours; the app maps the language's token classes onto these.
enum class Syntax : uint8_t { Plain, Keyword, Type, Builtin, Number, String, Comment, Punct, Colour, Count };

struct SyntaxSpan {
    int line = 0, col = 0, len = 0;   // 0-based, bytes
    Syntax cls = Syntax::Plain;
};

struct EditorMarker {
    enum Severity : uint8_t { Note, Warning, Error };
    int line = 0, col = 0, len = 1;   // 0-based
    Severity severity = Error;
    std::string message;
};

class CodeEditor {
public:
    struct Result {
        bool changed = false;            // the text changed this frame
        bool compile_requested = false;  // Ctrl+Enter
        std::optional<TextPos> hover;    // the character under the mouse (not over a diagnostic), for hover help
    };
    // Where the text was drawn: line 0, column 0 at (x, y), one character char_w wide, a line line_h high.
    struct Geometry {
        float x = 0, y = 0, char_w = 0, line_h = 0;
    };
    const Geometry& geometry() const { return geometry_; }

    // Fills `size` (0 = the rest of the window). `spans` may be in any order.
    Result draw(const char* id, TextBuffer& buf, const std::vector<SyntaxSpan>& spans,
                const std::vector<EditorMarker>& markers, ImVec2 size = ImVec2(0, 0));

    // Move the cursor there (selecting the word there, when asked) and scroll to it, at the next draw.
    void reveal(TextPos p, bool select_word = false) { reveal_ = p, reveal_word_ = select_word, has_reveal_ = true; }
    bool focused() const { return focused_; }
    void focus() { focus_request_ = true; }

    // Find: Ctrl+F opens the bar above the text (with the selection as its text); Enter selects
    // the next match (from the cursor, wrapping) and gives the text the keys; F3 and Next go on to
    // the one after; Escape closes the bar.
    void open_find();
    bool find_next(TextBuffer& buf);           // selects the next match and shows it; false: none
    bool find_open() const { return find_open_; }
    std::string find_text() const { return find_buf_; }
    bool find_missed() const { return find_missed_; }   // the last search found nothing

private:
    Result handle_keys(TextBuffer& buf, int page_lines);
    void find_bar(TextBuffer& buf);
    TextPos hit(const TextBuffer& buf, ImVec2 mouse, ImVec2 origin, float gutter, float cw, float lh, bool on_char = false) const;

    bool focused_ = false, focus_request_ = false, has_reveal_ = false, selecting_ = false;
    TextPos reveal_;
    bool reveal_word_ = false;
    TextPos last_cursor_{-1, -1};
    bool refocus_ = false, find_active_ = false;   // the editor takes the keys at the next frame (after the find bar had them)
    bool find_open_ = false, find_focus_ = false, find_missed_ = false, find_from_selection_ = false;
    char find_buf_[256] = {};
    Geometry geometry_;
};

}  // namespace wlui
