#include "ui/code_editor.h"

#include "ui/style.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wlui {

namespace {

constexpr ImU32 kSyntaxColour[] = {
    IM_COL32(220, 226, 234, 255),   // Plain
    IM_COL32(198, 146, 234, 255),   // Keyword
    IM_COL32(102, 204, 204, 255),   // Type
    IM_COL32(130, 170, 255, 255),   // Builtin
    IM_COL32(247, 140, 108, 255),   // Number
    IM_COL32(195, 232, 141, 255),   // String
    IM_COL32(110, 122, 140, 255),   // Comment
    IM_COL32(160, 170, 185, 255),   // Punct
    IM_COL32(255, 203, 107, 255),   // Colour (channel names)
};
static_assert(sizeof(kSyntaxColour) / sizeof(kSyntaxColour[0]) == size_t(Syntax::Count));

constexpr ImU32 kGutterText = IM_COL32(90, 100, 118, 255);
constexpr ImU32 kCurrentLine = IM_COL32(255, 255, 255, 10);
constexpr ImU32 kSelection = IM_COL32(70, 120, 190, 110);
constexpr ImU32 kCursor = IM_COL32(240, 240, 240, 255);
constexpr ImU32 kMarker[] = {IM_COL32(120, 170, 255, 255), IM_COL32(240, 190, 60, 255), IM_COL32(255, 85, 85, 255)};

void squiggle(ImDrawList* dl, float x0, float x1, float y, ImU32 col) {
    ImVec2 pts[128];
    int n = 0;
    for (float x = x0; x <= x1 && n < 128; x += 2.0f, ++n) pts[n] = ImVec2(x, y + ((n & 1) ? 1.5f : -0.5f));
    if (n >= 2) dl->AddPolyline(pts, n, col, 0, 1.2f);
}

}  // namespace

TextPos CodeEditor::hit(const TextBuffer& buf, ImVec2 m, ImVec2 origin, float gutter, float cw, float lh, bool on_char) const {
    int line = std::clamp(int(std::floor((m.y - origin.y) / lh)), 0, buf.line_count() - 1);
    const float x = (m.x - origin.x - gutter) / cw;   // in characters
    int col = std::max(0, int(on_char ? std::floor(x) : std::lround(x)));
    // Columns are bytes; step over UTF-8 sequences by counting characters.
    const std::string& l = buf.line(line);
    int byte = 0, chars = 0;
    while (byte < int(l.size()) && chars < col) {
        ++byte;
        while (byte < int(l.size()) && ((unsigned char)l[size_t(byte)] & 0xC0) == 0x80) ++byte;
        ++chars;
    }
    return {line, byte};
}

CodeEditor::Result CodeEditor::handle_keys(TextBuffer& buf, int page_lines) {
    Result r;
    ImGuiIO& io = ImGui::GetIO();
    const bool ctrl = io.KeyCtrl || io.KeySuper, shift = io.KeyShift;
    const uint64_t v0 = buf.version();
    auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), true); };
    using M = TextBuffer::Move;

    if (pressed(ImGuiKey_LeftArrow)) buf.move(ctrl ? M::WordLeft : M::Left, shift);
    if (pressed(ImGuiKey_RightArrow)) buf.move(ctrl ? M::WordRight : M::Right, shift);
    if (pressed(ImGuiKey_UpArrow)) buf.move(M::Up, shift);
    if (pressed(ImGuiKey_DownArrow)) buf.move(M::Down, shift);
    if (pressed(ImGuiKey_PageUp)) buf.move(M::PageUp, shift, page_lines);
    if (pressed(ImGuiKey_PageDown)) buf.move(M::PageDown, shift, page_lines);
    if (pressed(ImGuiKey_Home)) buf.move(ctrl ? M::Top : M::Home, shift);
    if (pressed(ImGuiKey_End)) buf.move(ctrl ? M::Bottom : M::End, shift);
    if (pressed(ImGuiKey_Backspace)) buf.backspace();
    if (pressed(ImGuiKey_Delete)) buf.del();
    if (pressed(ImGuiKey_Tab)) buf.indent_or_tab();
    if (find_open_ && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) find_open_ = false;
    if (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter)) {
        if (ctrl) r.compile_requested = true;
        else buf.newline();
    }
    if (ctrl) {
        if (pressed(ImGuiKey_A)) buf.select_all();
        if (pressed(ImGuiKey_Z)) shift ? buf.redo() : buf.undo();
        if (pressed(ImGuiKey_Y)) buf.redo();
        if ((pressed(ImGuiKey_C) || pressed(ImGuiKey_X)) && buf.has_selection()) {
            ImGui::SetClipboardText(buf.selected_text().c_str());
            if (pressed(ImGuiKey_X)) buf.insert("");
        }
        if (pressed(ImGuiKey_V))
            if (const char* clip = ImGui::GetClipboardText()) buf.insert(clip);
    } else {
        std::string typed;
        for (ImWchar c : io.InputQueueCharacters) {
            if (c < 0x20 || c == 0x7F) continue;   // control characters arrive as keys
            // UTF-8 encode (the basic multilingual plane is all ImWchar holds here).
            if (c < 0x80) typed += char(c);
            else if (c < 0x800) { typed += char(0xC0 | (c >> 6)); typed += char(0x80 | (c & 0x3F)); }
            else { typed += char(0xE0 | (c >> 12)); typed += char(0x80 | ((c >> 6) & 0x3F)); typed += char(0x80 | (c & 0x3F)); }
        }
        for (char c : typed) {
            // A closing brace typed on a blank indented line steps back one level.
            TextPos p = buf.cursor();
            const std::string& l = buf.line(p.line);
            if (c == '}' && !buf.has_selection() && p.col >= 4 && p.col == int(l.size()) &&
                l.find_first_not_of(' ') == std::string::npos) {
                buf.set_cursor({p.line, p.col - 4}, true);
            }
            buf.insert(std::string(1, c));   // one at a time, so undo groups by word
        }
    }
    io.InputQueueCharacters.resize(0);
    r.changed = buf.version() != v0;
    return r;
}

void CodeEditor::open_find() {
    find_open_ = find_focus_ = true;
    find_from_selection_ = true;   // the bar takes the selection as its text when it draws (it has the buffer)
}

bool CodeEditor::find_next(TextBuffer& buf) {
    const std::string_view needle(find_buf_);
    const TextPos at = buf.find(needle, buf.has_selection() ? buf.selection_end() : buf.cursor());
    find_missed_ = at.line < 0;
    if (find_missed_) return false;
    buf.select(at, {at.line, at.col + int(needle.size())});
    last_cursor_ = {-1, -1};   // scroll to it
    return true;
}

void CodeEditor::find_bar(TextBuffer& buf) {
    if (find_from_selection_) {
        find_from_selection_ = false;
        const std::string sel = buf.selected_text();
        if (!sel.empty() && sel.find('\n') == std::string::npos && sel.size() < sizeof find_buf_)
            std::snprintf(find_buf_, sizeof find_buf_, "%s", sel.c_str());
    }
    ImGui::PushID("find");
    const bool requested = find_focus_;   // it takes the keys from the next frame: the text must not take them now
    if (find_focus_) ImGui::SetKeyboardFocusHere(), find_focus_ = false;
    const float buttons = ImGui::CalcTextSize("Next  Close").x + ImGui::GetStyle().FramePadding.x * 4 + ImGui::GetStyle().ItemSpacing.x * 3;
    ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - buttons - ImGui::CalcTextSize("not found").x));
    const bool enter = ImGui::InputTextWithHint("##find", "Find (Enter: go to it, F3: the next, Esc: close)", find_buf_,
                                                sizeof find_buf_, ImGuiInputTextFlags_EnterReturnsTrue);
    const bool typing = ImGui::IsItemActive() || ImGui::IsItemDeactivated();   // Escape deactivates it before we ask
    find_active_ = ImGui::IsItemActive() || requested;
    // Enter selects the match and hands the keys to the text from the next frame (this frame's
    // Enter must not reach it), as Escape does; F3 goes on to the next match.
    if (enter && find_next(buf)) refocus_ = true;
    if (typing && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) find_open_ = false, refocus_ = true;
    ImGui::SameLine();
    if (ImGui::Button("Next")) find_next(buf);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The next match after the cursor (F3)");
    ImGui::SameLine();
    if (ImGui::Button("Close")) find_open_ = false, refocus_ = true;
    if (find_missed_ && find_buf_[0]) {
        ImGui::SameLine();
        ImGui::TextColored(kErrorText, "not found");
    }
    ImGui::PopID();
}

CodeEditor::Result CodeEditor::draw(const char* id, TextBuffer& buf, const std::vector<SyntaxSpan>& spans,
                                    const std::vector<EditorMarker>& markers, ImVec2 size) {
    Result r;
    // Ctrl+F before the bar is drawn, so it takes the keys from the next frame on (Dear ImGui 1.86
    // names only A, C, V, X, Y and Z; the SDL backend's key indices are scancodes, in which the
    // letters follow A in order).
    ImGuiIO& io0 = ImGui::GetIO();
    if (focused_ && (io0.KeyCtrl || io0.KeySuper) && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_A) + ('f' - 'a'), false))
        open_find();
    find_active_ = false;
    if (find_open_) find_bar(buf);
    ImGui::PushFont(fonts().mono ? fonts().mono : ImGui::GetFont());
    // No background of its own: the window's shows through (a second one under the text was a
    // third of a million pixels a frame that software GL filled twice).
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 4));
    ImGui::BeginChild(id, size, false, ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoNav);

    const float fs = ImGui::GetFontSize();
    const float cw = ImGui::GetFont()->CalcTextSizeA(fs, FLT_MAX, 0.0f, "M").x;
    const float lh = std::floor(fs * 1.35f);
    const int digits = std::max(3, int(std::to_string(buf.line_count()).size()));
    const float gutter = cw * float(digits + 2);
    ImGuiIO& io = ImGui::GetIO();

    if (focus_request_) {
        ImGui::SetWindowFocus();
        focus_request_ = false;
    }
    if (refocus_) focus_request_ = true, refocus_ = false;   // the find bar's hand-over: the next frame
    focused_ = ImGui::IsWindowFocused();
    if (has_reveal_) {
        if (reveal_word_) buf.select_word(reveal_);
        else buf.set_cursor(reveal_);
        has_reveal_ = false;
        last_cursor_ = {-1, -1};
    }
    const int page_lines = std::max(1, int(ImGui::GetWindowHeight() / lh) - 1);
    if (focused_ && !find_active_) {   // the find bar's keys are its own
        Result k = handle_keys(buf, page_lines);
        r.changed |= k.changed;
        r.compile_requested |= k.compile_requested;
        io.WantCaptureKeyboard = true;
    }

    // Content size: longest line × lines, so the scrollbars are right.
    size_t longest = 0;
    for (int i = 0; i < buf.line_count(); ++i) longest = std::max(longest, buf.line(i).size());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##text", ImVec2(std::max(gutter + cw * float(longest + 4), ImGui::GetContentRegionAvail().x),
                                            lh * float(buf.line_count()) + lh * 4));
    const bool hovered = ImGui::IsItemHovered();

    // Mouse: click places the cursor, shift-click and drag select, double-click selects a word.
    if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
        ImGui::SetWindowFocus();
        TextPos p = hit(buf, io.MousePos, origin, gutter, cw, lh);
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
            buf.select_word(hit(buf, io.MousePos, origin, gutter, cw, lh, true));   // the word under the pointer
            selecting_ = false;
        } else {
            buf.set_cursor(p, io.KeyShift);
            selecting_ = true;
        }
    }
    if (selecting_ && ImGui::IsMouseDown(ImGuiMouseButton_Left) && ImGui::IsMouseDragging(ImGuiMouseButton_Left))
        buf.set_cursor(hit(buf, io.MousePos, origin, gutter, cw, lh), true);
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) selecting_ = false;

    // Keep the cursor in view when it moved by keyboard or reveal().
    TextPos cur = buf.cursor();
    if (cur != last_cursor_ && !selecting_) {
        float y = float(cur.line) * lh, x = gutter + float(cur.col) * cw;
        float sy = ImGui::GetScrollY(), wh = ImGui::GetWindowHeight();
        if (y < sy) ImGui::SetScrollY(y);
        else if (y + 2 * lh > sy + wh) ImGui::SetScrollY(y + 2 * lh - wh);
        float sx = ImGui::GetScrollX(), ww = ImGui::GetWindowWidth();
        if (x - gutter < sx) ImGui::SetScrollX(std::max(0.0f, x - gutter - cw * 4));
        else if (x + cw * 2 > sx + ww) ImGui::SetScrollX(x + cw * 8 - ww);
        last_cursor_ = cur;
    }

    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float scroll_y = ImGui::GetScrollY();
    // The scroll may still be a longer text's (a shorter file just replaced it): clamp, so the
    // visible range never runs backwards (lesson 13's fix at line 136, then lesson 14's 60 lines).
    const int first = std::clamp(int(scroll_y / lh) - 1, 0, buf.line_count());
    const int last = std::clamp(first + page_lines + 4, first, buf.line_count());
    const float left = ImGui::GetWindowPos().x;   // the gutter stays put when scrolling sideways

    // Spans by line (only the visible lines matter).
    std::vector<std::vector<const SyntaxSpan*>> by_line(size_t(last - first));
    for (const SyntaxSpan& s : spans)
        if (s.line >= first && s.line < last) by_line[size_t(s.line - first)].push_back(&s);

    const TextPos s0 = buf.selection_start(), s1 = buf.selection_end();
    for (int i = first; i < last; ++i) {
        const std::string& l = buf.line(i);
        const float y = origin.y + float(i) * lh;
        if (i == cur.line && !buf.has_selection()) dl->AddRectFilled(ImVec2(left, y), ImVec2(left + 1e5f, y + lh), kCurrentLine);
        if (buf.has_selection() && i >= s0.line && i <= s1.line) {
            int a = i == s0.line ? s0.col : 0, b = i == s1.line ? s1.col : int(l.size()) + 1;
            dl->AddRectFilled(ImVec2(origin.x + gutter + float(a) * cw, y), ImVec2(origin.x + gutter + float(b) * cw, y + lh), kSelection);
        }
        // Text, coloured span by span; bytes outside spans are Plain.
        auto& row = by_line[size_t(i - first)];
        std::sort(row.begin(), row.end(), [](auto* a, auto* b) { return a->col < b->col; });
        int at = 0;
        auto emit = [&](int from, int to, ImU32 col) {
            if (to <= from) return;
            dl->AddText(ImVec2(origin.x + gutter + float(from) * cw, y + (lh - ImGui::GetFontSize()) * 0.5f), col,
                        l.data() + from, l.data() + to);
        };
        for (const SyntaxSpan* sp : row) {
            int a = std::clamp(sp->col, at, int(l.size())), b = std::clamp(sp->col + sp->len, a, int(l.size()));
            emit(at, a, kSyntaxColour[0]);
            emit(a, b, kSyntaxColour[size_t(sp->cls)]);
            at = b;
        }
        emit(at, int(l.size()), kSyntaxColour[0]);
    }

    // Diagnostics: a squiggle under the place, a mark in the gutter, the message on hover.
    const EditorMarker* hover_marker = nullptr;
    for (const EditorMarker& m : markers) {
        if (m.line < first || m.line >= last || m.line >= buf.line_count()) continue;
        const float y = origin.y + float(m.line) * lh;
        const int len = std::max(1, std::min(m.len, int(buf.line(m.line).size()) - m.col));
        const float x0 = origin.x + gutter + float(m.col) * cw, x1 = x0 + float(len) * cw;
        squiggle(dl, x0, x1, y + lh - 2.0f, kMarker[m.severity]);
        if (hovered && io.MousePos.y >= y && io.MousePos.y < y + lh &&
            ((io.MousePos.x >= x0 - cw && io.MousePos.x <= x1 + cw) || io.MousePos.x < left + gutter))
            hover_marker = &m;
    }

    // Gutter: line numbers, drawn last so sideways scrolling slides text under it.
    dl->AddRectFilled(ImVec2(left, origin.y + float(first) * lh), ImVec2(left + gutter - cw * 0.5f, origin.y + float(last) * lh),
                      ImGui::GetColorU32(ImGuiCol_WindowBg));
    // The gutter's marks, after its background, which would otherwise hide them.
    for (const EditorMarker& m : markers)
        if (m.line >= first && m.line < last && m.line < buf.line_count())
            dl->AddCircleFilled(ImVec2(left + cw * 0.6f, origin.y + float(m.line) * lh + lh * 0.5f), cw * 0.3f, kMarker[m.severity]);
    for (int i = first; i < last; ++i) {
        std::string num = std::to_string(i + 1);
        num.insert(0, size_t(std::max(0, digits - int(num.size()))), ' ');
        dl->AddText(ImVec2(left + cw, origin.y + float(i) * lh + (lh - ImGui::GetFontSize()) * 0.5f),
                    i == cur.line ? kSyntaxColour[0] : kGutterText, num.c_str());
    }
    if (focused_ && std::fmod(ImGui::GetTime(), 1.0) < 0.6) {
        // Column in characters, for UTF-8 lines.
        const std::string& l = buf.line(cur.line);
        int chars = 0;
        for (int b = 0; b < cur.col; ++b) chars += ((unsigned char)l[size_t(b)] & 0xC0) != 0x80;
        float x = std::max(origin.x + gutter + float(chars) * cw, left + gutter - cw * 0.5f);
        dl->AddLine(ImVec2(x, origin.y + float(cur.line) * lh + 1), ImVec2(x, origin.y + float(cur.line + 1) * lh - 1), kCursor, 1.5f);
    }
    geometry_ = {origin.x + gutter, origin.y, cw, lh};
    if (hovered && !hover_marker && io.MousePos.x >= origin.x + gutter) {
        const int line = int(std::floor((io.MousePos.y - origin.y) / lh));
        const int col = int(std::floor((io.MousePos.x - origin.x - gutter) / cw));   // bytes = characters outside comments
        if (line >= 0 && line < buf.line_count() && col < int(buf.line(line).size())) r.hover = TextPos{line, col};
    }
    if (hover_marker) {
        ImGui::PopFont();
        ImGui::BeginTooltip();
        ImGui::TextColored(ImColor(kMarker[hover_marker->severity]), "%s",
                           hover_marker->severity == EditorMarker::Error ? "error" : hover_marker->severity == EditorMarker::Warning ? "warning" : "note");
        ImGui::SameLine();
        ImGui::TextUnformatted(hover_marker->message.c_str());
        ImGui::EndTooltip();
        ImGui::PushFont(fonts().mono ? fonts().mono : ImGui::GetFont());
    }
    if (hovered) ImGui::SetMouseCursor(ImGuiMouseCursor_TextInput);

    ImGui::EndChild();
    ImGui::PopStyleVar();
    ImGui::PopFont();
    return r;
}

}  // namespace wlui
