// stats_window.cpp: the Stats window (see stats_window.h).
#include "ui/stats_window.h"

#include "engine/core/atomic_file.h"
#include "engine/core/output_guard.h"
#include "ui/glossary.h"
#include "ui/js_bridge.h"
#include "ui/stats_report.h"

#include <imgui.h>
#include <algorithm>
#include <cstdio>
#include <fstream>

namespace wlui {

namespace {

const ImVec4 kDim(0.55f, 0.6f, 0.68f, 1.0f);
constexpr ImU32 kBusyLine = IM_COL32(110, 210, 120, 255);
constexpr ImU32 kHopsLine = IM_COL32(90, 160, 240, 255);
constexpr ImU32 kNowLine = IM_COL32(255, 190, 60, 255);
constexpr ImU32 kPlotBg = IM_COL32(18, 21, 28, 255);
constexpr size_t kTopLinks = 8;

// 0..1 -> dark blue, teal, yellow, red: idle reads as background, saturation as alarm.
ImU32 heat(float t) {
    static const float k[][3] = {{28, 34, 56}, {36, 128, 150}, {236, 200, 70}, {230, 80, 50}};
    t = std::clamp(t, 0.0f, 1.0f) * 3.0f;
    const int i = std::min(int(t), 2);
    const float f = t - float(i);
    auto mix = [&](int c) { return int(k[i][c] + (k[i + 1][c] - k[i][c]) * f); };
    return IM_COL32(mix(0), mix(1), mix(2), 255);
}

// A w x h grid of cells sized to fit `side` pixels; returns the cell hovered, if any.
struct Grid {
    ImVec2 origin;
    float cell;
    int w, h;
    Grid(int w_, int h_, float side) : w(w_), h(h_) {
        cell = std::clamp(side / float(std::max(w, h)), 2.0f, 40.0f);
        origin = ImGui::GetCursorScreenPos();
        ImGui::InvisibleButton("grid", ImVec2(cell * float(w), cell * float(h)));
    }
    ImVec2 at(int x, int y) const { return ImVec2(origin.x + cell * float(x), origin.y + cell * float(y)); }
    bool hovered(int* x, int* y) const {
        if (!ImGui::IsItemHovered()) return false;
        const ImVec2 mp = ImGui::GetIO().MousePos;
        *x = std::clamp(int((mp.x - origin.x) / cell), 0, w - 1);
        *y = std::clamp(int((mp.y - origin.y) / cell), 0, h - 1);
        return true;
    }
};

}  // namespace

void StatsWindow::draw(bool* open, const wl::lang::KernelRun* run, const std::vector<ActivitySample>& timeline) {
    ImGui::SetNextWindowSize(ImVec2(520, 560), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowPos(ImVec2(60, 120), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("Stats", open)) {
        ImGui::End();
        return;
    }
    if (!run) {
        ImGui::TextDisabled("Load an example or compile a kernel: its counters show here as it runs.");
        ImGui::End();
        return;
    }
    const wl::Machine& m = run->machine();
    const wl::lang::RunReport rep = run->report();   // the engine's own totals and utilisation
    const wl::MachineStats& s = rep.stats;

    // [SECTION] totals
    if (ImGui::BeginTable("totals", 4, ImGuiTableFlags_SizingStretchSame)) {
        auto cell = [](const char* label, const char* tip, const char* fmt, auto... v) {
            ImGui::TableNextColumn();
            ImGui::TextColored(kDim, "%s", label);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
            ImGui::Text(fmt, v...);
        };
        using ull = unsigned long long;
        if (m.mode() == wl::RunMode::Fast) cell("cycles, estimated", glossary("estimated"), "%llu", ull(s.cycles));
        else cell("cycles", "the machine's clock", "%llu", ull(s.cycles));
        cell("utilisation", "busy cycles / (cycles x PEs with a program)", "%.1f%%", 100.0 * rep.utilisation);
        cell("busy", "CE cycles spent issuing, in vector work or starting tasks, summed over PEs", "%llu", ull(s.busy));
        cell("PEs loaded", "PEs with a program", "%d of %d", rep.pes_loaded, m.mesh().size());
        cell("hops", "wavelets routers forwarded, one per output port (ramp included)", "%llu", ull(s.hops));
        cell("link wavelets", "wavelets that crossed a PE-to-PE link", "%llu", ull(rep.link_wavelets));
        cell("CE stalls", "cycles main threads waited on the fabric", "%llu", ull(s.stall));
        cell("router stalls", "colour-cycles a ready wavelet waited for a link or space", "%llu", ull(s.router_stalls));
        ImGui::EndTable();
    }

    // [SECTION] export
#ifndef __EMSCRIPTEN__
    ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("Export CSV  Timeline CSV  ").x -
                                                 ImGui::GetStyle().FramePadding.x * 4));
    ImGui::InputText("##csvpath", path, sizeof path);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Export CSV writes here; the timeline goes beside it (-timeline)");
    ImGui::SameLine();
#endif
    if (ImGui::Button("Export CSV")) status_ = export_csv(*run, timeline, false);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("one row per PE: busy, stall, instrs, tasks, sent, received, wavelets out/in per port");
    ImGui::SameLine();
    if (ImGui::Button("Timeline CSV")) status_ = export_csv(*run, timeline, true);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the activity timeline: cumulative counters and per-cycle rates");
    if (!status_.empty()) ImGui::TextColored(kDim, "%s", status_.c_str());

    ImGui::Separator();
    draw_timeline(timeline, m.now());
    ImGui::Separator();
    draw_heatmaps(m, rep);
    ImGui::End();
}

void StatsWindow::draw_timeline(const std::vector<ActivitySample>& timeline, uint64_t now) {
    const std::vector<ActivityRate> rates = activity_rates(timeline);
    float busy_max = 0, hops_max = 0;
    for (const ActivityRate& r : rates) busy_max = std::max(busy_max, r.busy_pes), hops_max = std::max(hops_max, r.hops);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kBusyLine), "busy PEs/cycle (max %.1f)", busy_max);
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kHopsLine), "  hops/cycle (max %.1f)", hops_max);

    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const ImVec2 size(std::max(100.0f, ImGui::GetContentRegionAvail().x), 90.0f);
    ImGui::InvisibleButton("timeline", size);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), kPlotBg);
    const uint64_t reached = std::max<uint64_t>(now, timeline.empty() ? 0 : timeline.back().cycle);   // more than now after a rewind
    const uint64_t end = std::max<uint64_t>(reached, 1);
    auto px = [&](uint64_t c) { return p0.x + size.x * float(double(c) / double(end)); };
    // Each series on its own scale, so a quiet one stays readable next to a busy one; a rate is
    // an average over its interval, so it is drawn as a step across it.
    auto series = [&](float ActivityRate::*field, float max, ImU32 col) {
        if (rates.empty() || max <= 0) return;
        std::vector<ImVec2> pts;
        pts.reserve(rates.size() * 2);
        for (const ActivityRate& r : rates) {
            const float y = p0.y + size.y - 1 - (size.y - 4) * (r.*field / max);
            pts.emplace_back(px(r.from), y);
            pts.emplace_back(px(r.to), y);
        }
        dl->AddPolyline(pts.data(), int(pts.size()), col, 0, 1.5f);
    };
    series(&ActivityRate::hops, hops_max, kHopsLine);
    series(&ActivityRate::busy_pes, busy_max, kBusyLine);
    const float xn = px(now);
    dl->AddLine(ImVec2(xn, p0.y), ImVec2(xn, p0.y + size.y), kNowLine, 1.5f);
    if (ImGui::IsItemHovered() && !rates.empty()) {
        const double c = double(ImGui::GetIO().MousePos.x - p0.x) / size.x * double(end);
        auto it = std::lower_bound(rates.begin(), rates.end(), c, [](const ActivityRate& r, double v) { return double(r.to) < v; });
        if (it == rates.end()) --it;
        ImGui::SetTooltip("cycles %llu..%llu: %.2f busy PEs, %.2f hops, %.2f stalls per cycle", (unsigned long long)it->from + 1,
                          (unsigned long long)it->to, it->busy_pes, it->hops, it->stalls);
    }
    char last[32];
    std::snprintf(last, sizeof last, "cycle %llu", (unsigned long long)reached);
    const float x0 = ImGui::GetCursorPosX();
    ImGui::TextColored(kDim, "0");
    ImGui::SameLine(x0 + size.x - ImGui::CalcTextSize(last).x);
    ImGui::TextUnformatted(last);
}

void StatsWindow::draw_heatmaps(const wl::Machine& m, const wl::lang::RunReport& rep) {
    const wl::Mesh mesh = m.mesh();
    if (rep.busy_per_pe.size() != size_t(mesh.size())) return;   // a run that failed to load has no per-PE numbers
    const double cycles = double(std::max<uint64_t>(rep.cycles, 1));
    const float side = std::min(220.0f, (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    int hx, hy;

    ImGui::BeginGroup();
    ImGui::TextColored(kDim, m.mode() == wl::RunMode::Fast ? "busy per PE, estimated" : "busy per PE");
    if (m.mode() == wl::RunMode::Fast && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", glossary("estimated"));
    {
        ImGui::PushID("busy");
        Grid g(mesh.w, mesh.h, side);
        for (int y = 0; y < mesh.h; ++y)
            for (int x = 0; x < mesh.w; ++x) {
                const float t = float(double(rep.busy_per_pe[size_t(mesh.index(x, y))]) / cycles);
                const ImVec2 a = g.at(x, y);
                dl->AddRectFilled(a, ImVec2(a.x + g.cell - (g.cell > 6), a.y + g.cell - (g.cell > 6)), heat(t));
            }
        if (g.hovered(&hx, &hy)) {
            const uint64_t b = rep.busy_per_pe[size_t(mesh.index(hx, hy))];
            ImGui::SetTooltip("PE (%d, %d): busy %llu of %llu cycles (%.0f%%)", hx, hy, (unsigned long long)b,
                              (unsigned long long)rep.cycles, 100.0 * double(b) / cycles);
        }
        ImGui::PopID();
    }
    ImGui::EndGroup();
    ImGui::SameLine();

    // Each PE's four outgoing links as bars from its centre toward the neighbour.
    ImGui::BeginGroup();
    ImGui::TextColored(kDim, "links: wavelets per cycle");
    {
        ImGui::PushID("links");
        Grid g(mesh.w, mesh.h, side);
        static constexpr float kDir[4][2] = {{0, -1}, {0, 1}, {1, 0}, {-1, 0}};   // N S E W
        for (int y = 0; y < mesh.h; ++y)
            for (int x = 0; x < mesh.w; ++x) {
                const ImVec2 a = g.at(x, y), c(a.x + g.cell * 0.5f, a.y + g.cell * 0.5f);
                dl->AddRectFilled(a, ImVec2(a.x + g.cell - (g.cell > 6), a.y + g.cell - (g.cell > 6)), heat(0));
                for (int p = 0; p < 4; ++p) {
                    const uint64_t w = rep.link_out_per_pe[size_t(mesh.index(x, y)) * 4 + size_t(p)];
                    if (!w) continue;
                    const ImVec2 e(c.x + kDir[p][0] * g.cell * 0.5f, c.y + kDir[p][1] * g.cell * 0.5f);
                    dl->AddLine(c, e, heat(0.15f + 0.85f * float(double(w) / cycles)), std::max(1.0f, g.cell * 0.22f));
                }
            }
        if (g.hovered(&hx, &hy)) {
            const wl::RouterStats& rs = m.router(hx, hy).stats;
            ImGui::SetTooltip("PE (%d, %d) sends per cycle: N %.2f  S %.2f  E %.2f  W %.2f", hx, hy, double(rs.out[wl::kNorth]) / cycles,
                              double(rs.out[wl::kSouth]) / cycles, double(rs.out[wl::kEast]) / cycles, double(rs.out[wl::kWest]) / cycles);
        }
        ImGui::PopID();
    }
    ImGui::EndGroup();

    // The legend: the colour scale shared by both maps.
    const ImVec2 l0 = ImGui::GetCursorScreenPos();
    const float lw = side;
    for (int i = 0; i < 32; ++i)
        dl->AddRectFilled(ImVec2(l0.x + lw * float(i) / 32, l0.y + 3), ImVec2(l0.x + lw * float(i + 1) / 32, l0.y + 11), heat(float(i) / 31));
    ImGui::Dummy(ImVec2(lw, 12));
    const float x0 = ImGui::GetCursorPosX();
    ImGui::TextColored(kDim, "0");
    ImGui::SameLine(x0 + lw - ImGui::CalcTextSize("1 per cycle").x);
    ImGui::TextColored(kDim, "1 per cycle");

    const std::vector<LinkLoad> top = busiest_links(m, kTopLinks);
    if (!top.empty() && ImGui::BeginTable("toplinks", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("busiest links");
        ImGui::TableSetupColumn("wavelets");
        ImGui::TableSetupColumn("per cycle");
        ImGui::TableHeadersRow();
        for (const LinkLoad& l : top) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("(%d, %d) %s", l.x, l.y, wl::port_name(l.dir));
            ImGui::TableNextColumn();
            ImGui::Text("%llu", (unsigned long long)l.wavelets);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", double(l.wavelets) / cycles);
        }
        ImGui::EndTable();
    }
}

std::string StatsWindow::export_csv(const wl::lang::KernelRun& run, const std::vector<ActivitySample>& timeline, bool timeline_only) {
    const std::string text = timeline_only ? timeline_csv(timeline) : stats_csv(run.machine());
    const std::string where = timeline_only ? timeline_path(path) : std::string(path);
#ifdef __EMSCRIPTEN__
    const std::string name = where.substr(where.find_last_of('/') + 1);   // the browser picks the folder
    js_bridge_download(name.c_str(), "text/csv", text.data(), text.size());
    return "downloaded " + name;
#else
    try {
        wl::guard_output({"the CSV's path", where}, timeline_only ? wl::kTimelineCsvOutput : wl::kStatsCsvOutput, {});
    } catch (const std::exception& e) {
        return e.what();
    }
    std::string error;
    return wl::write_file_atomically(where, text, &error) ? "wrote " + where + " (" + std::to_string(text.size()) + " bytes)" : error;
#endif
}

}  // namespace wlui
