// lang_docs_test.cpp: the builtin cost table and the keyword table in
// docs/kernel-language.md are the ones generated from WL_BUILTINS, WL_ISA and the
// keyword table, and every word the editor colours has hover help.
// Set WAFERLAB_UPDATE_DOCS=1 to rewrite the generated tables.
#include "engine/lang/builtins.h"
#include "engine/lang/help.h"
#include "engine/lang/lexer.h"
#include "engine/lang/token.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

// The text between <!-- BEGIN name ... --> and <!-- END name --> in docs/kernel-language.md
// must be `want`; WAFERLAB_UPDATE_DOCS=1 rewrites it.
static void expect_generated(const std::string& name, const std::string& want) {
    const std::string path = std::string(WAFERLAB_SOURCE_DIR) + "/docs/kernel-language.md";
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string doc = ss.str();
    const std::string begin = "<!-- BEGIN " + name, end = "<!-- END " + name + " -->";
    size_t b = doc.find(begin), e = doc.find(end);
    ASSERT_NE(b, std::string::npos) << begin;
    ASSERT_NE(e, std::string::npos) << end;
    b = doc.find("-->", b) + 4;
    std::string got = doc.substr(b, e - b);
    if (got != want && std::getenv("WAFERLAB_UPDATE_DOCS")) {
        std::ofstream(path, std::ios::binary) << doc.substr(0, b) + want + doc.substr(e);
        got = want;
    }
    EXPECT_EQ(got, want) << "regenerate with WAFERLAB_UPDATE_DOCS=1";
}

TEST(LangDocs, BuiltinCostTableIsGenerated) { expect_generated("builtin-costs", wl::lang::builtin_cost_markdown()); }

TEST(LangDocs, KeywordTableIsGenerated) { expect_generated("keywords", wl::lang::keyword_help_markdown()); }

// Every word the editor colours as a keyword, type or builtin has hover help.
TEST(LangDocs, EveryKeywordTypeAndBuiltinHasHelp) {
#define WK_X(name, sp) EXPECT_FALSE(wl::lang::word_help(sp).empty()) << sp;
    WK_KEYWORDS(WK_X)
#undef WK_X
#define WL_X(name, str, sig, result, op, call, note) EXPECT_FALSE(wl::lang::word_help(str).empty()) << str;
    WL_BUILTINS(WL_X)
#undef WL_X
    for (int k = 0; k < wl::op_count(); ++k) {
        if (wl::op_is_vector(wl::Op(k))) {
            EXPECT_FALSE(wl::lang::word_help(wl::op_info(wl::Op(k)).mnemonic).empty());
        }
    }
    // Help is generated from the tables: the vector op's doc and cost, the scalar builtin's opcode.
    const std::string fmacs = wl::lang::word_help("fmacs");
    EXPECT_EQ(fmacs.rfind("fmacs(dst, a, b, s: f32): ", 0), 0u) << fmacs;
    EXPECT_NE(fmacs.find(wl::op_info(wl::Op::FMACS).doc), std::string::npos) << fmacs;
    EXPECT_NE(wl::lang::word_help("recv_i32").find("compiles to recv"), std::string::npos);
    EXPECT_NE(wl::lang::word_help("fabin").find("fabin DSD"), std::string::npos) << wl::lang::word_help("fabin");
    EXPECT_EQ(wl::lang::word_help("x"), "");
    EXPECT_EQ(wl::lang::word_help("fma"), "");       // a prefix of a builtin is not one
}

// The token-class table lists every scalar builtin and every vector opcode, read from the two tables.
TEST(LangDocs, BuiltinNamesAreListed) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/docs/kernel-language.md");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string vectors;
    for (int k = 0; k < wl::op_count(); ++k)
        if (wl::op_is_vector(wl::Op(k))) vectors += (vectors.empty() ? "" : " ") + std::string(wl::op_info(wl::Op(k)).mnemonic);
    const std::string row = "| `builtin` | an identifier naming a builtin: `" + wl::lang::builtin_names() +
                            "` and every vector opcode of the isa table (`" + vectors + "`) |";
    EXPECT_NE(ss.str().find(row), std::string::npos) << "docs/kernel-language.md should have the row\n" << row;
}
