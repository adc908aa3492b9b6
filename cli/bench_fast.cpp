// bench_fast.cpp: `waferlab-cli bench fast [--json] [--p 16] [--b 16] [--reps 3] [--kernel examples/summa.wk]`
//   Runs the SUMMA example (a (P*B)^3 GEMM on a P x P mesh) in cycle mode and in
//   fast mode, and the same GEMM as a plain C++ loop, in one process; checks that
//   all three give the same bits, and reports wall time for each, fast mode's
//   speed-up over cycle mode, its effective GFLOP/s, and its cycle estimate
//   against cycle mode's count; then the same for the optimising compiler's code. Best of
//   --reps for each (fast mode: and of as many more runs as fit in half a second), in CPU
//   seconds of this single-threaded process (on a shared machine, the time the emulator really ran). The optimised code is also timed without its host
//   block's print (65,536 floats formatted as text, the same work in both modes): the emulator's
//   own speed-up; its results are the runs' with print.
#include "cli/cpu_time.h"
#include "cli/verbs.h"
#include "engine/core/json_text.h"
#include "engine/core/read_file.h"
#include "engine/core/simd.h"
#include "engine/lang/compile.h"
#include "engine/lang/run.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <memory>
#include <vector>

namespace wlcli {

namespace {

struct Timed {
    wl::lang::RunReport rep;
    double seconds = 1e30;
};

// The best of `reps` runs, and of as many more as fit in `span` seconds in all: a fast run is about
// 1/50 of a cycle run, so on a shared machine a short busy spell could spoil all of its few runs.
// A run is made as the app makes one (a KernelRun of a compile result it shares): run_kernel would
// time a copy of the compile result too.
Timed run_best(const wl::lang::CompileResult& compiled, wl::RunMode mode, int reps, double span = 0.5) {
    Timed t;
    wl::lang::RunOptions opt;
    opt.mode = mode;
    const auto cr = std::make_shared<const wl::lang::CompileResult>(compiled);
    double spent = 0;
    for (int r = 0; r < reps || (spent < span && r < 1000); ++r) {
        const double t0 = cpu_seconds();
        wl::lang::KernelRun run(cr, opt);
        run.finish();
        wl::lang::RunReport rep = run.report();
        const double s = cpu_seconds() - t0;
        spent += s;
        if (s < t.seconds) t.seconds = s, t.rep = std::move(rep);
    }
    return t;
}

// The same GEMM in plain C++, in the mesh's order of operations (k outer, unfused multiply-add),
// from the inputs the kernel's host block fills (random(11) for A, random(12) for B, per PE, column-major blocks).
std::vector<float> plain_gemm(int P, int B, double* seconds) {
    const int N = P * B;
    std::vector<float> A(size_t(N) * N), Bm(size_t(N) * N), C(size_t(N) * N, 0.0f);
    auto fill = [&](std::vector<float>& M, int seed) {
        uint64_t k = 0;
        for (int py = 0; py < P; ++py)
            for (int px = 0; px < P; ++px)
                for (int c = 0; c < B; ++c)
                    for (int r = 0; r < B; ++r, ++k) M[size_t(py * B + r) * N + size_t(px * B + c)] = wl::lang::fill_value(wl::lang::GenKind::Random, {double(seed)}, k);
    };
    fill(A, 11);
    fill(Bm, 12);
    const double t0 = cpu_seconds();
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < N; ++k) {
            const float a = A[size_t(i) * N + size_t(k)];
            float* crow = &C[size_t(i) * N];
            const float* brow = &Bm[size_t(k) * N];
            for (int j = 0; j < N; ++j) crow[j] = crow[j] + a * brow[j];
        }
    *seconds = cpu_seconds() - t0;
    // Back to the mesh's layout: per PE (row-major), its block column by column.
    std::vector<float> out;
    out.reserve(C.size());
    for (int py = 0; py < P; ++py)
        for (int px = 0; px < P; ++px)
            for (int c = 0; c < B; ++c)
                for (int r = 0; r < B; ++r) out.push_back(C[size_t(py * B + r) * N + size_t(px * B + c)]);
    return out;
}

std::vector<float> mesh_c(const wl::lang::RunReport& rep, int P) {
    std::vector<float> out;
    for (int py = 0; py < P; ++py)
        for (int px = 0; px < P; ++px) {
            auto it = rep.values.find("C@" + std::to_string(px) + "," + std::to_string(py));
            if (it != rep.values.end()) out.insert(out.end(), it->second.begin(), it->second.end());
        }
    return out;
}

// The kernel with its host block's print statements left out.
wl::lang::CompileResult without_print(wl::lang::CompileResult cr) {
    std::erase_if(cr.host, [](const wl::lang::HostAction& a) { return a.kind == wl::lang::HostKind::Print; });
    return cr;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

}  // namespace

int bench_fast(const Args& args) {
    if (const char* why = args.has("simd") ? wl::use_simd(args.get("simd").c_str()) : ""; *why) {
        std::fprintf(stderr, "bench fast: --simd %s: %s\n", args.get("simd").c_str(), why);
        return 2;
    }
    const int P = int(args.get_int("p", 16)), B = int(args.get_int("b", 16)), reps = int(args.get_int("reps", 3));
    const std::string path = args.get("kernel", "examples/summa.wk");
    std::string src, error;
    if (!wl::read_file(path, wl::kMaxSourceBytes, "kernel", &src, &error)) {
        std::fprintf(stderr, "bench fast: %s%s\n", error.c_str(), args.has("kernel") ? "" : " (run from the repository root, or pass --kernel)");
        return 2;
    }
    wl::lang::CompileOptions co;
    co.constants = {{"P", P}, {"B", B}};
    wl::lang::CompileResult cr = wl::lang::compile(src, path, co);
    if (!cr.ok()) {
        // The flags set the kernel's constants P and B: a size it cannot take is said as theirs.
        const auto e = std::find_if(cr.diagnostics.begin(), cr.diagnostics.end(),
                                    [](const wl::lang::Diagnostic& d) { return d.severity == wl::lang::Severity::Error; });
        std::fprintf(stderr, "bench fast: the kernel with --p %d --b %d (its constants P and B): %s\n", P, B,
                     e == cr.diagnostics.end() ? "compile failed" : wl::lang::format_diagnostic(*e).c_str());
        return 1;
    }
    co.optimise = true;
    const wl::lang::CompileResult cro = wl::lang::compile(src, path, co);
    // Each run, stopping at the first that fails: a run that faulted or hit the watchdog has no time worth printing.
    std::string failed;
    auto run = [&](const wl::lang::CompileResult& c, wl::RunMode mode, const char* what) {
        Timed t;
        if (!failed.empty()) return t;
        t = run_best(c, mode, reps);
        if (!t.rep.ok) failed = std::string(what) + " failed: " + t.rep.error;
        return t;
    };
    const Timed cyc = run(cr, wl::RunMode::Cycle, "cycle mode");
    const Timed fast = run(cr, wl::RunMode::Fast, "fast mode");
    const Timed ocyc = run(cro, wl::RunMode::Cycle, "cycle mode (--optimise)");   // the optimising compiler's code
    const Timed ofast = run(cro, wl::RunMode::Fast, "fast mode (--optimise)");
    const wl::lang::CompileResult quiet = without_print(cro);
    const Timed qcyc = run(quiet, wl::RunMode::Cycle, "cycle mode without print"), qfast = run(quiet, wl::RunMode::Fast, "fast mode without print");
    if (!failed.empty()) {
        std::fprintf(stderr, "bench fast: %s: %s\n", path.c_str(), failed.c_str());
        return 1;
    }
    double plain_s = 1e30;
    std::vector<float> plain;
    for (int r = 0; r < reps; ++r) {
        double s;
        plain = plain_gemm(P, B, &s);
        plain_s = std::min(plain_s, s);
    }
    const std::vector<float> c_cycle = mesh_c(cyc.rep, P), c_fast = mesh_c(fast.rep, P);
    const bool bits = same_bits(c_cycle, c_fast) &&
                      same_bits(c_cycle, plain) && same_bits(c_cycle, mesh_c(ocyc.rep, P)) && same_bits(c_cycle, mesh_c(ofast.rep, P)) &&
                      qcyc.rep.cycles == ocyc.rep.cycles && qfast.rep.cycles == ofast.rep.cycles;
    const double n = double(P) * B, flop = 2.0 * n * n * n;
    const double err = cyc.rep.cycles ? (double(fast.rep.cycles) - double(cyc.rep.cycles)) / double(cyc.rep.cycles) : 0.0;
    nlohmann::json j = {
        {"bench", "fast"},
        {"simd", wl::simd_name(wl::simd_level())},
        {"kernel", path},
        {"p", P},
        {"b", B},
        {"gemm_n", int(n)},
        {"flop", flop},
        {"bits_equal", bits},
        {"cycle", {{"seconds", cyc.seconds}, {"cycles", cyc.rep.cycles}, {"instructions", cyc.rep.stats.instrs}, {"ok", cyc.rep.ok}}},
        {"fast", {{"seconds", fast.seconds}, {"cycles_estimated", fast.rep.cycles}, {"instructions", fast.rep.stats.instrs}, {"ok", fast.rep.ok}}},
        {"optimised",
         {{"cycle", {{"seconds", ocyc.seconds}, {"cycles", ocyc.rep.cycles}, {"instructions", ocyc.rep.stats.instrs}}},
          {"fast", {{"seconds", ofast.seconds}, {"cycles_estimated", ofast.rep.cycles}, {"instructions", ofast.rep.stats.instrs}}},
          {"fast_vs_cycle_speedup", ocyc.seconds / ofast.seconds},
          {"fast_gflops", flop / ofast.seconds / 1e9},
          {"without_print",
           {{"cycle_s", qcyc.seconds}, {"fast_s", qfast.seconds}, {"fast_vs_cycle_speedup", qcyc.seconds / qfast.seconds},
            {"fast_gflops", flop / qfast.seconds / 1e9}}}}},
        {"plain", {{"seconds", plain_s}}},
        {"fast_vs_cycle_speedup", cyc.seconds / fast.seconds},
        {"fast_gflops", flop / fast.seconds / 1e9},
        {"plain_gflops", flop / plain_s / 1e9},
        {"fast_vs_plain_slowdown", fast.seconds / plain_s},
        {"cycle_estimate_error", err},
        {"threads", 1},
    };
    if (args.has("json")) {
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        std::printf("SUMMA %d^3 on %d x %d PEs (B = %d), best of %d\n", int(n), P, P, B, reps);
        std::printf("  cycle mode  %8.3f s   %llu cycles\n", cyc.seconds, (unsigned long long)cyc.rep.cycles);
        std::printf("  fast mode   %8.3f s   %llu cycles estimated (%+.2f%%)   %.2f GFLOP/s   %.1fx cycle mode\n", fast.seconds,
                    (unsigned long long)fast.rep.cycles, err * 100.0, flop / fast.seconds / 1e9, cyc.seconds / fast.seconds);
        std::printf("  optimised code (--optimise: %.3g M instructions, not %.3g M):\n", double(ocyc.rep.stats.instrs) / 1e6,
                    double(cyc.rep.stats.instrs) / 1e6);
        std::printf("  cycle mode  %8.3f s   %llu cycles\n", ocyc.seconds, (unsigned long long)ocyc.rep.cycles);
        std::printf("  fast mode   %8.3f s   %llu cycles estimated   %.2f GFLOP/s   %.1fx cycle mode\n", ofast.seconds,
                    (unsigned long long)ofast.rep.cycles, flop / ofast.seconds / 1e9, ocyc.seconds / ofast.seconds);
        std::printf("  without print (the emulator alone): cycle mode %.3f s, fast mode %.3f s   %.2f GFLOP/s   %.1fx cycle mode\n",
                    qcyc.seconds, qfast.seconds, flop / qfast.seconds / 1e9, qcyc.seconds / qfast.seconds);
        std::printf("  plain C++   %8.3f s   %.2f GFLOP/s   fast mode is %.1fx slower (optimised: %.1fx)\n", plain_s, flop / plain_s / 1e9,
                    fast.seconds / plain_s, ofast.seconds / plain_s);
        std::printf("  results: %s\n", bits ? "bit-identical (cycle, fast, plain C++; both compilers)" : "DIFFER");
    }
    return bits ? 0 : 1;
}

}  // namespace wlcli
