#include "ui/text_buffer.h"

#include <gtest/gtest.h>

using wlui::TextBuffer;
using wlui::TextPos;
using Move = TextBuffer::Move;

TEST(TextBuffer, SplitsLinesAndRoundTrips) {
    TextBuffer b("a\r\nbc\n\nd");
    EXPECT_EQ(b.line_count(), 4);
    EXPECT_EQ(b.line(1), "bc");
    EXPECT_EQ(b.text(), "a\nbc\n\nd");
    EXPECT_FALSE(b.modified());
}

// A file saved with a UTF-8 byte-order mark opens as its text: line 1's columns are the compiler's.
TEST(TextBuffer, AByteOrderMarkIsNotText) {
    TextBuffer b("\xEF\xBB\xBF" "const N = 1;\nx");
    EXPECT_EQ(b.line(0), "const N = 1;");
    EXPECT_EQ(b.text(), "const N = 1;\nx");
}

TEST(TextBuffer, TypingMergesIntoOneUndoStep) {
    TextBuffer b("x");
    b.set_cursor({0, 1});
    for (char c : std::string("yz")) b.insert(std::string(1, c));
    b.insert(" ");
    b.insert("w");
    EXPECT_EQ(b.text(), "xyz w");
    EXPECT_TRUE(b.modified());
    ASSERT_TRUE(b.undo());   // "w"
    EXPECT_EQ(b.text(), "xyz ");
    ASSERT_TRUE(b.undo());   // " "
    ASSERT_TRUE(b.undo());   // "yz" as one step
    EXPECT_EQ(b.text(), "x");
    EXPECT_FALSE(b.undo());
    EXPECT_FALSE(b.modified());
    ASSERT_TRUE(b.redo());
    EXPECT_EQ(b.text(), "xyz");
    EXPECT_EQ(b.cursor(), (TextPos{0, 3}));
}

TEST(TextBuffer, SelectionReplaceAcrossLinesUndoes) {
    TextBuffer b("one\ntwo\nthree");
    b.set_cursor({0, 1});
    b.set_cursor({2, 2}, true);
    EXPECT_EQ(b.selected_text(), "ne\ntwo\nth");
    b.insert("X\nY");
    EXPECT_EQ(b.text(), "oX\nYree");
    EXPECT_EQ(b.cursor(), (TextPos{1, 1}));
    b.undo();
    EXPECT_EQ(b.text(), "one\ntwo\nthree");
    EXPECT_EQ(b.cursor(), (TextPos{2, 2}));
}

TEST(TextBuffer, BackspaceJoinsLinesAndDeleteAtEndIsNoop) {
    TextBuffer b("ab\ncd");
    b.set_cursor({1, 0});
    b.backspace();
    EXPECT_EQ(b.text(), "abcd");
    EXPECT_EQ(b.cursor(), (TextPos{0, 2}));
    b.move(Move::Bottom, false);
    b.del();
    EXPECT_EQ(b.text(), "abcd");
    b.move(Move::Top, false);
    b.backspace();
    EXPECT_EQ(b.text(), "abcd");
}

TEST(TextBuffer, NewlineKeepsIndentation) {
    TextBuffer b("    task f() {");
    b.move(Move::End, false);
    b.newline();
    b.insert("x");
    EXPECT_EQ(b.text(), "    task f() {\n    x");
}

TEST(TextBuffer, CursorStepsOverUtf8AndWords) {
    TextBuffer b("a\xC3\xA9 bc_d;");
    b.set_cursor({0, 1});
    b.move(Move::Right, false);
    EXPECT_EQ(b.cursor().col, 3);   // over the two-byte é
    b.move(Move::Left, false);
    EXPECT_EQ(b.cursor().col, 1);
    b.set_cursor({0, 0});
    b.move(Move::WordRight, false);
    EXPECT_EQ(b.cursor().col, 3);
    b.move(Move::WordRight, false);
    EXPECT_EQ(b.cursor().col, 8);
    b.move(Move::WordLeft, false);
    EXPECT_EQ(b.cursor().col, 4);
}

TEST(TextBuffer, UpDownRememberTheColumn) {
    TextBuffer b("long line\nx\nanother line");
    b.set_cursor({0, 7});
    b.move(Move::Down, false);
    EXPECT_EQ(b.cursor(), (TextPos{1, 1}));
    b.move(Move::Down, false);
    EXPECT_EQ(b.cursor(), (TextPos{2, 7}));
    b.move(Move::Home, false);
    EXPECT_EQ(b.cursor().col, 0);
}

TEST(TextBuffer, HomeTogglesBetweenIndentAndColumnZero) {
    TextBuffer b("   x");
    b.move(Move::End, false);
    b.move(Move::Home, false);
    EXPECT_EQ(b.cursor().col, 3);
    b.move(Move::Home, false);
    EXPECT_EQ(b.cursor().col, 0);
}

TEST(TextBuffer, NewEditClearsRedoAndSetTextClearsHistory) {
    TextBuffer b("a");
    b.move(Move::End, false);
    b.insert("b");
    b.undo();
    EXPECT_TRUE(b.can_redo());
    b.insert("c");
    EXPECT_FALSE(b.can_redo());
    b.set_text("new");
    EXPECT_FALSE(b.can_undo());
    EXPECT_FALSE(b.modified());
}

TEST(TextBuffer, ModifiedFollowsUndoToTheSavedText) {
    TextBuffer b("abc");
    b.move(Move::End, false);
    b.insert("d");
    b.mark_saved();
    EXPECT_FALSE(b.modified());
    b.insert("e");   // starts a new undo step after a save
    EXPECT_TRUE(b.modified());
    b.undo();
    EXPECT_FALSE(b.modified());
    EXPECT_EQ(b.text(), "abcd");
    b.undo();
    EXPECT_TRUE(b.modified());
    b.insert("x");   // the saved text is now unreachable by redo
    EXPECT_TRUE(b.modified());
}

// A double-click takes the word under the pointer, whichever half of it was hit: typing then
// replaces the whole word (double-clicking the 8 of "P = 8;" and typing 128 gives "P = 128;").
TEST(TextBuffer, SelectWordTakesTheWordUnderThePointer) {
    TextBuffer b("const P = 8;\nfn load_w() {}");
    b.select_word({0, 10});   // on the 8
    EXPECT_EQ(b.selected_text(), "8");
    b.insert("128");
    EXPECT_EQ(b.line(0), "const P = 128;");
    b.select_word({1, 5});    // inside load_w
    EXPECT_EQ(b.selected_text(), "load_w");
    b.select_word({1, 2});    // on the space: the run of spaces
    EXPECT_EQ(b.selected_text(), " ");
    b.select_word({1, 9});    // "()" is one run of symbols
    EXPECT_EQ(b.selected_text(), "()");
    b.select_word({1, 99});   // past the end: the last character's run
    EXPECT_EQ(b.selected_text(), "{}");
}

TEST(TextBuffer, FindGoesForwardFromThePlaceAndWraps) {
    TextBuffer b("a load_w\nLOAD_W b\nc");
    EXPECT_EQ(b.find("load_w", {0, 0}), (TextPos{0, 2}));
    EXPECT_EQ(b.find("load_w", {0, 3}), (TextPos{1, 0}));   // case-insensitive
    EXPECT_EQ(b.find("load_w", {1, 1}), (TextPos{0, 2}));   // wraps to the top
    EXPECT_EQ(b.find("load_w", {2, 1}), (TextPos{0, 2}));
    EXPECT_EQ(b.find("absent", {0, 0}).line, -1);
    EXPECT_EQ(b.find("", {0, 0}).line, -1);
    TextBuffer one("x y x");
    EXPECT_EQ(one.find("x", {0, 1}), (TextPos{0, 4}));
    EXPECT_EQ(one.find("x", {0, 5}), (TextPos{0, 0}));        // the start line again, before the place
}
