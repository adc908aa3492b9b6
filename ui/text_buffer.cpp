#include "ui/text_buffer.h"

#include <algorithm>
#include <cctype>

namespace wlui {

namespace {
bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }
bool is_word(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }
// What a double-click takes together: a word, a run of spaces, or a run of other symbols.
int char_class(unsigned char c) { return is_word(c) ? 0 : c == ' ' || c == '\t' ? 1 : 2; }
constexpr size_t kUndoLimit = 1000;
}  // namespace

void TextBuffer::set_text(std::string_view text) {
    // A UTF-8 byte-order mark (an editor on Windows writes one) marks the encoding; it is not text a
    // column counts, so line 1's errors and colours sit where the compiler puts them.
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    lines_.clear();
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '\n') {
            std::string_view l = text.substr(start, i - start);
            if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
            lines_.emplace_back(l);
            start = i + 1;
        }
    }
    cursor_ = anchor_ = {};
    undo_.clear();
    redo_.clear();
    ++version_;
    saved_depth_ = 0;
}

void TextBuffer::mark_saved() {
    saved_depth_ = long(undo_.size());
    if (!undo_.empty()) undo_.back().typing = false;   // later typing starts a new step
}

std::string TextBuffer::text() const {
    std::string out;
    for (size_t i = 0; i < lines_.size(); ++i) {
        if (i) out += '\n';
        out += lines_[i];
    }
    return out;
}

TextPos TextBuffer::clamp(TextPos p) const {
    p.line = std::clamp(p.line, 0, line_count() - 1);
    p.col = std::clamp(p.col, 0, int(lines_[size_t(p.line)].size()));
    const std::string& l = lines_[size_t(p.line)];
    while (p.col > 0 && p.col < int(l.size()) && is_continuation((unsigned char)l[size_t(p.col)])) --p.col;
    return p;
}

void TextBuffer::set_cursor(TextPos p, bool extend) {
    cursor_ = clamp(p);
    if (!extend) anchor_ = cursor_;
    want_col_ = -1;
}

void TextBuffer::select_all() {
    anchor_ = {0, 0};
    cursor_ = {line_count() - 1, int(lines_.back().size())};
}

std::string TextBuffer::slice(TextPos a, TextPos b) const {
    if (a.line == b.line) return lines_[size_t(a.line)].substr(size_t(a.col), size_t(b.col - a.col));
    std::string out = lines_[size_t(a.line)].substr(size_t(a.col));
    for (int l = a.line + 1; l < b.line; ++l) out += '\n' + lines_[size_t(l)];
    out += '\n' + lines_[size_t(b.line)].substr(0, size_t(b.col));
    return out;
}

std::string TextBuffer::selected_text() const { return slice(selection_start(), selection_end()); }

TextPos TextBuffer::advance(TextPos p, std::string_view text) const {
    for (char c : text) {
        if (c == '\n') { ++p.line; p.col = 0; }
        else ++p.col;
    }
    return p;
}

TextPos TextBuffer::apply(TextPos a, TextPos b, std::string_view text) {
    std::string tail = lines_[size_t(b.line)].substr(size_t(b.col));
    std::string head = lines_[size_t(a.line)].substr(0, size_t(a.col));
    lines_.erase(lines_.begin() + a.line + 1, lines_.begin() + b.line + 1);
    std::vector<std::string> pieces{""};
    for (char c : text) {
        if (c == '\r') continue;
        if (c == '\n') pieces.emplace_back();
        else pieces.back() += c;
    }
    TextPos end{a.line + int(pieces.size()) - 1, int(pieces.back().size()) + (pieces.size() == 1 ? a.col : 0)};
    pieces.front() = head + pieces.front();
    pieces.back() += tail;
    lines_[size_t(a.line)] = pieces.front();
    lines_.insert(lines_.begin() + a.line + 1, pieces.begin() + 1, pieces.end());
    ++version_;
    return end;
}

void TextBuffer::record(Edit e) {
    if (long(undo_.size()) < saved_depth_) saved_depth_ = -1;   // the saved text was in the redo stack
    redo_.clear();
    if (e.typing && !undo_.empty()) {
        Edit& last = undo_.back();
        // Typing at the end of the previous typed run extends it while the character class
        // (word or not) stays the same: one undo step per word.
        if (last.typing && last.removed.empty() && e.removed.empty() && advance(last.at, last.inserted) == e.at &&
            is_word((unsigned char)last.inserted.back()) == is_word((unsigned char)e.inserted[0])) {
            last.inserted += e.inserted;
            last.cursor_after = e.cursor_after;
            return;
        }
    }
    undo_.push_back(std::move(e));
    if (undo_.size() > kUndoLimit) {
        undo_.erase(undo_.begin());
        if (saved_depth_ >= 0) --saved_depth_;
    }
}

void TextBuffer::insert(std::string_view s) {
    std::string clean;
    for (char c : s) if (c != '\r') clean += c;
    TextPos a = selection_start(), b = selection_end();
    Edit e{a, slice(a, b), clean, cursor_, {}, clean.size() == 1 && a == b};
    cursor_ = anchor_ = apply(a, b, clean);
    e.cursor_after = cursor_;
    want_col_ = -1;
    record(std::move(e));
}

void TextBuffer::newline() {
    const std::string& l = lines_[size_t(selection_start().line)];
    size_t indent = 0;
    while (indent < l.size() && indent < size_t(selection_start().col) && (l[indent] == ' ' || l[indent] == '\t')) ++indent;
    insert("\n" + l.substr(0, indent));
}

void TextBuffer::indent_or_tab() { insert("    "); }

void TextBuffer::backspace() {
    if (!has_selection()) {
        if (cursor_ == TextPos{0, 0}) return;
        move(Move::Left, true);
    }
    insert("");
}

void TextBuffer::del() {
    if (!has_selection()) {
        TextPos end{line_count() - 1, int(lines_.back().size())};
        if (cursor_ == end) return;
        move(Move::Right, true);
    }
    insert("");
}

bool TextBuffer::undo() {
    if (undo_.empty()) return false;
    Edit e = std::move(undo_.back());
    undo_.pop_back();
    apply(e.at, advance(e.at, e.inserted), e.removed);
    cursor_ = anchor_ = clamp(e.cursor_before);
    redo_.push_back(std::move(e));
    return true;
}

bool TextBuffer::redo() {
    if (redo_.empty()) return false;
    Edit e = std::move(redo_.back());
    redo_.pop_back();
    apply(e.at, advance(e.at, e.removed), e.inserted);
    cursor_ = anchor_ = clamp(e.cursor_after);
    e.typing = false;   // a redone edit never merges with new typing
    undo_.push_back(std::move(e));
    return true;
}

void TextBuffer::move(Move m, bool extend, int page_lines) {
    TextPos p = cursor_;
    const std::string* l = &lines_[size_t(p.line)];
    auto vertical = [&](int dl) {
        if (want_col_ < 0) want_col_ = p.col;
        p.line = std::clamp(p.line + dl, 0, line_count() - 1);
        p.col = want_col_;
        p = clamp(p);
    };
    // A collapsed move with a selection lands on the selection's edge, as editors do.
    if (!extend && has_selection() && (m == Move::Left || m == Move::Right)) {
        p = m == Move::Left ? selection_start() : selection_end();
        cursor_ = anchor_ = p;
        want_col_ = -1;
        return;
    }
    switch (m) {
    case Move::Left:
        if (p.col > 0) {
            do --p.col; while (p.col > 0 && is_continuation((unsigned char)(*l)[size_t(p.col)]));
        } else if (p.line > 0) {
            --p.line;
            p.col = int(lines_[size_t(p.line)].size());
        }
        break;
    case Move::Right:
        if (p.col < int(l->size())) {
            do ++p.col; while (p.col < int(l->size()) && is_continuation((unsigned char)(*l)[size_t(p.col)]));
        } else if (p.line + 1 < line_count()) {
            ++p.line;
            p.col = 0;
        }
        break;
    case Move::WordLeft:
        if (p.col == 0) { move(Move::Left, extend); return; }
        while (p.col > 0 && !is_word((unsigned char)(*l)[size_t(p.col - 1)])) --p.col;
        while (p.col > 0 && is_word((unsigned char)(*l)[size_t(p.col - 1)])) --p.col;
        break;
    case Move::WordRight:
        if (p.col == int(l->size())) { move(Move::Right, extend); return; }
        while (p.col < int(l->size()) && !is_word((unsigned char)(*l)[size_t(p.col)])) ++p.col;
        while (p.col < int(l->size()) && is_word((unsigned char)(*l)[size_t(p.col)])) ++p.col;
        break;
    case Move::Up: vertical(-1); break;
    case Move::Down: vertical(1); break;
    case Move::PageUp: vertical(-page_lines); break;
    case Move::PageDown: vertical(page_lines); break;
    case Move::Home: {
        // First press: to the first non-blank; second press: to column 0.
        int first = 0;
        while (first < int(l->size()) && ((*l)[size_t(first)] == ' ' || (*l)[size_t(first)] == '\t')) ++first;
        p.col = p.col == first ? 0 : first;
        break;
    }
    case Move::End: p.col = int(l->size()); break;
    case Move::Top: p = {0, 0}; break;
    case Move::Bottom: p = {line_count() - 1, int(lines_.back().size())}; break;
    }
    if (m != Move::Up && m != Move::Down && m != Move::PageUp && m != Move::PageDown) want_col_ = -1;
    cursor_ = p;
    if (!extend) anchor_ = p;
}

void TextBuffer::select(TextPos from, TextPos to) {
    anchor_ = clamp(from);
    cursor_ = clamp(to);
    want_col_ = -1;
}

void TextBuffer::select_word(TextPos at) {
    at = clamp(at);
    const std::string& l = lines_[size_t(at.line)];
    if (l.empty()) return select(at, at);
    int c = std::min(at.col, int(l.size()) - 1);   // past the end: the last character
    while (c > 0 && is_continuation((unsigned char)l[size_t(c)])) --c;
    const int cls = char_class((unsigned char)l[size_t(c)]);
    int a = c, b = c;
    while (a > 0 && char_class((unsigned char)l[size_t(a - 1)]) == cls) --a;
    while (b < int(l.size()) && char_class((unsigned char)l[size_t(b)]) == cls) ++b;
    select({at.line, a}, {at.line, b});
}

TextPos TextBuffer::find(std::string_view needle, TextPos from) const {
    if (needle.empty() || needle.find('\n') != std::string_view::npos) return {-1, 0};
    auto lower = [](unsigned char c) { return char(std::tolower(c)); };
    auto match_in = [&](const std::string& l, size_t start, size_t end_limit) -> long {   // first match starting in [start, end_limit)
        for (size_t i = start; i < end_limit && i + needle.size() <= l.size(); ++i) {
            size_t k = 0;
            while (k < needle.size() && lower((unsigned char)l[i + k]) == lower((unsigned char)needle[k])) ++k;
            if (k == needle.size()) return long(i);
        }
        return -1;
    };
    from = clamp(from);
    const int n = line_count();
    for (int step = 0; step <= n; ++step) {   // the start line twice: after `from`, then (wrapped) before it
        const int li = (from.line + step) % n;
        const std::string& l = lines_[size_t(li)];
        const size_t start = step == 0 ? size_t(from.col) : 0;
        const size_t limit = step == n ? size_t(from.col) : l.size();
        if (long at = match_in(l, start, limit); at >= 0) return {li, int(at)};
    }
    return {-1, 0};
}

}  // namespace wlui
