// verb_bench.cpp: `waferlab-cli bench <name> [--json]` — measured, not timed tests.
// Each benchmark lives in its own file (bench_<name>.cpp) and is listed here.
#include "cli/verbs.h"

#include <cstdio>
#include <cstring>

namespace wlcli {

struct Bench {
    const char* name;
    const char* what;
    VerbFn run;
};

static const Bench kBenches[] = {
    {"fabric", "fabric: streaming rows of a 64x64 mesh, fmacs vs plain C++", bench_fabric},
    {"gpt", "gpt: gpt-micro training tokens/s, ours vs PyTorch, and fraction of peak", bench_gpt},
    {"fast", "fast: SUMMA 256^3 on 16x16 in cycle mode, fast mode and plain C++; speed-up, GFLOP/s, cycle estimate", bench_fast},
    {"compile", "compile: the kernel compiler on every example, best of 5, against a 50 ms budget", bench_compile},
    {nullptr, nullptr, nullptr},
};

int verb_bench(const Args& args) {
    const char* want = args.positional.empty() ? "" : args.positional[0].c_str();
    for (const Bench& b : kBenches) {
        if (b.name && !std::strcmp(b.name, want)) return b.run(args);
    }
    std::fprintf(stderr, "usage: waferlab-cli bench <name> [--json]\nbenchmarks:\n");
    for (const Bench& b : kBenches)
        if (b.name) std::fprintf(stderr, "  %-8s %s\n", b.name, b.what);
    return 2;
}

}  // namespace wlcli
