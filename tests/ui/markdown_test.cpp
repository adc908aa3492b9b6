// markdown_test.cpp: what md4c's parse of a lesson text becomes (the blocks the Lessons panel draws).
#include "ui/markdown.h"

#include "engine/lessons/lesson.h"

#include <gtest/gtest.h>

using wlui::MdBlock;
using wlui::MdRun;
using wlui::parse_markdown;
using Kind = MdBlock::Kind;

TEST(Markdown, HeadingsParagraphsAndInlineStyles) {
    const auto b = parse_markdown("# One PE\n\nA **bold** claim, *said* with `code`\nand a soft break.\n\n## Cost\n");
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[0].kind, Kind::Heading);
    EXPECT_EQ(b[0].level, 1);
    EXPECT_EQ(b[0].plain(), "One PE");
    EXPECT_EQ(b[1].kind, Kind::Paragraph);
    EXPECT_EQ(b[1].plain(), "A bold claim, said with code and a soft break.");   // no markup left
    ASSERT_EQ(b[1].runs.size(), 7u);
    EXPECT_EQ(b[1].runs[1].text, "bold");
    EXPECT_EQ(b[1].runs[1].style, MdRun::Strong);
    EXPECT_EQ(b[1].runs[3].text, "said");
    EXPECT_EQ(b[1].runs[3].style, MdRun::Em);
    EXPECT_EQ(b[1].runs[5].text, "code");
    EXPECT_EQ(b[1].runs[5].style, MdRun::Code);
    EXPECT_EQ(b[2].level, 2);
}

TEST(Markdown, NestedStylesAndLinks) {
    const auto b = parse_markdown("See ***both*** and [the SDK](https://sdk.cerebras.net/ \"t\") or https://example.org.");
    ASSERT_EQ(b.size(), 1u);
    const auto& r = b[0].runs;
    ASSERT_GE(r.size(), 6u);
    EXPECT_EQ(r[1].text, "both");
    EXPECT_EQ(r[1].style, MdRun::Strong | MdRun::Em);
    EXPECT_EQ(r[3].text, "the SDK");
    EXPECT_EQ(r[3].style, MdRun::Link);
    EXPECT_EQ(r[3].href, "https://sdk.cerebras.net/");
    EXPECT_EQ(r[5].text, "https://example.org");   // a bare URL is a link too
    EXPECT_EQ(r[5].href, "https://example.org");
}

TEST(Markdown, ListsNumberedNestedAndLoose) {
    const auto b = parse_markdown("3. three\n4. four\n   - inner\n\n   more of four\n\n> quoted\n");
    ASSERT_EQ(b.size(), 5u);
    EXPECT_EQ(b[0].kind, Kind::ListItem);
    EXPECT_EQ(b[0].marker, "3.");
    EXPECT_EQ(b[0].plain(), "three");
    EXPECT_EQ(b[0].depth, 1);
    EXPECT_EQ(b[1].marker, "4.");
    EXPECT_EQ(b[2].marker, "\xE2\x80\xA2");
    EXPECT_EQ(b[2].depth, 2);
    EXPECT_EQ(b[2].plain(), "inner");
    EXPECT_EQ(b[3].kind, Kind::Paragraph);   // the item's second paragraph, under it
    EXPECT_EQ(b[3].depth, 1);
    EXPECT_EQ(b[3].plain(), "more of four");
    EXPECT_TRUE(b[4].quote);
    EXPECT_EQ(b[4].plain(), "quoted");
}

TEST(Markdown, CodeBlocksRulesEntitiesAndBreaks) {
    const auto b = parse_markdown("```\nfor i in 0..8 {\n    y[i] = x[i];\n}\n```\n\n---\n\nA &amp; B &#215; C &#x2264; D  \nnext <b>raw</b>");
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[0].kind, Kind::Code);
    ASSERT_EQ(b[0].runs.size(), 1u);
    EXPECT_EQ(b[0].runs[0].text, "for i in 0..8 {\n    y[i] = x[i];\n}");
    EXPECT_EQ(b[0].runs[0].style, MdRun::Code);
    EXPECT_EQ(b[1].kind, Kind::Rule);
    EXPECT_EQ(b[2].plain(), "A & B \xC3\x97 C \xE2\x89\xA4 D\nnext <b>raw</b>");   // a hard break is '\n'; HTML stays text
}

// Every lesson's text parses to a title heading first, its own title, with no Markdown left in it.
TEST(Markdown, EveryLessonTextRendersWithoutMarkup) {
    const auto set = wl::lessons::load_lessons(std::string(WAFERLAB_SOURCE_DIR) + "/lessons");
    ASSERT_TRUE(set.errors.empty()) << set.errors[0];
    ASSERT_FALSE(set.lessons.empty());
    for (const auto& l : set.lessons) {
        const auto b = parse_markdown(l.text);
        ASSERT_GE(b.size(), 3u) << l.dir;
        EXPECT_EQ(b[0].kind, Kind::Heading) << l.dir;
        EXPECT_EQ(b[0].plain(), l.title) << l.dir;
        for (const MdBlock& blk : b) {
            if (blk.kind == Kind::Code) continue;
            const std::string t = blk.plain();
            EXPECT_EQ(t.find("**"), std::string::npos) << l.dir << ": " << t;
            EXPECT_EQ(t.find("`"), std::string::npos) << l.dir << ": " << t;
            EXPECT_NE(t.rfind("#", 0), 0u) << l.dir << ": " << t;
        }
    }
}

// A pipe table is a grid, not its raw pipes (lesson 12's cycles by P).
TEST(Markdown, TablesBecomeRowsOfCells) {
    const auto b = parse_markdown("Before.\n\n| P | 2 | 4 |\n|---|---|---|\n| cycles | 4,353 | `2,415` |\n\nAfter.\n");
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[1].kind, Kind::Table);
    ASSERT_EQ(b[1].rows.size(), 2u);
    EXPECT_EQ(b[1].rows[0], (std::vector<std::string>{"P", "2", "4"}));
    EXPECT_EQ(b[1].rows[1], (std::vector<std::string>{"cycles", "4,353", "2,415"}));
    EXPECT_EQ(b[2].plain(), "After.");
    for (const MdBlock& x : b) EXPECT_EQ(x.plain().find("|---"), std::string::npos);
}

// A code block's long line breaks at a space, so nothing is cut at the panel's right edge.
TEST(Markdown, CodeWrapsToTheWidth) {
    EXPECT_EQ(wlui::wrap_code("short\nlines", 20), "short\nlines");
    const std::string w = wlui::wrap_code("time = max(launch, bytes / bandwidth, flops / peak)", 24);
    EXPECT_EQ(w, "time = max(launch, bytes \n  / bandwidth, flops / \n  peak)");   // a space at the edge goes with its line
    const std::string nospace = wlui::wrap_code("abcdefghijklmnopqrstuvwxyz", 10);
    EXPECT_EQ(nospace, "abcdefghij\n  klmnopqr\n  stuvwxyz");
    EXPECT_EQ(wlui::wrap_code("x \xC3\x97 y \xC3\x97 z", 8), "x \xC3\x97 y \xC3\x97 \n  z");   // characters, not bytes
}
