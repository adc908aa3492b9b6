// verbs.h: one function per CLI verb, each in its own file (verb_<name>.cpp).
#pragma once
#include "cli/args.h"

namespace wlcli {

using VerbFn = int (*)(const Args&);

struct Verb {
    const char* name;
    const char* usage;     // one line, shown by `waferlab-cli help`
    VerbFn run;
};

int verb_info(const Args& args);
int verb_bench(const Args& args);
int verb_isa(const Args& args);        // verb_isa.cpp: instruction table, docs/cost-model.md
int verb_run(const Args& args);        // verb_run.cpp: WaferKernel files
int verb_check(const Args& args);      // verb_run.cpp
int verb_train(const Args& args);      // verb_train.cpp: the reference GPT
int verb_generate(const Args& args);   // verb_generate.cpp
int verb_compare(const Args& args);    // verb_compare.cpp: GPU model vs wafer estimate

// Benchmarks, dispatched by verb_bench (verb_bench.cpp).
int bench_gpt(const Args& args);   // bench_gpt.cpp
int bench_fabric(const Args& args);
int bench_compile(const Args& args);   // bench_compile.cpp
int bench_fast(const Args& args);      // bench_fast.cpp: fast mode vs cycle mode vs plain C++

}  // namespace wlcli
