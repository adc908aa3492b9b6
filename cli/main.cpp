// waferlab-cli: the headless front door to the engine.
//   waferlab-cli <verb> [args] [--json]
// Every verb drives the same engine API as the app and the tests.
#include "cli/verbs.h"

#include <cstdio>
#include <cstring>
#include <exception>

namespace wlcli {

static const Verb kVerbs[] = {
    {"info", "info [--json]                 engine version and defaults", verb_info},
    {"bench", "bench <name> [--json]         run a benchmark (see: bench)", verb_bench},
    {"isa", "isa [markdown] [--json]        the compute-engine instruction table and costs", verb_isa},
    {"run", "run <kernel.wk> [--json]      compile a WaferKernel file and run its host block", verb_run},
    {"check", "check <kernel.wk>             compile a WaferKernel file; print its diagnostics", verb_check},
    {"train", "train --config F [--data F] [--steps N] [--json] [--out CKPT]  train the reference GPT", verb_train},
    {"generate", "generate --checkpoint F --prompt TEXT [--tokens N] [--temperature T] [--top-k K]  sample text", verb_generate},
    {"compare", "compare --config F --gpu a100|h100|same-silicon [--batch B] [--gpus N] [--profile P] [--json] [--csv F]  GPU model vs wafer", verb_compare},
};

static int usage(FILE* out) {
    std::fprintf(out, "usage: waferlab-cli <verb> [args]\n\nverbs:\n");
    for (const Verb& v : kVerbs) std::fprintf(out, "  %s\n", v.usage);
    return out == stderr ? 2 : 0;
}

}  // namespace wlcli

int main(int argc, char** argv) {
    using namespace wlcli;
    if (argc < 2) return usage(stderr);
    const char* name = argv[1];
    if (!std::strcmp(name, "help") || !std::strcmp(name, "--help") || !std::strcmp(name, "-h")) return usage(stdout);
    for (const Verb& v : kVerbs) {
        if (std::strcmp(v.name, name) != 0) continue;
        try {
            return v.run(Args::parse(argc, argv, 2));
        } catch (const std::exception& e) {
            std::fprintf(stderr, "waferlab-cli %s: error: %s\n", name, e.what());
            return 1;
        }
    }
    std::fprintf(stderr, "waferlab-cli: unknown verb '%s'\n\n", name);
    return usage(stderr);
}
