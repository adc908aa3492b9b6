// bench_fabric.cpp: `waferlab-cli bench fabric [--json] [--mesh 64] [--n 4096] [--reps 3]`
//   (a) stream: PE (0,y) of every row sends n wavelets east to PE (W-1,y); every
//       router on the row forwards them. Reports emulated PE-cycles per second
//       (mesh PEs x cycles / wall time).
//   (b) compute: every PE of a --cmesh x --cmesh block runs fmacs over SRAM
//       (y = y + a * s, --len elements, --iters times); the same arithmetic runs
//       as a plain C++ loop in this process. Reports emulated / plain wall time.
// Single thread. Targets: (a) >= 50e6 PE-cycles/s, (b) ratio <= 3.
#include "cli/cpu_time.h"
#include "cli/verbs.h"
#include "engine/core/json_text.h"
#include "engine/fabric/host.h"
#include "engine/fabric/program_builder.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <vector>

namespace wlcli {

using namespace wl;
using Clock = std::chrono::steady_clock;

static double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct StreamResult {
    uint64_t cycles = 0, hops = 0;
    double wall = 0, cpu = 0;
    bool ok = false;
    std::string error;
};

static StreamResult bench_stream(int W, int H, int n) {
    ProgramBuilder b("stream");
    uint32_t x = b.array("x", uint32_t(n)), y = b.array("y", uint32_t(n));
    b.func("main", 4, 0, true);
    int rx = b.label();
    b.li(3, n).peid(0, 0).bnz(0, rx).li(1, int32_t(x)).dmem(0, 1, 3).dfabout(1, 3, 0).fmovs(1, 0).ret();
    b.bind(rx).li(1, int32_t(y)).dmem(0, 1, 3).dfabin(1, 3, 0).fmovs(0, 1).ret();
    Program p = b.finish();
    StreamResult res;
    Host h(MachineConfig{.w = W, .h = H});
    auto check = [&](const Fault& f) {
        if (f && res.error.empty()) res.error = f.to_string();
    };
    check(h.load(p, {0, 0, W, H}));
    std::vector<float> xs(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) xs[size_t(k)] = float(k);
    for (int r = 0; r < H; ++r) {
        check(h.route(0, r, 0, Route::of(kR, kE)));
        for (int i = 1; i < W - 1; ++i) check(h.route(i, r, 0, Route::of(kW, kE)));
        check(h.route(W - 1, r, 0, Route::of(kW, kR)));
        check(h.h2d(0, r, "x", xs.data(), size_t(n)));
        check(h.launch({0, r, 1, 1}, "main"));
        check(h.launch({W - 1, r, 1, 1}, "main"));
    }
    if (!res.error.empty()) return res;
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    RunResult rr = h.run_until_quiescent(uint64_t(n) * 4 + 10000);
    res.cpu = cpu_seconds() - c0;
    res.wall = seconds_since(t0);
    res.cycles = rr.cycles;
    res.hops = h.stats().hops;
    res.ok = rr.ok();
    if (!rr.ok()) res.error = rr.fault.to_string();
    // The last PE of each row must hold exactly what the first sent.
    std::vector<float> got(static_cast<size_t>(n));
    for (int r = 0; r < H && res.ok; ++r) {
        check(h.d2h(W - 1, r, "y", got.data(), size_t(n)));
        if (got != xs) res.ok = false, res.error = "row " + std::to_string(r) + " received wrong data";
    }
    return res;
}

struct ComputeResult {
    uint64_t cycles = 0;
    double wall = 0, plain = 0, cpu = 0, plain_cpu = 0;
    bool ok = false;
    std::string error;
};

static ComputeResult bench_compute(int C, int len, int iters) {
    ProgramBuilder b("fmacs");
    uint32_t a = b.array("a", uint32_t(len)), y = b.array("y", uint32_t(len));
    b.func("main", 6, 0, true);
    int loop = b.label();
    b.li(0, int32_t(a)).li(1, len).dmem(0, 0, 1).li(0, int32_t(y)).dmem(1, 0, 1);
    b.lif(2, 0.999f).li(3, iters);
    b.bind(loop).fmacs(1, 1, 0, 2).addi(3, 3, -1).bnz(3, loop).ret();
    Program p = b.finish();
    ComputeResult res;
    Host h(MachineConfig{.w = C, .h = C});
    std::vector<float> av(static_cast<size_t>(len)), yv(static_cast<size_t>(len));
    for (int k = 0; k < len; ++k) av[size_t(k)] = float(k % 7) * 0.001f, yv[size_t(k)] = float(k % 5);
    Fault f = h.load(p, {0, 0, C, C});
    for (int yy = 0; yy < C && !f; ++yy)
        for (int xx = 0; xx < C && !f; ++xx) {
            if (!f) f = h.h2d(xx, yy, "a", av.data(), size_t(len));
            if (!f) f = h.h2d(xx, yy, "y", yv.data(), size_t(len));
        }
    if (!f) f = h.launch({0, 0, C, C}, "main");
    if (f) {
        res.error = f.to_string();
        return res;
    }
    // The plain C++ loop: the same arrays per PE, the same operations in the same order.
    std::vector<std::vector<float>> pa(size_t(C) * C, av), py(size_t(C) * C, yv);
    auto t0 = Clock::now();
    double c0 = cpu_seconds();
    RunResult rr = h.run_until_quiescent(uint64_t(len + 8) * uint64_t(iters) * 2 + 10000);
    res.cpu = cpu_seconds() - c0;
    res.wall = seconds_since(t0);
    res.cycles = rr.cycles;
    res.ok = rr.ok();
    if (!rr.ok()) res.error = rr.fault.to_string();
    const float s = 0.999f;
    t0 = Clock::now();
    c0 = cpu_seconds();
    for (size_t pe = 0; pe < pa.size(); ++pe) {
        float* yp = py[pe].data();
        const float* ap = pa[pe].data();
        for (int it = 0; it < iters; ++it)
            for (int k = 0; k < len; ++k) yp[k] = yp[k] + ap[k] * s;
    }
    res.plain_cpu = cpu_seconds() - c0;
    res.plain = seconds_since(t0);
    std::vector<float> got(static_cast<size_t>(len));
    for (int pe = 0; pe < C * C && res.ok; ++pe) {
        h.d2h(pe % C, pe / C, "y", got.data(), size_t(len));
        if (got != py[size_t(pe)]) res.ok = false, res.error = "fmacs result differs from the plain loop";
    }
    return res;
}

int bench_fabric(const Args& args) {
    const int W = int(args.get_int("mesh", 64)), n = int(args.get_int("n", 4096)), reps = int(args.get_int("reps", 3));
    const int C = int(args.get_int("cmesh", 16)), len = int(args.get_int("len", 2048)), iters = int(args.get_int("iters", 200));
    if (W < 2 || n < 1 || n > 6000 || reps < 1 || C < 1 || len < 1 || iters < 1 || len > 5000) {   // the flags' ranges (verb_table.cpp)
        std::fprintf(stderr, "bench fabric: --mesh, --n or --len outside its range (waferlab-cli bench fabric --help)\n");
        return 2;
    }
    StreamResult best;
    for (int r = 0; r < reps; ++r) {
        StreamResult s = bench_stream(W, W, n);
        if (!s.ok) {
            std::fprintf(stderr, "bench fabric: stream failed: %s\n", s.error.c_str());
            return 1;
        }
        if (r == 0 || s.cpu < best.cpu) best = s;
    }
    ComputeResult cbest;
    for (int r = 0; r < reps; ++r) {
        ComputeResult c = bench_compute(C, len, iters);
        if (!c.ok) {
            std::fprintf(stderr, "bench fabric: compute failed: %s\n", c.error.c_str());
            return 1;
        }
        if (r == 0 || c.cpu / c.plain_cpu < cbest.cpu / cbest.plain_cpu) cbest = c;
    }
    // Rates use CPU time (the machine is shared; wall time is reported alongside). Best of --reps.
    const double stream_rate = double(best.cycles) * W * W / best.cpu;
    const double compute_rate = double(cbest.cycles) * C * C / cbest.cpu;
    const double ratio = cbest.cpu / cbest.plain_cpu;
    nlohmann::json j = {
        {"bench", "fabric"},
        {"mesh", std::to_string(W) + "x" + std::to_string(W)},
        {"pe_cycles_per_s_stream", stream_rate},
        {"pe_cycles_per_s_compute", compute_rate},
        {"compute_vs_plain_ratio", ratio},
        {"state_bytes_per_pe", Machine::state_bytes_per_pe()},
        {"stream", {{"wavelets_per_row", n}, {"cycles", best.cycles}, {"hops", best.hops}, {"wall_s", best.wall}, {"cpu_s", best.cpu},
                    {"pe_cycles_per_s_wall", double(best.cycles) * W * W / best.wall}}},
        {"compute",
         {{"mesh", std::to_string(C) + "x" + std::to_string(C)}, {"len", len}, {"iters", iters}, {"cycles", cbest.cycles},
          {"wall_s", cbest.wall}, {"plain_wall_s", cbest.plain}, {"cpu_s", cbest.cpu}, {"plain_cpu_s", cbest.plain_cpu},
          {"ratio_wall", cbest.wall / cbest.plain}}},
        {"targets", {{"pe_cycles_per_s_stream", 50e6}, {"compute_vs_plain_ratio", 3.0}}},
        {"threads", 1},
    };
    if (args.has("json")) {
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        std::printf("fabric stream : %dx%d mesh, %d wavelets per row, %llu cycles in %.3f s CPU (%.3f s wall) = %.1f M PE-cycles/s (target >= 50)\n",
                    W, W, n, (unsigned long long)best.cycles, best.cpu, best.wall, stream_rate / 1e6);
        std::printf("fabric compute: %dx%d PEs, fmacs len %d x %d: emulated %.3f s, plain C++ %.3f s CPU, ratio %.2f (target <= 3); %.1f M PE-cycles/s\n",
                    C, C, len, iters, cbest.cpu, cbest.plain_cpu, ratio, compute_rate / 1e6);
        std::printf("state beyond SRAM: %zu bytes per PE\n", Machine::state_bytes_per_pe());
    }
    return 0;
}

}  // namespace wlcli
