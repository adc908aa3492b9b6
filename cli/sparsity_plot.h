// sparsity_plot.h: `bench sparsity --plot FILE.svg`'s picture, as SVG text. Pure: the
// measured series in, the same bytes out on every run and host (fixed-point numbers).
//
//   SparsityPlot p; p.title = "..."; p.series = {{"one matmul, l0.fch", dense_cycles, {{1, c1}, {0.5, c2}}}};
//   std::string svg = sparsity_svg(p);
//
// One panel per series: emulated cycles against density (0 .. 1, dense at the right), the
// measured points joined, the dense plan's cycles as a flat dashed line, and the ideal
// (density x dense) as a dotted line from the origin. Each panel's y axis starts at 0.
#pragma once
#include <string>
#include <vector>

namespace wlcli {

struct SparsitySeries {
    std::string name;                              // "one matmul, l0.fch"
    double dense_cycles = 0;                       // the dense plan's
    std::vector<std::pair<double, double>> points; // (density, cycles) of the sparse plans
};

struct SparsityPlot {
    std::string title;
    std::string note;                              // a line under the title: model, mesh, mode
    std::vector<SparsitySeries> series;
};

std::string sparsity_svg(const SparsityPlot& p);

}  // namespace wlcli
