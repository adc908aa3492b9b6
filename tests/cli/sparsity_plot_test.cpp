// sparsity_plot_test.cpp: bench sparsity's SVG writer (cli/sparsity_plot.h): data in, the
// same text out, with the points where the axes put them.
#include "cli/sparsity_plot.h"
#include "engine/core/output_guard.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using wlcli::SparsityPlot;
using wlcli::SparsitySeries;

SparsityPlot sample() {
    SparsityPlot p;
    p.title = "cycles <against> density & more";
    p.note = "32x32 mesh";
    p.series = {{"one matmul", 100000, {{0.1, 31000}, {1.0, 115000}, {0.5, 72000}}},
                {"forward", 2000000, {{0.5, 1700000}}}};
    return p;
}

TEST(SparsityPlot, SameDataSameBytes) {
    const std::string a = wlcli::sparsity_svg(sample()), b = wlcli::sparsity_svg(sample());
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.rfind(wl::kSvgOutput.signature, 0), 0u);   // who wrote it first, so --plot replaces only its own
    EXPECT_NE(a.find("\n<svg "), std::string::npos);
    EXPECT_EQ(a.substr(a.size() - 7), "</svg>\n");
    SparsityPlot c = sample();
    c.series[0].points[0].second = 32000;
    EXPECT_NE(wlcli::sparsity_svg(c), a);
}

TEST(SparsityPlot, PointsSitOnTheAxes) {
    const std::string s = wlcli::sparsity_svg(sample());
    // Panel 0: x0 = 70, width 300, y0 = 280, height 220; the y axis tops at 150k (ticks of 50k
    // over 115k x 1.05). Sorted by density: (0.1, 31k), (0.5, 72k), (1, 115k).
    EXPECT_NE(s.find("points=\"100.0,234.5 220.0,174.4 370.0,111.3\""), std::string::npos) << s;
    // The ideal runs from the origin to the dense cycles at density 1; the dense line is flat.
    EXPECT_NE(s.find("x1=\"70.0\" y1=\"280.0\" x2=\"370.0\" y2=\"133.3\" stroke=\"#2a7\""), std::string::npos);
    EXPECT_NE(s.find("x1=\"70.0\" y1=\"133.3\" x2=\"370.0\" y2=\"133.3\" stroke=\"#444\""), std::string::npos);
    EXPECT_NE(s.find(">150k<"), std::string::npos);
    EXPECT_NE(s.find("cycles &lt;against&gt; density &amp; more"), std::string::npos);
    EXPECT_EQ(s.find("<against>"), std::string::npos);
}

}  // namespace
