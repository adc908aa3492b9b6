// bench_compile.cpp: `waferlab-cli bench compile` — how long the kernel compiler
// takes on each example (best of --reps, milliseconds), against a 50 ms budget
// that keeps compile-as-you-type and Ctrl+Enter instant in the app.
//   waferlab-cli bench compile [--json] [--dir examples] [--reps 5]
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/core/read_file.h"
#include "engine/lang/compile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

namespace wlcli {

int bench_compile(const Args& args) {
    namespace fs = std::filesystem;
    const fs::path dir = args.get("dir", "examples");
    const int reps = int(std::max(1ll, args.get_int("reps", 5)));
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))   // a FIFO or device named .wk in the folder is not a kernel to open
        if (e.path().extension() == ".wk" && (e.is_regular_file(ec) || e.is_directory(ec))) files.push_back(e.path());
    if (files.empty()) {
        std::fprintf(stderr, "bench compile: no .wk files in %s (run from the repository root or pass --dir)\n", dir.c_str());
        return 1;
    }
    std::sort(files.begin(), files.end());
    nlohmann::json rows = nlohmann::json::array();
    double worst = 0;
    int failed = 0;
    for (const fs::path& p : files) {
        std::string src, error;
        if (!wl::read_file(p.string(), wl::kMaxSourceBytes, "kernel", &src, &error)) {
            std::fprintf(stderr, "bench compile: %s\n", error.c_str());
            return 1;
        }
        double best = 1e300;
        wl::lang::CompileResult r;
        for (int k = 0; k < reps; ++k) {
            const auto t0 = std::chrono::steady_clock::now();
            r = wl::lang::compile(src, p.filename().string());
            best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        worst = std::max(worst, best);
        wl::lang::require_layout(r, src);   // an empty file compiles to nothing: not "ok"
        for (const wl::lang::Diagnostic& d : r.diagnostics)   // a benchmark of a kernel that does not compile says where
            if (d.severity == wl::lang::Severity::Error) std::fprintf(stderr, "%s\n", wl::lang::format_diagnostic(d).c_str());
        failed += !r.ok();
        rows.push_back({{"file", p.filename().string()}, {"ok", r.ok()}, {"ms", best}, {"lines", std::count(src.begin(), src.end(), '\n')},
                        {"program_images", r.images()}});
    }
    const nlohmann::json j = {{"bench", "compile"}, {"reps", reps}, {"budget_ms", 50}, {"worst_ms", worst},
                              {"worst_vs_budget", worst / 50.0}, {"files", rows}};
    if (args.has("json")) {
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        for (const auto& r : rows)
            std::printf("%-16s %7.2f ms  %s  (%d program image%s)\n", r["file"].get<std::string>().c_str(), r["ms"].get<double>(),
                        r["ok"].get<bool>() ? "ok" : "ERRORS", int(r["program_images"]), int(r["program_images"]) == 1 ? "" : "s");
        std::printf("worst %.2f ms = %.2f of the 50 ms budget (best of %d)\n", worst, worst / 50.0, reps);
    }
    if (failed) std::fprintf(stderr, "bench compile: %d of %zu kernels did not compile (above)\n", failed, files.size());
    return failed ? 1 : 0;
}

}  // namespace wlcli
