// markdown.cpp: md4c's callbacks collected into MdBlocks (markdown.h).
#include "ui/markdown.h"

#include <md4c.h>

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
        case MD_BLOCK_P:
        case MD_BLOCK_HTML:
            // A list item's first paragraph is the item itself; later ones are paragraphs under it.
            if (c.current >= 0 && c.blocks[size_t(c.current)].kind == MdBlock::Kind::ListItem && c.blocks[size_t(c.current)].runs.empty()) break;
            c.open(MdBlock::Kind::Paragraph);
            break;
        default: break;   // the document; tables are not enabled
        }
        return 0;
    }

    static int leave_block(MD_BLOCKTYPE type, void*, void* self) {
        Collector& c = *static_cast<Collector*>(self);
        switch (type) {
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
    return s;
}

std::vector<MdBlock> parse_markdown(std::string_view text) {
    Collector c;
    MD_PARSER p{};
    p.abi_version = 0;
    p.flags = MD_FLAG_NOHTML | MD_FLAG_PERMISSIVEURLAUTOLINKS | MD_FLAG_PERMISSIVEWWWAUTOLINKS;
    p.enter_block = Collector::enter_block;
    p.leave_block = Collector::leave_block;
    p.enter_span = Collector::enter_span;
    p.leave_span = Collector::leave_span;
    p.text = Collector::text;
    md_parse(text.data(), MD_SIZE(text.size()), &p, &c);   // it fails only on out-of-memory
    return c.blocks;
}

}  // namespace wlui
