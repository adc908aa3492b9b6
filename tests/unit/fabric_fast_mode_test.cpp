// fabric_fast_mode_test.cpp: fast mode held to cycle mode. Every kernel in
// examples/ and tests/kernels/ that runs is run both ways: memory, output and
// traffic must be identical, and the estimated cycles within 10% (printed for
// each, natively and in WASM). Faults keep their kind, PE and file:line:col.
// A kernel whose outcome depends on timing says so with a line
//   // fast mode: <why>
// and is then only required to end with a result or a placed fault. A kernel's
// `// budget: N` line is its cycle budget here too.
#include "engine/fabric/fast_mode.h"
#include "engine/fabric/machine.h"
#include "engine/lang/compile.h"
#include "engine/lang/run.h"
#include "tests/unit/kernel_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace wl;
using namespace wl::lang;

namespace {

using wl::testing::kernel_budget;
using wl::testing::kernel_files;
using wl::testing::slurp;

struct ModeRun {
    std::unique_ptr<KernelRun> run;
    RunReport rep;
};

ModeRun run_mode(const CompileResult& cr, RunMode mode, uint64_t budget = 5'000'000, size_t path_entries = MachineConfig{}.fast_path_entries,
                 uint64_t run_ahead = MachineConfig{}.fast_run_ahead) {
    RunOptions opt;
    opt.mode = mode;
    opt.cycle_budget = budget;
    opt.machine.fast_path_entries = path_entries;
    opt.machine.fast_run_ahead = run_ahead;
    ModeRun r;
    r.run = std::make_unique<KernelRun>(std::make_shared<const CompileResult>(cr), opt);
    r.run->finish();
    r.rep = r.run->report();
    return r;
}

// Same SRAM bytes on every PE.
void expect_same_memory(const Machine& a, const Machine& b) {
    ASSERT_EQ(a.mesh().w, b.mesh().w);
    ASSERT_EQ(a.mesh().h, b.mesh().h);
    for (int y = 0; y < a.mesh().h; ++y)
        for (int x = 0; x < a.mesh().w; ++x) {
            // Beyond a PE's sram_used mark its SRAM is zero, in both machines.
            const uint32_t S = std::max(a.core(x, y).sram_used, b.core(x, y).sram_used);
            if (std::memcmp(a.sram(x, y), b.sram(x, y), S) != 0) {
                uint32_t k = 0;
                while (k < S && a.sram(x, y)[k] == b.sram(x, y)[k]) ++k;
                ADD_FAILURE() << "SRAM differs on PE (" << x << "," << y << ") from byte " << k;
                return;
            }
        }
}

void expect_same_fault(const Fault& c, const Fault& f, bool same_cycle = false) {
    if (same_cycle) {
        EXPECT_EQ(f.cycle, c.cycle) << f.to_string();
    }
    EXPECT_EQ(fault_kind_name(f.kind), fault_kind_name(c.kind)) << "cycle: " << c.to_string() << "\nfast:  " << f.to_string();
    EXPECT_EQ(f.x, c.x) << f.to_string();
    EXPECT_EQ(f.y, c.y) << f.to_string();
    EXPECT_EQ(f.where, c.where) << f.to_string();
    EXPECT_EQ(f.colour, c.colour) << f.to_string();
}

double relative_error(uint64_t est, uint64_t truth) { return truth ? (double(est) - double(truth)) / double(truth) : 0.0; }

}  // namespace

TEST(FastMode, EveryKernelMatchesCycleMode) {
    int compared = 0;
    for (const fs::path& p : kernel_files()) {
        SCOPED_TRACE(p.string());
        const std::string src = slurp(p);
        CompileResult cr = compile(src, p.filename().string());
        if (!cr.ok() || cr.grid_w == 0 || cr.host.empty()) continue;
        const bool timing_dependent = src.find("// fast mode:") != std::string::npos;
        // A kernel's own budget (the catalogue's endless loops: 200,000 cycles) is enough to reach
        // its watchdog fault in both modes; 5M more cycles of the same loop proved nothing more.
        const uint64_t budget = kernel_budget(src, 5'000'000);
        ModeRun c = run_mode(cr, RunMode::Cycle, budget), f = run_mode(cr, RunMode::Fast, budget);
        if (timing_dependent) {   // the outcome may differ; it must still be a result or a placed fault
            EXPECT_TRUE(f.rep.ok || f.rep.fault) << f.rep.error;
            continue;
        }
        ++compared;
        if (!c.rep.ok) {
            ASSERT_FALSE(f.rep.ok) << "cycle mode failed (" << c.rep.error << ") but fast mode ran";
            expect_same_fault(c.rep.fault, f.rep.fault);
            continue;
        }
        ASSERT_TRUE(f.rep.ok) << f.rep.error;
        EXPECT_EQ(f.rep.output, c.rep.output);
        expect_same_memory(c.run->machine(), f.run->machine());
        EXPECT_EQ(f.rep.link_wavelets, c.rep.link_wavelets);
        EXPECT_EQ(f.rep.link_out_per_pe, c.rep.link_out_per_pe);
        EXPECT_EQ(f.rep.stats.sent, c.rep.stats.sent);
        EXPECT_EQ(f.rep.stats.received, c.rep.stats.received);
        EXPECT_EQ(f.rep.stats.instrs, c.rep.stats.instrs);
        EXPECT_EQ(f.rep.stats.elems, c.rep.stats.elems);
        EXPECT_EQ(f.rep.stats.tasks, c.rep.stats.tasks);
        const double err = relative_error(f.rep.cycles, c.rep.cycles);
        std::printf("  %-22s cycle %9llu  fast estimate %9llu  error %+6.2f%%\n", p.filename().string().c_str(),
                    (unsigned long long)c.rep.cycles, (unsigned long long)f.rep.cycles, err * 100.0);
        EXPECT_LE(std::fabs(err), 0.10) << "estimate " << f.rep.cycles << " vs " << c.rep.cycles << " cycles";
    }
    EXPECT_GE(compared, 9);
}

// Sizes from C++ (constant overrides), and a larger mesh than the file's.
TEST(FastMode, SummaAtOtherSizesMatchesCycleMode) {
    const std::string src = slurp(fs::path(WAFERLAB_SOURCE_DIR) / "examples/summa.wk");
    for (auto [P, B] : {std::pair{3, 2}, std::pair{12, 3}, std::pair{16, 5}}) {
        SCOPED_TRACE("P=" + std::to_string(P) + " B=" + std::to_string(B));
        CompileOptions co;
        co.constants = {{"P", P}, {"B", B}};
        CompileResult cr = compile(src, "summa.wk", co);
        ASSERT_TRUE(cr.ok());
        ModeRun c = run_mode(cr, RunMode::Cycle), f = run_mode(cr, RunMode::Fast);
        ASSERT_TRUE(c.rep.ok && f.rep.ok) << c.rep.error << f.rep.error;
        EXPECT_EQ(f.rep.values, c.rep.values);
        expect_same_memory(c.run->machine(), f.run->machine());
        EXPECT_LE(std::fabs(relative_error(f.rep.cycles, c.rep.cycles)), 0.10) << f.rep.cycles << " vs " << c.rep.cycles;
    }
}

// Slicing never changes a fast run: the app runs it a slice per frame.
TEST(FastMode, SlicesGiveTheSameBitsAndCycles) {
    const std::string src = slurp(fs::path(WAFERLAB_SOURCE_DIR) / "examples/stencil.wk");
    CompileResult cr = compile(src, "stencil.wk");
    ASSERT_TRUE(cr.ok());
    ModeRun whole = run_mode(cr, RunMode::Fast);
    ASSERT_TRUE(whole.rep.ok) << whole.rep.error;
    for (uint64_t slice : {1u, 7u, 250u}) {
        RunOptions opt;
        opt.mode = RunMode::Fast;
        KernelRun kr(std::make_shared<const CompileResult>(cr), opt);
        int steps = 0;
        while (!kr.done() && steps < 1'000'000) kr.step(slice), ++steps;
        RunReport rep = kr.report();
        ASSERT_TRUE(rep.ok) << rep.error;
        EXPECT_EQ(rep.cycles, whole.rep.cycles) << "slice " << slice;
        EXPECT_EQ(rep.output, whole.rep.output);
        expect_same_memory(kr.machine(), whole.run->machine());
    }
}

// Fast mode's recorded paths are a cache: forgotten before every PE's run (a budget of none), every
// kernel and a SUMMA of broadcasts end as with them kept, traffic counts and cycles included.
// Every example and test kernel that runs (a grid, a host program, at most 4,096 PEs) and whose
// ending fast mode's schedule cannot change, and a 12 x 12 SUMMA.
static std::vector<std::pair<std::string, CompileResult>> schedule_free_kernels() {
    std::vector<std::pair<std::string, CompileResult>> kernels;
    const auto add = [&](std::string name, CompileResult cr) {
        if (cr.ok() && cr.grid_w > 0 && !cr.host.empty() && cr.grid_w * cr.grid_h <= 4096) kernels.push_back({std::move(name), std::move(cr)});
    };
    for (const fs::path& p : kernel_files()) {
        const std::string src = slurp(p);
        if (src.find("// fast mode:") != std::string::npos) continue;   // its schedule may change the ending
        add(p.filename().string(), compile(src, p.filename().string()));
    }
    CompileOptions co;
    co.constants = {{"P", 12}, {"B", 3}};
    add("summa.wk P=12 B=3", compile(slurp(fs::path(WAFERLAB_SOURCE_DIR) / "examples/summa.wk"), "summa.wk", co));
    return kernels;
}

// Two fast runs of one kernel that only the host's order tells apart: the same ending and, unless
// one faulted and `at_a_fault` is false, the same cycles, traffic, instructions and SRAM.
static void expect_same_run(const ModeRun& a, const ModeRun& b, bool at_a_fault) {
    EXPECT_EQ(b.rep.ok, a.rep.ok);
    EXPECT_EQ(b.rep.error, a.rep.error);
    EXPECT_EQ(b.rep.output, a.rep.output);
    if (!a.rep.ok && !at_a_fault) return;
    EXPECT_EQ(b.rep.cycles, a.rep.cycles);
    EXPECT_EQ(b.rep.link_out_per_pe, a.rep.link_out_per_pe);
    EXPECT_EQ(b.rep.stats.hops, a.rep.stats.hops);
    EXPECT_EQ(b.rep.stats.sent, a.rep.stats.sent);
    EXPECT_EQ(b.rep.stats.instrs, a.rep.stats.instrs);
    expect_same_memory(a.run->machine(), b.run->machine());
}

// The leash decides only the order in which the host runs the PEs: each PE's clock comes from its
// wavelets' stamps, so a leash of one cycle, the kernels' and the model's machines' give the same
// output, SRAM, traffic and cycles. A run that faults stops at the fault, the same one, while what
// the other PEs had done by then depends on that order.
TEST(FastMode, TheLeashChangesOnlyTheHostsOrder) {
    int compared = 0;
    for (const auto& [name, cr] : schedule_free_kernels()) {
        SCOPED_TRACE(name);
        const uint64_t budget = 5'000'000;
        const ModeRun usual = run_mode(cr, RunMode::Fast, budget);
        for (const uint64_t leash : {uint64_t(1), uint64_t(32768), uint64_t(1) << 40}) {
            SCOPED_TRACE("a leash of " + std::to_string(leash));
            expect_same_run(usual, run_mode(cr, RunMode::Fast, budget, MachineConfig{}.fast_path_entries, leash), false);
        }
        compared += usual.rep.ok;
    }
    EXPECT_GE(compared, 10);
}

TEST(FastMode, ForgettingRecordedPathsChangesNothing) {
    int compared = 0;
    for (const auto& [name, cr] : schedule_free_kernels()) {
        SCOPED_TRACE(name);
        const uint64_t budget = 5'000'000;
        expect_same_run(run_mode(cr, RunMode::Fast, budget), run_mode(cr, RunMode::Fast, budget, 0), true);
        ++compared;
    }
    EXPECT_GE(compared, 10);
}

// Run-time faults: the same kind, PE, colour and kernel line in both modes.
TEST(FastMode, FaultsKeepTheirKindPeAndLine) {
    struct Case {
        const char* name;
        const char* src;
        FaultKind kind;
    };
    const Case cases[] = {
        {"oob", R"(
layout { grid 3 x 1; place p at (0..3, 0); }
program p() {
    var a: [f32; 4];
    export fn main() {
        let i: i32 = 100000;
        a[i] = 1.0;
    }
}
host { launch main at (2, 0); run; }
)",
         FaultKind::OutOfBounds},
        {"deadlock", R"(
colour c = 1;
colour d = 2;
layout { grid 2 x 1; place p at (0..2, 0) with (first = x == 0);
         route c at (0, 0) rx ramp tx east;  route c at (1, 0) rx west tx ramp;
         route d at (1, 0) rx ramp tx west;  route d at (0, 0) rx east tx ramp; }
program p(first: bool) {
    var v: [f32; 1];
    export fn main() {
        if first { v[0] = recv(d); send(c, 1.0); } else { v[0] = recv(c); send(d, 2.0); }
    }
}
host { launch main at (0..2, 0); run; }
)",
         FaultKind::Deadlock},
        {"endless", R"(
layout { grid 2 x 1; place p at (0..2, 0); }
program p() {
    var n: [i32; 1];
    export fn main() {
        while true { n[0] += 1; }
    }
}
host { launch main at (1, 0); run; }
)",
         FaultKind::Watchdog},
        {"recursion", R"(
layout { grid 2 x 1; place p at (0..2, 0); }
program p() {
    fn down(n: i32) -> i32 { return down(n + 1); }
    export fn main() { let k = down(0); }
}
host { launch main at (0, 0); run; }
)",
         FaultKind::BadProgram},
    };
    for (const Case& k : cases) {
        SCOPED_TRACE(k.name);
        CompileResult cr = compile(k.src, std::string(k.name) + ".wk");
        if (!cr.ok()) {
            for (auto& d : cr.diagnostics) ADD_FAILURE() << format_diagnostic(d);
            continue;
        }
        ModeRun c = run_mode(cr, RunMode::Cycle, 20'000), f = run_mode(cr, RunMode::Fast, 20'000);
        ASSERT_FALSE(c.rep.ok);
        ASSERT_FALSE(f.rep.ok);
        EXPECT_EQ(fault_kind_name(c.rep.fault.kind), fault_kind_name(k.kind)) << c.rep.error;
        std::printf("  %-10s cycle: %s\n  %-10s fast:  %s\n", k.name, c.rep.error.c_str(), "", f.rep.error.c_str());
        expect_same_fault(c.rep.fault, f.rep.fault, /*same_cycle=*/true);   // no contention in these: the estimate is exact
        if (k.kind == FaultKind::Deadlock || k.kind == FaultKind::Watchdog) {
            EXPECT_FALSE(f.rep.fault.stuck.empty());
        }
    }
}

// Fast mode wakes a PE blocked on a receive only when its queue holds all the receive still
// needs (FastMode::wake). A receive left short, and a deadlock in a second run after a clean one
// (whose check looks only at the PEs the run touched), are reported as cycle mode reports them:
// the same places, in the same words ("4 of 8 done": the wavelets that came were taken).
TEST(FastMode, ShortReceivesAndLaterDeadlocksReadAsInCycleMode) {
    const char* short_receive = R"(
colour c = 1;
layout { grid 2 x 1; place p at (0..2, 0) with (first = x == 0);
         route c at (1, 0) rx ramp tx west;  route c at (0, 0) rx east tx ramp; }
program p(first: bool) {
    var v: [f32; 8];
    export fn main() {   // the receiver runs first, and blocks before anything comes
        if first { fmovs(mem(v), fabin(c, 8)); } else { fmovs(fabout(c, 4), mem(v, 0, 4)); }
    }
}
host { launch main at (0..2, 0); run; }
)";
    const char* second_run = R"(
colour c = 1;
layout { grid 4 x 1; place p at (0..4, 0);
         route c at (2, 0) rx ramp tx east;  route c at (3, 0) rx west tx ramp; }
program p() {
    var v: [f32; 2];
    export fn main() { v[0] = 1.0; }
    export fn wait() { v[1] = recv(c); }
}
host { launch main at (0..4, 0); run; launch wait at (3, 0); run; }
)";
    for (const char* src : {short_receive, second_run}) {
        CompileResult cr = compile(src, "short.wk");
        ASSERT_TRUE(cr.ok()) << (cr.diagnostics.empty() ? "" : format_diagnostic(cr.diagnostics[0]));
        ModeRun c = run_mode(cr, RunMode::Cycle, 20'000), f = run_mode(cr, RunMode::Fast, 20'000);
        ASSERT_FALSE(c.rep.ok);
        ASSERT_FALSE(f.rep.ok);
        EXPECT_EQ(fault_kind_name(f.rep.fault.kind), fault_kind_name(FaultKind::Deadlock)) << f.rep.error;
        expect_same_fault(c.rep.fault, f.rep.fault);
        ASSERT_EQ(f.rep.fault.stuck.size(), c.rep.fault.stuck.size()) << "cycle: " << c.rep.error << "\nfast: " << f.rep.error;
        for (size_t k = 0; k < c.rep.fault.stuck.size(); ++k) EXPECT_EQ(f.rep.fault.stuck[k].what, c.rep.fault.stuck[k].what);
    }
    EXPECT_NE(run_mode(compile(short_receive, "short.wk"), RunMode::Fast).rep.error.find("4 of 8 done"), std::string::npos);
}

// A machine mid-way through a fast run keeps its mode until the wavelets in flight land.
TEST(FastMode, ModeChangesOnlyBetweenRuns) {
    Machine m(MachineConfig{.w = 2, .h = 1});
    EXPECT_EQ(m.mode(), RunMode::Cycle);
    EXPECT_FALSE(m.set_mode(RunMode::Fast));
    EXPECT_EQ(m.mode(), RunMode::Fast);
    EXPECT_FALSE(m.set_mode(RunMode::Cycle));
    RunMode parsed;
    EXPECT_TRUE(run_mode_from_name("fast", &parsed));
    EXPECT_EQ(parsed, RunMode::Fast);
    EXPECT_FALSE(run_mode_from_name("quick", &parsed));
}

// Fast mode replays a data wavelet's recorded path; a route changed between runs must be followed.
// Only that colour's paths are dropped (FastMode::forget_paths(colour)): colour d's, kept, still
// deliver where its routes say, and the routers count every wavelet as cycle mode does.
TEST(FastMode, AChangedRouteIsFollowed) {
    const char* src = R"(colour c = 3;
colour d = 4;
layout {
    grid 3 x 1;
    place sender at (0, 0);
    place receiver at (1..3, 0);
    route c at (0, 0) rx ramp tx east;
    route c at (1, 0) rx west tx ramp;
    route d at (0, 0) rx ramp tx east;
    route d at (1, 0) rx west tx ramp;
}
program sender {
    export fn main() { for i in 0..4 { send(c, f32(i + 1)); send(d, f32(i + 10)); } }
}
program receiver {
    export var y: [f32; 4];
    export var z: [f32; 8];
    var n: i32 = 0;
    var m: i32 = 0;
    task got(v: f32) on c { y[n] = v; n += 1; }
    task dgot(v: f32) on d { z[m] = v; m += 1; }
}
)";
    CompileResult cr = compile(src, "reroute.wk");
    ASSERT_TRUE(cr.ok()) << (cr.diagnostics.empty() ? "" : format_diagnostic(cr.diagnostics[0]));
    std::vector<uint64_t> counts[2];
    for (RunMode mode : {RunMode::Fast, RunMode::Cycle}) {
        SCOPED_TRACE(mode == RunMode::Fast ? "fast" : "cycle");
        Host h({.w = 3, .h = 1});
        h.machine().set_mode(mode);
        for (const Placement& p : cr.placements) ASSERT_FALSE(h.load(*p.program, {p.x, p.y, p.w, p.h}));
        for (const RouteSetting& r : cr.routes) ASSERT_FALSE(h.route(r.x, r.y, r.colour, r.route));
        ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
        ASSERT_TRUE(h.run_until_quiescent(10000).ok());
        std::vector<float> y1(4), y2(4), z(8);
        ASSERT_FALSE(h.d2h(1, 0, "y", y1.data(), 4));
        EXPECT_EQ(y1, (std::vector<float>{1, 2, 3, 4}));
        // Now (1,0) passes colour c on to (2,0); d stays as it was.
        ASSERT_FALSE(h.route(1, 0, 3, Route::of(kW, kE)));
        ASSERT_FALSE(h.route(2, 0, 3, Route::of(kW, kR)));
        ASSERT_FALSE(h.launch({0, 0, 1, 1}, "main"));
        ASSERT_TRUE(h.run_until_quiescent(10000).ok());
        ASSERT_FALSE(h.d2h(2, 0, "y", y2.data(), 4));
        EXPECT_EQ(y2, (std::vector<float>{1, 2, 3, 4}));
        ASSERT_FALSE(h.d2h(1, 0, "z", z.data(), 8));
        EXPECT_EQ(z, (std::vector<float>{10, 11, 12, 13, 10, 11, 12, 13}));
        for (int x = 0; x < 3; x++)
            for (int c : {3, 4}) counts[mode == RunMode::Cycle].push_back(h.machine().router(x, 0).stats.out_colour[c]);
    }
    EXPECT_EQ(counts[0], counts[1]);
}

// Rows that exchange nothing, run apart (Machine::run_apart: fast mode one row after the other from
// the same cycle) end as they do run together: every value, the checksum (SRAM, registers,
// statistics), the clock; and as cycle mode's values. Row y passes its vector along y + 1 times, so
// the rows end at different cycles. Groups that do exchange (a column's senders apart from their
// receivers) stop with a fault, not a silently different run.
TEST(FastMode, GroupsThatExchangeNothingRunApartAsTogether) {
    const char* src = R"(colour c = 1;
layout {
    grid 4 x 3;
    place row at (0..4, 0..3) with (px = x, py = y);
    route c at (0, 0..3) rx ramp tx east;
    route c at (1..3, 0..3) rx west tx east, ramp;
    route c at (3, 0..3) rx west tx ramp;
}
program row(px: i32, py: i32) {
    export var v: [f32; 8];
    export var s: [f32; 8];
    export fn main() {
        for r in 0..py + 1 {
            if px == 0 {
                fmovs(fabout(c, 8), mem(v));
                fadds(mem(v), mem(v), mem(v));
            } else {
                fmovs(mem(v), fabin(c, 8));
                fadds(mem(s), mem(s), mem(v));
            }
        }
    }
}
)";
    CompileResult cr = compile(src, "apart.wk");
    ASSERT_TRUE(cr.ok()) << (cr.diagnostics.empty() ? "" : format_diagnostic(cr.diagnostics[0]));
    const auto machine = [&](RunMode mode) {
        auto h = std::make_unique<Host>(MachineConfig{.w = 4, .h = 3});
        EXPECT_FALSE(h->machine().set_mode(mode));
        for (const Placement& p : cr.placements) EXPECT_FALSE(h->load(p.program, {p.x, p.y, p.w, p.h}, p.consts));
        for (const RouteSetting& r : cr.routes) EXPECT_FALSE(h->route(r.x, r.y, r.colour, r.route));
        for (int y = 0; y < 3; y++) EXPECT_FALSE(h->h2d(0, y, "v", std::vector<float>{1, 2, 3, 4, 5, 6, 7, float(y)}.data(), 8));
        return h;
    };
    const std::vector<Rect> rows = {{0, 0, 4, 1}, {0, 1, 4, 1}, {0, 2, 4, 1}};
    auto apart = machine(RunMode::Fast), together = machine(RunMode::Fast), cycle = machine(RunMode::Cycle);
    const RunResult a = apart->run_apart(rows, "main", 100000);
    ASSERT_TRUE(a.ok()) << a.fault.to_string();
    for (Host* h : {together.get(), cycle.get()}) {
        ASSERT_FALSE(h->launch({0, 0, 4, 3}, "main"));
        ASSERT_TRUE(h->run_until_quiescent(100000).ok());
    }
    EXPECT_EQ(apart->machine().checksum(), together->machine().checksum());
    EXPECT_EQ(apart->machine().now(), together->machine().now());
    EXPECT_EQ(a.cycles, together->machine().now());
    for (int y = 0; y < 3; y++) {
        std::vector<float> sa(8), st(8), sc(8);
        ASSERT_FALSE(apart->d2h(3, y, "s", sa.data(), 8));
        ASSERT_FALSE(together->d2h(3, y, "s", st.data(), 8));
        ASSERT_FALSE(cycle->d2h(3, y, "s", sc.data(), 8));
        EXPECT_EQ(sa, st);
        EXPECT_EQ(sa, sc);
        EXPECT_EQ(sa[7], float(y) * float((1 << (y + 1)) - 1)) << y;   // y, 2y, 4y ... y + 1 times
    }
    // Senders apart from their receivers: the first group's wavelets wait in the others' queues, which
    // no launch of theirs has taken yet: the run stops there, naming them.
    auto exchange = machine(RunMode::Fast);
    const RunResult e = exchange->run_apart({{0, 0, 1, 3}, {1, 0, 3, 3}}, "main", 100000);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.fault.kind, FaultKind::Deadlock) << e.fault.to_string();
    ASSERT_FALSE(e.fault.stuck.empty());
    for (const Stuck& st : e.fault.stuck) EXPECT_GE(st.x, 1) << e.fault.to_string();
}

// The CE queues are rings that double when full: order, stamps and control bits survive
// wrapping and growing, one at a time, in copied blocks and in runs of a block shared with another
// queue (data, stamps and control lie apart). A copy of a queue holds the same wavelets.
TEST(FastMode, QueueKeepsOrderAcrossWrapAndGrowth) {
    FastQueue q, other;
    std::deque<FastWavelet> model, other_model;
    uint32_t in = 0;
    auto same = [](FastQueue c, std::deque<FastWavelet> m) {   // drains copies of both
        ASSERT_EQ(c.size(), m.size());
        for (; !c.empty(); m.pop_front()) {
            const FastWavelet w = c.pop();
            ASSERT_EQ(w.data, m.front().data);
            ASSERT_EQ(w.ctrl, m.front().ctrl);
            ASSERT_EQ(w.at, m.front().at);
        }
    };
    for (int round = 0; round < 200; ++round) {
        const int n = round % 37 + 1;   // grows past 16, 32, 64 ...
        if (round % 3 == 0) {
            std::vector<uint32_t> data;
            std::vector<uint64_t> at;
            for (int k = 0; k < n; ++k, ++in) data.push_back(in), at.push_back(uint64_t(in) * 3);
            if (round % 2) {   // a run of a block the other queue shares, 2 cycles further down the path
                FastBlock* b = FastBlock::make(data.data(), at.data(), uint32_t(n));
                q.push_run(b, 0, uint32_t(n), 7), other.push_run(b, 0, uint32_t(n), 9);
                for (int k = 0; k < n; ++k) other_model.push_back(FastWavelet{data[size_t(k)], 0, at[size_t(k)] + 9});
            } else {
                q.push_block(data.data(), at.data(), data.size(), 7);
            }
            for (int k = 0; k < n; ++k) model.push_back(FastWavelet{data[size_t(k)], 0, at[size_t(k)] + 7});
        } else {
            for (int k = 0; k < n; ++k, ++in) {
                const FastWavelet w{in, in % 5 == 0 ? 1u : 0u, uint64_t(in) * 3};
                q.push(w), model.push_back(w);
            }
        }
        const size_t take = std::min<size_t>(q.size(), size_t(round % 23 + 1));
        if (round % 2) {   // into memory, every other word: the data in order, the latest stamp
            std::vector<uint32_t> mem(2 * take + 1, 0xdeadbeef);
            const uint64_t t = q.pop_into(take, reinterpret_cast<uint8_t*>(mem.data()), 8, 1);
            uint64_t latest = 1;
            for (size_t k = 0; k < take; ++k) {
                EXPECT_EQ(mem[2 * k], model.front().data);
                EXPECT_EQ(mem[2 * k + 1], 0xdeadbeefu) << "a stride leaves the words between alone";
                latest = std::max(latest, model.front().at);
                model.pop_front();
            }
            EXPECT_EQ(t, latest);
        } else if (round % 4 == 0) {   // a block: data and stamps, in order, across the ring's wrap
            std::vector<uint32_t> data(take);
            std::vector<uint64_t> at(take);
            q.pop_block(take, data.data(), at.data());
            for (size_t k = 0; k < take; ++k) {
                EXPECT_EQ(data[k], model.front().data);
                EXPECT_EQ(at[k], model.front().at);
                model.pop_front();
            }
        } else {
            for (size_t k = 0; k < take; ++k) {
                const FastWavelet w = q.pop();
                EXPECT_EQ(w.data, model.front().data);
                EXPECT_EQ(w.ctrl, model.front().ctrl);
                EXPECT_EQ(w.at, model.front().at);
                model.pop_front();
            }
        }
        ASSERT_EQ(q.size(), model.size());
        if (round % 50 == 49) same(q, model);
        if (!q.empty()) {
            EXPECT_EQ(q.front().data, model.front().data);
            EXPECT_EQ(q.front_at(), model.front().at);
        }
    }
    while (!q.empty()) {
        EXPECT_EQ(q.pop().data, model.front().data);
        model.pop_front();
    }
    EXPECT_TRUE(model.empty());
    same(other, other_model);
    uint32_t word[4];
    EXPECT_EQ(other.pop_into(4, reinterpret_cast<uint8_t*>(word), 4, 0), other_model[3].at) << "the shared runs, into memory";
    EXPECT_EQ(word[3], other_model[3].data);
}

// Three queues against a model (a deque each) under a seeded mix of every operation: single
// wavelets, copied blocks, runs of blocks shared between them (stamps one cycle apart or not),
// takes of each kind, a relay's unread skip of a run, copies and shrinking.
TEST(FastMode, QueuesMatchAModelUnderMixedOperations) {
    std::mt19937 rng(7);
    constexpr int kQ = 3;
    std::vector<FastQueue> q(kQ);
    std::vector<std::deque<FastWavelet>> model(kQ);
    uint32_t in = 0;
    uint64_t clock = 0;
    for (int step = 0; step < 20000; ++step) {
        const int op = int(rng() % 9), j = int(rng() % kQ);
        FastQueue& qj = q[size_t(j)];
        std::deque<FastWavelet>& mj = model[size_t(j)];
        if (op == 0) {
            const FastWavelet w{in++, rng() % 4 == 0 ? 1u : 0u, clock += rng() % 3};
            qj.push(w), mj.push_back(w);
        } else if (op <= 3) {
            const uint32_t n = 1 + rng() % 40;
            const bool one_apart = rng() % 2;
            std::vector<uint32_t> data(n);
            std::vector<uint64_t> at(n);
            for (uint32_t k = 0; k < n; ++k) data[k] = in++, at[k] = one_apart ? clock + k : (clock += rng() % 2);
            clock = at[n - 1];
            if (op == 3) {
                qj.push_block(data.data(), at.data(), n, 3);
                for (uint32_t k = 0; k < n; ++k) mj.push_back({data[k], 0, at[k] + 3});
                continue;
            }
            FastBlock* b = FastBlock::make(data.data(), at.data(), n);
            b->hold();
            EXPECT_TRUE(!one_apart || b->consecutive());
            const uint32_t lo = rng() % n, hi = lo + 1 + rng() % (n - lo);
            for (int k = 0; k < kQ; ++k) {
                if (rng() % 2) continue;
                const uint64_t delay = rng() % 5;
                q[size_t(k)].push_run(b, lo, hi, delay);
                for (uint32_t e = lo; e < hi; ++e) model[size_t(k)].push_back({data[e], 0, at[e] + delay});
            }
            b->release();
        } else if (op == 4 && !mj.empty()) {
            const FastWavelet w = qj.pop();
            ASSERT_EQ(w.data, mj.front().data);
            ASSERT_EQ(w.ctrl, mj.front().ctrl);
            ASSERT_EQ(w.at, mj.front().at);
            mj.pop_front();
        } else if (op == 5 || op == 6) {   // data only: up to the first control wavelet
            size_t n = 0;
            while (n < mj.size() && n < 60 && !mj[n].ctrl) ++n;
            if (!n) continue;
            n = 1 + rng() % n;
            if (op == 5) {
                std::vector<uint32_t> mem(2 * n);
                const uint64_t t = qj.pop_into(n, reinterpret_cast<uint8_t*>(mem.data()), 8, 5);
                uint64_t latest = 5;
                for (size_t k = 0; k < n; ++k, mj.pop_front()) {
                    ASSERT_EQ(mem[2 * k], mj.front().data);
                    latest = std::max(latest, mj.front().at);
                }
                ASSERT_EQ(t, latest);
            } else {
                std::vector<uint32_t> data(n);
                std::vector<uint64_t> at(n);
                qj.pop_block(n, data.data(), at.data());
                for (size_t k = 0; k < n; ++k, mj.pop_front()) {
                    ASSERT_EQ(data[k], mj.front().data);
                    ASSERT_EQ(at[k], mj.front().at);
                }
            }
        } else if (op == 7) {
            FastQueue::RunView r;
            if (!qj.head_run(&r)) continue;
            ASSERT_EQ(r.b->data()[r.next], mj.front().data);
            ASSERT_EQ(r.b->at()[r.next] + r.delay, mj.front().at);
            const uint32_t k = 1 + rng() % r.left;
            qj.skip(k);
            mj.erase(mj.begin(), mj.begin() + k);
        } else if (op == 8) {
            if (rng() % 50 == 0) q[size_t((j + 1) % kQ)] = FastQueue(qj), model[size_t((j + 1) % kQ)] = mj;
            if (rng() % 50 == 0) qj.shrink(16);
        }
        ASSERT_EQ(qj.size(), mj.size());
        if (!mj.empty()) {
            ASSERT_EQ(qj.front().data, mj.front().data);
            ASSERT_EQ(qj.front_at(), mj.front().at);
        }
    }
}

// A receive into memory waits for the latest stamp it takes. One sender's stamps arrive in order,
// so that is the last one's; a second sender's can be earlier than those queued before them.
TEST(FastMode, QueueTakesTheLatestStampOfMergedStreams) {
    FastQueue q;
    uint32_t mem[8];
    auto into = [&](size_t n) { return q.pop_into(n, reinterpret_cast<uint8_t*>(mem), 4, 0); };
    q.push({1, 0, 50});
    q.push({2, 0, 20});   // another sender's, earlier
    EXPECT_EQ(into(2), 50u);
    const uint32_t data[3] = {3, 4, 5};
    const uint64_t at[3] = {10, 11, 12};
    q.push_block(data, at, 3, 100);   // 110, 111, 112
    q.push({6, 0, 105});
    EXPECT_EQ(into(4), 112u);
    q.push({7, 0, 30});
    q.push_block(data, at, 3, 0);     // a block that starts before the back
    EXPECT_EQ(into(4), 30u);
    q.push({8, 0, 7});                // emptied: in order again
    q.push({9, 0, 8});
    EXPECT_EQ(into(1), 7u);
    EXPECT_EQ(into(1), 8u);
    EXPECT_EQ(mem[0], 9u);
    FastBlock* b = FastBlock::make(data, at, 3);   // the same, as a run of a shared block
    b->hold();                        // kept here, as a relay keeps the block it sends on
    q.push({10, 0, 60});
    q.push_run(b, 0, 3, 40);          // 50, 51, 52: before the back
    EXPECT_EQ(into(3), 60u);
    EXPECT_EQ(into(1), 52u);
    q.push_run(b, 1, 3, 5);           // emptied: in order again, the last one's
    EXPECT_EQ(into(2), 17u);
    EXPECT_EQ(mem[1], 5u);
    b->release();
}
