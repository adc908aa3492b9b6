// markdown.cpp: md4c's callbacks collected into MdBlocks (markdown.h).
#include "ui/markdown.h"

#include <md4c.h>

#include <algorithm>
#include <cstdlib>

namespace wlui {

namespace {

void put_utf8(std::string& out, unsigned long cp) {
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F)), out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

// An entity md4c recognised ("&amp;", "&#215;", "&#xD7;"). The numeric ones and the few named ones
// a text about hardware uses are decoded; any other stays as written, which is at least legible.
void put_entity(std::string& out, std::string_view e) {
    if (e.size() > 3 && e[1] == '#') {
        const bool hex = e[2] == 'x' || e[2] == 'X';
        const std::string digits(e.substr(hex ? 3 : 2, e.size() - (hex ? 4 : 3)));
        put_utf8(out, std::strtoul(digits.c_str(), nullptr, hex ? 16 : 10));
        return;
    }
    static const struct { const char* name; unsigned long cp; } kNamed[] = {
        {"&amp;", '&'},     {"&lt;", '<'},       {"&gt;", '>'},      {"&quot;", '"'},    {"&apos;", '\''},
        {"&nbsp;", 0xA0},   {"&times;", 0xD7},   {"&micro;", 0xB5},  {"&mdash;", 0x2014}, {"&ndash;", 0x2013},
        {"&hellip;", 0x2026}, {"&le;", 0x2264},  {"&ge;", 0x2265},   {"&rarr;", 0x2192}, {"&larr;", 0x2190},
    };
    for (const auto& n : kNamed)
        if (e == n.name) return put_utf8(out, n.cp);
    out += e;
}

struct Collector {
    std::vector<MdBlock> blocks;
    int current = -1;                 // the block text goes to; -1: none open
    struct List { bool ordered; unsigned next; };
    std::vector<List> lists;
    int quotes = 0, strong = 0, em = 0, code = 0;
    std::vector<std::string> links;   // hrefs of the links open around the text

    MdBlock& open(MdBlock::Kind kind) {
        MdBlock b;
        b.kind = kind;
        b.depth = int(lists.size()) + quotes;
        b.quote = quotes > 0;
        blocks.push_back(std::move(b));
        current = int(blocks.size()) - 1;
        return blocks.back();
    }

    void append(std::string_view text, bool entity = false) {
        if (current < 0) open(MdBlock::Kind::Paragraph);
        MdBlock& b = blocks[size_t(current)];
        if (b.kind == MdBlock::Kind::Table) {   // a cell's text, plain
            if (b.rows.empty() || b.rows.back().empty()) return;
            if (entity) put_entity(b.rows.back().back(), text);
            else b.rows.back().back() += text;
            return;
        }
        uint8_t style = b.kind == MdBlock::Kind::Code ? MdRun::Code : MdRun::Plain;
        if (strong) style |= MdRun::Strong;
        if (em) style |= MdRun::Em;
        if (code) style |= MdRun::Code;
        if (!links.empty()) style |= MdRun::Link;
        const std::string href = links.empty() ? "" : links.back();
        if (b.runs.empty() || b.runs.back().style != style || b.runs.back().href != href) b.runs.push_back({"", style, href});
        if (entity) put_entity(b.runs.back().text, text);
        else b.runs.back().text += text;
    }

    static int enter_block(MD_BLOCKTYPE type, void* detail, void* self) {
        Collector& c = *static_cast<Collector*>(self);
        switch (type) {
        case MD_BLOCK_QUOTE: ++c.quotes, c.current = -1; break;
        case MD_BLOCK_UL: c.lists.push_back({false, 0}), c.current = -1; break;
        case MD_BLOCK_OL: c.lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start}), c.current = -1; break;
        case MD_BLOCK_LI: {
            MdBlock& b = c.open(MdBlock::Kind::ListItem);
            List& l = c.lists.back();
            b.marker = l.ordered ? std::to_string(l.next++) + "." : "\xE2\x80\xA2";   // "•"
            break;
        }
        case MD_BLOCK_HR: c.open(MdBlock::Kind::Rule), c.current = -1; break;
        case MD_BLOCK_H: c.open(MdBlock::Kind::Heading).level = int(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level); break;
        case MD_BLOCK_CODE: c.open(MdBlock::Kind::Code); break;
        case MD_BLOCK_TABLE: c.open(MdBlock::Kind::Table); break;
        case MD_BLOCK_TR:
            if (c.current >= 0) c.blocks[size_t(c.current)].rows.emplace_back();
            break;
        case MD_BLOCK_TH:
        case MD_BLOCK_TD:
            if (c.current >= 0 && !c.blocks[size_t(c.current)].rows.empty()) c.blocks[size_t(c.current)].rows.back().emplace_back();
            break;
        case MD_BLOCK_THEAD:
        case MD_BLOCK_TBODY: break;
        case MD_BLOCK_P:
        case MD_BLOCK_HTML:
            // A list item's first paragraph is the item itself; later ones are paragraphs under it.
            if (c.current >= 0 && c.blocks[size_t(c.current)].kind == MdBlock::Kind::ListItem && c.blocks[size_t(c.current)].runs.empty()) break;
            c.open(MdBlock::Kind::Paragraph);
            break;
        default: break;   // the document
        }
        return 0;
    }

    static int leave_block(MD_BLOCKTYPE type, void*, void* self) {
        Collector& c = *static_cast<Collector*>(self);
        switch (type) {
        case MD_BLOCK_THEAD:
        case MD_BLOCK_TBODY:
        case MD_BLOCK_TR:
        case MD_BLOCK_TH:
        case MD_BLOCK_TD: return 0;   // the table stays the block text goes to
        case MD_BLOCK_QUOTE: --c.quotes; break;
        case MD_BLOCK_UL:
        case MD_BLOCK_OL: c.lists.pop_back(); break;
        case MD_BLOCK_CODE:
            if (c.current >= 0) {
                MdBlock& b = c.blocks[size_t(c.current)];
                while (!b.runs.empty() && !b.runs.back().text.empty() && b.runs.back().text.back() == '\n') b.runs.back().text.pop_back();
            }
            break;
        default: break;
        }
        c.current = -1;
        return 0;
    }

    static int enter_span(MD_SPANTYPE type, void* detail, void* self) {
        Collector& c = *static_cast<Collector*>(self);
        switch (type) {
        case MD_SPAN_STRONG: ++c.strong; break;
        case MD_SPAN_EM: ++c.em; break;
        case MD_SPAN_CODE: ++c.code; break;
        case MD_SPAN_A: {
            const MD_ATTRIBUTE& href = static_cast<MD_SPAN_A_DETAIL*>(detail)->href;
            c.links.emplace_back(href.text ? std::string(href.text, href.size) : std::string());
            break;
        }
        default: break;   // an image's alt text comes as plain text
        }
        return 0;
    }

    static int leave_span(MD_SPANTYPE type, void*, void* self) {
        Collector& c = *static_cast<Collector*>(self);
        switch (type) {
        case MD_SPAN_STRONG: --c.strong; break;
        case MD_SPAN_EM: --c.em; break;
        case MD_SPAN_CODE: --c.code; break;
        case MD_SPAN_A: c.links.pop_back(); break;
        default: break;
        }
        return 0;
    }

    static int text(MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* self) {
        Collector& c = *static_cast<Collector*>(self);
        switch (type) {
        case MD_TEXT_NULLCHAR: c.append("\xEF\xBF\xBD"); break;   // U+FFFD
        case MD_TEXT_BR: c.append("\n"); break;
        case MD_TEXT_SOFTBR: c.append(" "); break;
        case MD_TEXT_ENTITY: c.append(std::string_view(text, size), true); break;
        default: c.append(std::string_view(text, size)); break;
        }
        return 0;
    }
};

}  // namespace

std::string MdBlock::plain() const {
    std::string s;
    for (const MdRun& r : runs) s += r.text;
    for (const auto& row : rows)
        for (size_t i = 0; i < row.size(); ++i) s += (i ? " | " : s.empty() ? "" : "\n") + row[i];
    return s;
}

std::vector<MdBlock> parse_markdown(std::string_view text) {
    Collector c;
    MD_PARSER p{};
    p.abi_version = 0;
    p.flags = MD_FLAG_NOHTML | MD_FLAG_PERMISSIVEURLAUTOLINKS | MD_FLAG_PERMISSIVEWWWAUTOLINKS | MD_FLAG_TABLES;
    p.enter_block = Collector::enter_block;
    p.leave_block = Collector::leave_block;
    p.enter_span = Collector::enter_span;
    p.leave_span = Collector::leave_span;
    p.text = Collector::text;
    md_parse(text.data(), MD_SIZE(text.size()), &p, &c);   // it fails only on out-of-memory
    return c.blocks;
}

std::string wrap_code(std::string_view code, int columns) {
    columns = std::max(columns, 8);
    std::string out;
    size_t start = 0;
    while (start <= code.size()) {
        size_t end = code.find('\n', start);
        if (end == std::string_view::npos) end = code.size();
        std::string_view line = code.substr(start, end - start);
        bool first = true;
        for (;;) {
            const int room = first ? columns : columns - 2;
            // The byte where character `room` starts (continuation bytes are not characters).
            size_t cut = 0;
            for (int chars = 0; cut < line.size() && chars < room; ++chars) {
                ++cut;
                while (cut < line.size() && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) ++cut;
            }
            if (!first) out += "  ";
            if (cut >= line.size()) {
                out += line;
                break;
            }
            const size_t space = line.rfind(' ', cut);
            if (space != std::string_view::npos && space > cut / 2) cut = space + 1;
            out += line.substr(0, cut);
            out += '\n';
            line.remove_prefix(cut);
            first = false;
        }
        if (end == code.size()) break;
        out += '\n';
        start = end + 1;
    }
    return out;
}

}  // namespace wlui
