// kernel_header_test.cpp: a kernel's opening comment becomes wrappable prose.
#include "ui/kernel_header.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using wlui::kernel_header;

TEST(KernelHeader, JoinsTheOpeningCommentIntoParagraphs) {
    EXPECT_EQ(kernel_header("// one\n// two\n//\n// three\ncolour c = 1;\n// not this\n"), "one two\n\nthree");
    EXPECT_EQ(kernel_header("\n  // indented\n\n// after a blank line: not the header\n"), "indented");
    EXPECT_EQ(kernel_header("layout { grid 1 x 1; }\n// late\n"), "");
    EXPECT_EQ(kernel_header(""), "");
}

TEST(KernelHeader, GemvsHeaderIsWholeAndHasNoMarkers) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/gemv.wk");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string h = kernel_header(ss.str());
    EXPECT_EQ(h.rfind("gemv.wk: y = A x", 0), 0u) << h;
    EXPECT_NE(h.find("each router only ever receives one colour"), std::string::npos) << h;
    EXPECT_EQ(h.find("//"), std::string::npos) << h;
    EXPECT_EQ(h.find('\n'), std::string::npos) << h;   // one paragraph
}
