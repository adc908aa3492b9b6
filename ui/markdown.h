// markdown.h: Markdown text (a lesson's lesson.md) as blocks of styled runs, ready to draw.
// md4c (a CommonMark parser: Debian's libmd4c natively, its Debian source in WASM) does the
// parsing; this only collects its callbacks. No ImGui here: markdown_view.cpp draws the
// blocks and tests/ui/markdown_test.cpp checks what the parse gives.
//
//   "## Where **the** cycles go"  ->  {Heading, level 2, runs "Where ", "the" (Strong), " cycles go"}
//
// Kept: headings, paragraphs, bullet and numbered lists (nested), block quotes, code blocks,
// rules, emphasis, strong, inline code, links and tables (GitHub's pipe tables: cells as plain
// text, the first row the header). Raw HTML is shown as text; images as their alt text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wlui {

struct MdRun {
    enum Style : uint8_t { Plain = 0, Strong = 1, Em = 2, Code = 4, Link = 8 };
    std::string text;             // UTF-8; a hard line break is '\n'
    uint8_t style = Plain;        // Style bits
    std::string href;             // for Link
};

struct MdBlock {
    enum class Kind : uint8_t { Heading, Paragraph, ListItem, Code, Rule, Table };
    Kind kind = Kind::Paragraph;
    int level = 0;                // Heading: 1..6
    int depth = 0;                // list nesting around the block (0: none), plus block quotes
    bool quote = false;           // inside a block quote
    std::string marker;           // ListItem: "•" or "3."; "" for a list item's later paragraphs
    std::vector<MdRun> runs;      // Code: one run with the lines, ending without '\n'
    std::vector<std::vector<std::string>> rows;   // Table: each row's cells, the header row first
    std::string plain() const;    // the runs' text, styles dropped (a table's cells, " | " between)
};

std::vector<MdBlock> parse_markdown(std::string_view text);

// A code block's lines broken to at most `columns` characters (UTF-8 aware), at the last space
// in the line's second half where there is one; a continuation starts with two spaces.
std::string wrap_code(std::string_view code, int columns);

}  // namespace wlui
