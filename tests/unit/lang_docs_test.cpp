// lang_docs_test.cpp: the builtin cost table in docs/kernel-language.md is the
// one generated from the isa table. Set WAFERLAB_UPDATE_DOCS=1 to rewrite it.
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
