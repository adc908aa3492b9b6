// stats_report.h: the machine's activity as numbers the Stats window draws and
// exports — per-PE counters as CSV, the timeline's cumulative samples turned
// into per-cycle rates (and CSV), and the busiest links.
// No ImGui: the window, the JSON method and the tests share it.
#pragma once
#include "engine/fabric/machine.h"
#include "ui/run_controller.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wlui {

// One row per PE, row-major, under a header:
//   x,y,program,busy,stall,instrs,tasks,elems,sent,received,router_stalls,
//   out_n,out_s,out_e,out_w,out_ramp,in_n,in_s,in_e,in_w,in_ramp
// out_* are wavelets the router sent per port (ramp = delivered to its CE), in_* accepted.
std::string stats_csv(const wl::Machine& m);

// Per-cycle averages over the cycles (from, to] between two neighbouring samples.
struct ActivityRate {
    uint64_t from = 0, to = 0;
    float busy_pes = 0;       // CEs busy per cycle
    float hops = 0;           // wavelets forwarded per cycle
    float stalls = 0;         // stall cycles per cycle
};
std::vector<ActivityRate> activity_rates(const std::vector<ActivitySample>& samples);

// cycle,busy,hops,stalls (cumulative),busy_pes,hops_per_cycle,stalls_per_cycle
std::string timeline_csv(const std::vector<ActivitySample>& samples);

// A mesh link, named by the PE that sends on it and the direction.
struct LinkLoad {
    int x = 0, y = 0;
    wl::Port dir = wl::kNorth;
    uint64_t wavelets = 0;
};
// The n links that carried the most wavelets, most first (ties in PE order); idle links left out.
std::vector<LinkLoad> busiest_links(const wl::Machine& m, size_t n);

// "waferlab-stats.csv" -> "waferlab-stats-timeline.csv": where the timeline goes beside the PE table.
std::string timeline_path(const std::string& stats_path);

}  // namespace wlui
