// node_bench.cpp: the CLI's benchmarks for the web build, run under node (the CLI
// itself is native only), with the same flags and JSON as the CLI verbs:
//   node build/web/bench/node_bench.js fabric --json
//   node build/web/bench/node_bench.js mesh-gpt --json        (from the repository root)
//   node build/web/bench/node_bench.js fast --json            (from the repository root)
#include "cli/verbs.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
    static constexpr struct {
        const char* name;
        int (*run)(const wlcli::Args&);
    } kBenches[] = {{"fabric", wlcli::bench_fabric}, {"mesh-gpt", wlcli::bench_mesh_gpt}, {"fast", wlcli::bench_fast}};
    const auto* bench = std::end(kBenches);
    for (const auto& b : kBenches)
        if (argc >= 2 && std::strcmp(argv[1], b.name) == 0) bench = &b;
    if (bench == std::end(kBenches)) {
        std::fprintf(stderr, "usage: node node_bench.js fabric|mesh-gpt|fast [--flag value ...] [--json]\n");
        return 2;
    }
    wlcli::Args args;   // --name value, or a bare --name (a switch) before another flag or the end
    for (int i = 2; i < argc; i++) {
        if (std::strncmp(argv[i], "--", 2) != 0) {
            std::fprintf(stderr, "node_bench: unexpected '%s'\n", argv[i]);
            return 2;
        }
        const std::string name = argv[i] + 2;
        const bool has_value = i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0;
        args.options[name] = has_value ? argv[++i] : "";
    }
    try {
        return bench->run(args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "node_bench %s: error: %s\n", argv[1], e.what());
        return 1;
    }
}
