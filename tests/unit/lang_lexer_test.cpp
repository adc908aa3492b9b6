// lang_lexer_test.cpp: tokens keep their positions; numbers; highlighting classes.
#include "engine/lang/lexer.h"
#include "engine/lang/literal_limits.h"

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

// An integer with a leading 0 is C's octal to some readers and decimal to others: an error at its
// place that says what to write, still an integer token (the parse goes on). 0, hex and floats are fine.
TEST(LangLexer, ALeadingZeroIsNotOctal) {
    Diagnostics ok;
    auto toks = lex("0 0x08 0X1f 09.5 0.5 010e2 0e0 0..4", ok);
    EXPECT_EQ(ok.errors(), 0) << (ok.list().empty() ? "" : ok.list()[0].message);
    std::vector<Tok> want = {Tok::Int, Tok::Int, Tok::Int, Tok::Float, Tok::Float, Tok::Float, Tok::Float, Tok::Int, Tok::DotDot, Tok::Int, Tok::Eof};
    ASSERT_EQ(toks.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(toks[k].kind, want[k]) << k;

    Diagnostics d;
    toks = lex("a = 08;\n  b = 010 + 00;", d);
    ASSERT_EQ(d.errors(), 3);
    EXPECT_EQ(d.list()[0].line, 1);
    EXPECT_EQ(d.list()[0].col, 5);
    EXPECT_EQ(d.list()[0].message, "integer literal 08 has a leading 0, which is not octal here: write 8");
    EXPECT_EQ(d.list()[1].line, 2);
    EXPECT_EQ(d.list()[1].col, 7);
    EXPECT_EQ(d.list()[1].message, "integer literal 010 has a leading 0, which is not octal here: write 10, or 0x8 for C's octal 010");
    EXPECT_EQ(d.list()[2].message, "integer literal 00 has a leading 0, which is not octal here: write 0");
    EXPECT_EQ(toks[2].kind, Tok::Int);

    // The rule's one place, which --const's values go through too (a sign allowed there).
    EXPECT_EQ(leading_zero_problem("0123"), "has a leading 0, which is not octal here: write 123, or 0x53 for C's octal 0123");
    EXPECT_EQ(leading_zero_problem("-010"), "has a leading 0, which is not octal here: write -10, or -0x8 for C's octal -010");
    EXPECT_EQ(leading_zero_problem("07"), "has a leading 0, which is not octal here: write 7");   // the same number either way
    EXPECT_EQ(leading_zero_problem("040000000000"), "has a leading 0, which is not octal here: write 40000000000");   // past 32 bits as octal
    for (const char* fine : {"0", "-0", "10", "0x10", "09.5", "0.5", "010e2", "", "-"}) EXPECT_EQ(leading_zero_problem(fine), "") << fine;
    const std::string zeros = std::string(1000000, '0') + "10";   // a megabyte of them: cut in the message
    EXPECT_LT(leading_zero_problem(zeros).size(), 200u);
    Diagnostics big;
    lex(zeros, big);
    ASSERT_EQ(big.errors(), 1);
    EXPECT_LT(big.list()[0].message.size(), 300u);
    EXPECT_NE(big.list()[0].message.find("(1000002 bytes)"), std::string::npos) << big.list()[0].message;
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

    // Said, then read as a space: the tokens it stood before reach the parser, so the statement
    // it opens is parsed and not reported missing. The editor still marks it.
    Diagnostics glued;
    toks = lex("layout {\n\xEF\xBB\xBF" "grid\xEF\xBB\xBF" "2", glued);
    ASSERT_EQ(glued.errors(), 2);
    EXPECT_EQ(glued.list()[1].line, 2);
    EXPECT_EQ(glued.list()[1].col, 8);
    ASSERT_EQ(toks.size(), 5u);
    EXPECT_EQ(toks[2].kind, Tok::KwGrid);
    EXPECT_EQ(toks[2].col, 4);
    EXPECT_EQ(toks[3].kind, Tok::Int);
    EXPECT_EQ(toks[3].text, "2");
    auto marked = lex_for_highlight("a \xEF\xBB\xBF" "b");
    ASSERT_EQ(marked.size(), 3u);
    EXPECT_EQ(marked[1].cls, TokenClass::Error);
    EXPECT_EQ(marked[1].length, 3u);

    auto spans = lex_for_highlight("\xEF\xBB\xBF" "fn f");
    ASSERT_EQ(spans.size(), 2u);
    EXPECT_EQ(spans[0].cls, TokenClass::Keyword);
    EXPECT_EQ(spans[0].offset, 3u);
    EXPECT_EQ(spans[0].col, 1);
}
