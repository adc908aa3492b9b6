// stats_window.h: the "Stats" window — cycles, busy, utilisation, hops and
// stalls; a per-PE busy heatmap and a link map (wavelets per link per cycle)
// with the busiest links; the activity timeline with the current cycle marked;
// and CSV export (a file natively, a download in the browser).
// Numbers come from KernelRun::report() and stats_report.h; nothing is kept
// between frames but the export path.
//
//   StatsWindow w;                                               // once
//   w.draw(&open, runner.run(), runner.timeline());              // every frame
#pragma once
#include "engine/lang/run.h"
#include "ui/run_controller.h"

#include <string>
#include <vector>

namespace wlui {

class StatsWindow {
public:
    void draw(bool* open, const wl::lang::KernelRun* run, const std::vector<ActivitySample>& timeline);

    // Writes (natively) or downloads (web) the per-PE table, or with `timeline` the
    // activity timeline; returns a line saying what happened.
    std::string export_csv(const wl::lang::KernelRun& run, const std::vector<ActivitySample>& timeline, bool timeline_only);

    char path[256] = "./waferlab-stats.csv";   // natively: where "Export CSV" writes; the timeline goes beside it

private:
    void draw_timeline(const std::vector<ActivitySample>& timeline, uint64_t now);
    void draw_heatmaps(const wl::Machine& m, const wl::lang::RunReport& rep);

    std::string status_;                 // the last export's result
};

}  // namespace wlui
