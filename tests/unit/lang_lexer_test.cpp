// lang_lexer_test.cpp: tokens keep their positions; highlighting classes.
#include "engine/lang/lexer.h"

#include <gtest/gtest.h>

using namespace wl::lang;

TEST(LangLexer, TokensKeepPositions) {
    Diagnostics d("t.wk");
    auto toks = lex("program p {\n  var a: [f32; 4]; // note\n}", d);
    ASSERT_EQ(d.errors(), 0);
    ASSERT_GE(toks.size(), 12u);
    EXPECT_EQ(toks[0].kind, Tok::KwProgram);
    EXPECT_EQ(toks[1].kind, Tok::Ident);
    EXPECT_EQ(toks[1].text, "p");
    EXPECT_EQ(toks[3].kind, Tok::KwVar);
    EXPECT_EQ(toks[3].line, 2);
    EXPECT_EQ(toks[3].col, 3);
    EXPECT_EQ(toks.back().kind, Tok::Eof);
    EXPECT_EQ(toks.back().line, 3);
}

TEST(LangLexer, NumbersAndOperators) {
    Diagnostics d;
    auto toks = lex("1 2.5 1e3 0x1F 0..4 -> += <= >> && ||", d);
    std::vector<Tok> want = {Tok::Int, Tok::Float, Tok::Float, Tok::Int, Tok::Int, Tok::DotDot, Tok::Int, Tok::Arrow,
                             Tok::PlusAssign, Tok::Le, Tok::Shr, Tok::AmpAmp, Tok::PipePipe, Tok::Eof};
    ASSERT_EQ(toks.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(toks[k].kind, want[k]) << k;
    EXPECT_EQ(d.errors(), 0);
}

TEST(LangLexer, BadBytesAreOneDiagnosticPerRun) {
    Diagnostics d;
    std::string s = "a \x01\x02\x03\xff b $$$ c";
    auto toks = lex(s, d);
    EXPECT_EQ(d.errors(), 2);
    EXPECT_EQ(d.list()[0].message, "unexpected byte 0x01");
    EXPECT_EQ(d.list()[1].message, "unexpected character '$'");
}

TEST(LangLexer, HighlightClasses) {
    auto spans = lex_for_highlight("fn f() -> f32 { send(c, 1.0); fmacs(a, b, c, 2.0); } // hi\n x @");
    auto cls = [&](size_t k) { return spans.at(k).cls; };
    EXPECT_EQ(cls(0), TokenClass::Keyword);      // fn
    EXPECT_EQ(cls(1), TokenClass::Identifier);   // f
    EXPECT_EQ(cls(2), TokenClass::Punctuation);  // (
    EXPECT_EQ(cls(4), TokenClass::Punctuation);  // ->
    EXPECT_EQ(cls(5), TokenClass::Type);         // f32
    EXPECT_EQ(cls(7), TokenClass::Builtin);      // send
    EXPECT_EQ(cls(11), TokenClass::Number);      // 1.0
    EXPECT_EQ(cls(14), TokenClass::Builtin);     // fmacs (from the isa table)
    bool comment = false, error = false;
    for (auto& s : spans) comment |= s.cls == TokenClass::Comment, error |= s.cls == TokenClass::Error;
    EXPECT_TRUE(comment);
    EXPECT_TRUE(error);
    EXPECT_STREQ(token_class_name(TokenClass::Builtin), "builtin");
}

// A UTF-8 byte-order mark that opens the file is skipped and is no column (offsets stay bytes
// into the source, for the editor); anywhere else it is an error that says what it is.
TEST(LangLexer, ByteOrderMark) {
    Diagnostics d;
    auto toks = lex("\xEF\xBB\xBF" "program p", d);
    EXPECT_EQ(d.errors(), 0);
    ASSERT_EQ(toks.size(), 3u);
    EXPECT_EQ(toks[0].kind, Tok::KwProgram);
    EXPECT_EQ(toks[0].line, 1);
    EXPECT_EQ(toks[0].col, 1);
    EXPECT_EQ(toks[0].offset, 3u);
    EXPECT_EQ(toks[1].col, 9);

    Diagnostics mid;
    lex("a\n  \xEF\xBB\xBF" " b \xEF" " c", mid);
    ASSERT_EQ(mid.errors(), 2);
    EXPECT_EQ(mid.list()[0].line, 2);
    EXPECT_EQ(mid.list()[0].col, 3);
    EXPECT_EQ(mid.list()[0].message, "unexpected byte 0xef: a byte-order mark (ef bb bf) is allowed only at the start of the file");
    EXPECT_EQ(mid.list()[1].message, "unexpected byte 0xef");   // a lone 0xEF is no mark

    auto spans = lex_for_highlight("\xEF\xBB\xBF" "fn f");
    ASSERT_EQ(spans.size(), 2u);
    EXPECT_EQ(spans[0].cls, TokenClass::Keyword);
    EXPECT_EQ(spans[0].offset, 3u);
    EXPECT_EQ(spans[0].col, 1);
}
