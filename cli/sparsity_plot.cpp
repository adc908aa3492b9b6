// sparsity_plot.cpp: see sparsity_plot.h. Every number is printed with a fixed format, so
// the text depends on the data alone.
#include "cli/sparsity_plot.h"

#include "engine/core/output_guard.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace wlcli {

namespace {

constexpr double kPanelW = 300, kPanelH = 220, kLeft = 70, kTop = 60, kGap = 40, kBottom = 50;

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, f, a, b, c, d);
    return buf;
}

std::string escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        if (ch == '&') o += "&amp;";
        else if (ch == '<') o += "&lt;";
        else if (ch == '>') o += "&gt;";
        else if (ch == '"') o += "&quot;";
        else o += ch;
    }
    return o;
}

// A round step for about 4 ticks up to top: 1, 2 or 5 times a power of ten.
double tick_step(double top) {
    const double raw = top / 4, p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * p >= raw) return m * p;
    return 10 * p;
}

std::string cycles_label(double v) {
    if (v >= 1e6) return fmt("%.1fM", v / 1e6);
    if (v >= 1e3) return fmt("%.0fk", v / 1e3);
    return fmt("%.0f", v);
}

}  // namespace

std::string sparsity_svg(const SparsityPlot& p) {
    const size_t n = p.series.size();
    const double W = kLeft + double(n) * (kPanelW + kGap), H = kTop + kPanelH + kBottom + 30;
    // The first bytes say who wrote it (kSvgOutput's signature), so --plot replaces this plot, never a user's own SVG.
    std::string s = std::string(wl::kSvgOutput.signature) + " -->\n" + fmt("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                        "font-family=\"sans-serif\" font-size=\"11\">\n",
                        W, H, W, H);
    s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s += "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" + escape(p.title) + "</text>\n";
    s += "<text x=\"10\" y=\"38\">" + escape(p.note) + "</text>\n";
    for (size_t i = 0; i < n; i++) {
        const SparsitySeries& ser = p.series[i];
        double top = ser.dense_cycles;
        for (const auto& pt : ser.points) top = std::max(top, pt.second);
        if (!(top > 0)) top = 1;
        const double step = tick_step(top * 1.05), ymax = std::ceil(top * 1.05 / step) * step;
        const double x0 = kLeft + double(i) * (kPanelW + kGap), y0 = kTop + kPanelH;
        auto X = [&](double d) { return x0 + d * kPanelW; };
        auto Y = [&](double c) { return y0 - c / ymax * kPanelH; };
        s += "<g>\n";
        s += "<text x=\"" + fmt("%.1f", x0) + "\" y=\"" + fmt("%.1f", kTop - 8) + "\" font-weight=\"bold\">" +
             escape(ser.name) + "</text>\n";
        s += fmt("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n", x0, kTop,
                 kPanelW, kPanelH);
        for (double v = 0; v <= ymax * (1 + 1e-9); v += step) {
            s += fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x0, Y(v), x0 + kPanelW, Y(v));
            s += fmt("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 4, Y(v) + 4) + cycles_label(v) + "</text>\n";
        }
        for (int k = 0; k <= 4; k++) {
            const double d = k * 0.25;
            s += fmt("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.2f</text>\n", X(d), y0 + 15, d);
        }
        s += fmt("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">density</text>\n", x0 + kPanelW / 2, y0 + 32);
        // Dense: flat; ideal: density x dense.
        s += fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" stroke-dasharray=\"6,4\"/>\n", X(0),
                 Y(ser.dense_cycles), X(1), Y(ser.dense_cycles));
        s += fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#2a7\" stroke-dasharray=\"2,3\"/>\n", X(0),
                 Y(0), X(1), Y(ser.dense_cycles));
        std::vector<std::pair<double, double>> pts = ser.points;
        std::sort(pts.begin(), pts.end());
        if (!pts.empty()) {
            s += "<polyline fill=\"none\" stroke=\"#c33\" stroke-width=\"2\" points=\"";
            for (size_t k = 0; k < pts.size(); k++)
                s += fmt(k ? " %.1f,%.1f" : "%.1f,%.1f", X(pts[k].first), Y(pts[k].second));
            s += "\"/>\n";
            for (const auto& pt : pts)
                s += fmt("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#c33\"/>\n", X(pt.first), Y(pt.second));
        }
        s += "</g>\n";
    }
    // Legend.
    const double ly = H - 12;
    s += fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c33\" stroke-width=\"2\"/>\n", kLeft, ly - 4,
             kLeft + 24, ly - 4);
    s += fmt("<text x=\"%.1f\" y=\"%.1f\">emulated, sparse plan</text>\n", kLeft + 30, ly);
    s += fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" stroke-dasharray=\"6,4\"/>\n",
             kLeft + 170, ly - 4, kLeft + 194, ly - 4);
    s += fmt("<text x=\"%.1f\" y=\"%.1f\">dense plan</text>\n", kLeft + 200, ly);
    s += fmt("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#2a7\" stroke-dasharray=\"2,3\"/>\n",
             kLeft + 290, ly - 4, kLeft + 314, ly - 4);
    s += fmt("<text x=\"%.1f\" y=\"%.1f\">ideal: density x dense</text>\n", kLeft + 320, ly);
    s += "</svg>\n";
    return s;
}

}  // namespace wlcli
