// lang_docs_test.cpp: the builtin tables in docs/kernel-language.md are the
// ones generated from WL_BUILTINS and WL_ISA. Set WAFERLAB_UPDATE_DOCS=1 to rewrite the cost table.
#include "engine/lang/builtins.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

TEST(LangDocs, BuiltinCostTableIsGenerated) {
    const std::string path = std::string(WAFERLAB_SOURCE_DIR) + "/docs/kernel-language.md";
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string doc = ss.str();
    const std::string begin = "<!-- BEGIN builtin-costs", end = "<!-- END builtin-costs -->";
    size_t b = doc.find(begin), e = doc.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    b = doc.find("-->", b) + 4;
    std::string want = wl::lang::builtin_cost_markdown();
    std::string got = doc.substr(b, e - b);
    if (got != want && std::getenv("WAFERLAB_UPDATE_DOCS")) {
        std::ofstream(path, std::ios::binary) << doc.substr(0, b) + want + doc.substr(e);
        got = want;
    }
    EXPECT_EQ(got, want) << "regenerate with WAFERLAB_UPDATE_DOCS=1";
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
