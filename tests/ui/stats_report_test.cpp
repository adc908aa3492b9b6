// stats_report_test.cpp: the Stats window's numbers and CSV exports agree
// with the engine's own counters.
#include "ui/stats_report.h"

#include "engine/lang/compile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace wlui;

namespace {

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string f; std::getline(in, f, ',');) out.push_back(f);
    if (!line.empty() && line.back() == ',') out.push_back("");
    return out;
}

wl::lang::KernelRun finished(const std::string& name) {
    std::ifstream in(std::string(WAFERLAB_SOURCE_DIR) + "/examples/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    auto cr = std::make_shared<const wl::lang::CompileResult>(wl::lang::compile(ss.str(), name));
    EXPECT_TRUE(cr->ok());
    wl::lang::KernelRun run(cr);
    run.finish();
    EXPECT_TRUE(run.ok());
    return run;
}

}  // namespace

TEST(StatsReport, CsvHasOneRowPerPeThatSumsToTheMachineTotals) {
    const wl::lang::KernelRun run = finished("hello.wk");
    const wl::Machine& m = run.machine();
    const auto rows = lines(stats_csv(m));
    ASSERT_EQ(rows.size(), 1u + 2u);   // header + a 2 x 1 grid
    const auto head = fields(rows[0]);
    ASSERT_EQ(head.size(), 21u);
    EXPECT_EQ(head[3], "busy");
    EXPECT_EQ(head[11], "out_n");
    EXPECT_EQ(head[20], "in_ramp");

    uint64_t busy = 0, sent = 0, out_e = 0, in_w = 0;
    for (size_t r = 1; r < rows.size(); ++r) {
        const auto f = fields(rows[r]);
        ASSERT_EQ(f.size(), head.size()) << rows[r];
        busy += std::stoull(f[3]);
        sent += std::stoull(f[8]);
        out_e += std::stoull(f[13]);
        in_w += std::stoull(f[19]);
    }
    EXPECT_EQ(fields(rows[1])[2], "sender");
    EXPECT_EQ(fields(rows[2])[0], "1");
    const wl::MachineStats s = m.stats();
    EXPECT_EQ(busy, s.busy);
    EXPECT_EQ(sent, s.sent);
    EXPECT_EQ(out_e, 4u);   // four wavelets cross the one link east...
    EXPECT_EQ(in_w, 4u);    // ...and arrive on the receiver's west port
}

TEST(StatsReport, RatesAreDifferencesOverCycles) {
    const std::vector<ActivitySample> s = {{0, 0, 0, 0}, {8, 16, 4, 0}, {8, 16, 4, 0}, {24, 16, 36, 8}};
    const auto r = activity_rates(s);
    ASSERT_EQ(r.size(), 2u);   // the repeated cycle has no interval
    EXPECT_EQ(r[0].from, 0u);
    EXPECT_EQ(r[0].to, 8u);
    EXPECT_EQ(r[1].from, 8u);
    EXPECT_FLOAT_EQ(r[0].busy_pes, 2.0f);
    EXPECT_FLOAT_EQ(r[0].hops, 0.5f);
    EXPECT_FLOAT_EQ(r[1].busy_pes, 0.0f);
    EXPECT_FLOAT_EQ(r[1].hops, 2.0f);
    EXPECT_FLOAT_EQ(r[1].stalls, 0.5f);

    const auto csv = lines(timeline_csv(s));
    ASSERT_EQ(csv.size(), 5u);
    EXPECT_EQ(csv[0], "cycle,busy,hops,stalls,busy_pes,hops_per_cycle,stalls_per_cycle");
    EXPECT_EQ(csv[1], "0,0,0,0,,,");
    EXPECT_EQ(csv[2], "8,16,4,0,2,0.5,0");
    EXPECT_EQ(csv[4], "24,16,36,8,0,2,0.5");
}

TEST(StatsReport, BusiestLinksComeFirst) {
    const wl::lang::KernelRun run = finished("gemv.wk");
    const wl::Machine& m = run.machine();
    const auto top = busiest_links(m, 3);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_GE(top[0].wavelets, top[1].wavelets);
    EXPECT_GE(top[1].wavelets, top[2].wavelets);
    EXPECT_EQ(top[0].wavelets, m.router(top[0].x, top[0].y).stats.out[top[0].dir]);
    uint64_t all = 0;
    for (const LinkLoad& l : busiest_links(m, 1000)) all += l.wavelets;
    EXPECT_EQ(all, run.report().link_wavelets);
}

TEST(StatsReport, TimelinePathSitsBesideTheStats) {
    EXPECT_EQ(timeline_path("./waferlab-stats.csv"), "./waferlab-stats-timeline.csv");
    EXPECT_EQ(timeline_path("out/stats"), "out/stats-timeline.csv");
    EXPECT_EQ(timeline_path("a.b/stats"), "a.b/stats-timeline.csv");
}
