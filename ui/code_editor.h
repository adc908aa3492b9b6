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

    void reveal(TextPos p) { reveal_ = p; has_reveal_ = true; }   // move the cursor there and scroll to it
    bool focused() const { return focused_; }
    void focus() { focus_request_ = true; }

private:
    Result handle_keys(TextBuffer& buf, int page_lines);
    TextPos hit(const TextBuffer& buf, ImVec2 mouse, ImVec2 origin, float gutter, float cw, float lh) const;

    bool focused_ = false, focus_request_ = false, has_reveal_ = false, selecting_ = false;
    TextPos reveal_;
    TextPos last_cursor_{-1, -1};
    Geometry geometry_;
};

}  // namespace wlui
