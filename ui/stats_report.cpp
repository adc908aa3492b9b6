// stats_report.cpp: per-PE CSV, timeline rates, busiest links (see stats_report.h).
#include "ui/stats_report.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace wlui {

std::string stats_csv(const wl::Machine& m) {
    std::string s =
        "x,y,program,busy,stall,instrs,tasks,elems,sent,received,router_stalls,"
        "out_n,out_s,out_e,out_w,out_ramp,in_n,in_s,in_e,in_w,in_ramp\n";
    char b[64];
    auto num = [&](uint64_t v) {
        std::snprintf(b, sizeof b, ",%llu", (unsigned long long)v);
        s += b;
    };
    const wl::Mesh mesh = m.mesh();
    for (int y = 0; y < mesh.h; ++y)
        for (int x = 0; x < mesh.w; ++x) {
            const wl::Program* p = m.program_at(x, y);
            const wl::CoreStats& c = m.core(x, y).stats;
            const wl::RouterStats r = m.router_stats(x, y);
            s += std::to_string(x) + "," + std::to_string(y) + "," + (p ? p->name : "");   // names are identifiers: no quoting
            for (uint64_t v : {c.busy, c.stall, c.instrs, c.tasks, c.elems, c.sent, c.received, r.stalls}) num(v);
            for (uint64_t v : r.out) num(v);
            for (uint64_t v : r.in) num(v);
            s += "\n";
        }
    return s;
}

std::vector<ActivityRate> activity_rates(const std::vector<ActivitySample>& samples) {
    std::vector<ActivityRate> out;
    for (size_t k = 1; k < samples.size(); ++k) {
        const ActivitySample &a = samples[k - 1], &b = samples[k];
        if (b.cycle <= a.cycle) continue;
        const double dt = double(b.cycle - a.cycle);
        out.push_back({a.cycle, b.cycle, float(double(b.busy - a.busy) / dt), float(double(b.hops - a.hops) / dt),
                       float(double(b.stalls - a.stalls) / dt)});
    }
    return out;
}

std::string timeline_csv(const std::vector<ActivitySample>& samples) {
    std::string s = "cycle,busy,hops,stalls,busy_pes,hops_per_cycle,stalls_per_cycle\n";
    const std::vector<ActivityRate> rates = activity_rates(samples);
    size_t r = 0;
    char b[160];
    for (const ActivitySample& a : samples) {
        while (r < rates.size() && rates[r].to < a.cycle) ++r;
        const bool has = r < rates.size() && rates[r].to == a.cycle;   // the first sample has no interval before it
        std::snprintf(b, sizeof b, "%llu,%llu,%llu,%llu", (unsigned long long)a.cycle, (unsigned long long)a.busy,
                      (unsigned long long)a.hops, (unsigned long long)a.stalls);
        s += b;
        if (has) std::snprintf(b, sizeof b, ",%.4g,%.4g,%.4g\n", rates[r].busy_pes, rates[r].hops, rates[r].stalls);
        else std::snprintf(b, sizeof b, ",,,\n");
        s += b;
    }
    return s;
}

std::vector<LinkLoad> busiest_links(const wl::Machine& m, size_t n) {
    std::vector<LinkLoad> all;
    const wl::Mesh mesh = m.mesh();
    for (int y = 0; y < mesh.h; ++y)
        for (int x = 0; x < mesh.w; ++x)
            for (int p = wl::kNorth; p <= wl::kWest; ++p)
                if (uint64_t w = m.router(x, y).stats.out[p]) all.push_back({x, y, wl::Port(p), w});
    n = std::min(n, all.size());
    std::partial_sort(all.begin(), all.begin() + long(n), all.end(),
                      [](const LinkLoad& a, const LinkLoad& b) {
                          if (a.wavelets != b.wavelets) return a.wavelets > b.wavelets;
                          return std::tie(a.y, a.x, a.dir) < std::tie(b.y, b.x, b.dir);
                      });
    all.resize(n);
    return all;
}

std::string timeline_path(const std::string& stats_path) {
    const size_t slash = stats_path.find_last_of("/\\");
    const size_t dot = stats_path.rfind('.');
    const bool ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
    return ext ? stats_path.substr(0, dot) + "-timeline" + stats_path.substr(dot) : stats_path + "-timeline.csv";
}

}  // namespace wlui
