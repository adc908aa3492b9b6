// verbs.h: the CLI's verbs and their flags, as one table (kVerbs in main.cpp) that both
// the parser and the usage text read. One function per verb, each in its own file
// (verb_<name>.cpp); benchmarks are the sub-verbs of `bench` (bench_<name>.cpp).
#pragma once
#include "cli/args.h"
#include "engine/core/parse_number.h"

#include <map>
#include <string>
#include <vector>

namespace wlcli {

using VerbFn = int (*)(const Args&);

enum class Value { Switch, Int, Number, Text };   // what a flag takes after its name

struct Flag {
    const char* name;               // without "--"
    Value value;
    const char* help;               // one line; say the default here
    const char* choices = nullptr;  // "cycle|fast": any other value is an error
    wl::NumberRange range = {};     // Int and Number: the values taken (parse_number.h); --help states it
    bool repeats = false;           // given again, its values join (one per line), as --set's lists; else the last wins
};

struct Verb {
    const char* name;
    const char* help;                   // one line
    const char* positional = nullptr;   // "kernel.wk", or none
    bool positional_required = false;
    const char* positional_choices = nullptr;   // "markdown", as Flag::choices
    std::vector<Flag> flags;
    VerbFn run = nullptr;               // null for a verb that only groups sub-verbs
    std::vector<Verb> subverbs = {};
    const char* positional2 = nullptr;  // an optional second positional after the first ("file.wk")
};

// Flags that cannot both apply, or one that means nothing without another: one row each in
// flag_rules() (verb_table.cpp), which the parser checks before a verb runs, so no verb ignores
// a flag it was given. The error names both flags and why.
enum class Rule { Conflicts, Needs };
struct FlagRule {
    const char* verb;     // "train"; "bench sparsity" for a sub-verb
    const char* flag;     // without "--"
    Rule rule;
    const char* other;    // conflicts with, or is needed by, `flag`; "name=value": that flag with that value
                          // (absent, it has its default, which is not `value`)
    const char* why;      // the reason, a clause
    // More to say from the files the flags name ("they differ in model.n_layer ..."), or "".
    std::string (*detail)(const Args&) = nullptr;
};
const std::vector<FlagRule>& flag_rules();
// The first rule the args break, as "--a and --b cannot both apply: why", or "".
std::string broken_rule(const char* verb_path, const Args& args);

// The config keys a verb reads, so that a --set key it would ignore is an error (the flags'
// rule for config keys): one row per set of keys, read always or only when `when` holds. Keys
// are space-separated, "model.*" for a whole section; `when` is space-separated conditions that
// must all hold: "on-mesh" (given), "!checkpoint" (not given), "!mode=infer" (not that value).
struct KeysRead {
    const char* verb;
    const char* keys;
    const char* when = "";
};
const std::vector<KeysRead>& keys_read();
// The first --set key that the verb reads under none of its rows, as "--set k=v: generate does
// not read optimizer.learning_rate; it reads ...", or "". A verb with no rows is not checked, and
// a key no config has is left to the config's own error (with the nearest key).
std::string unread_key(const char* verb_path, const Args& args);
// Flags that are shorthands for config keys (train --steps is runconfig.max_steps): giving both the
// flag and --set of its key is an error naming both, not one silently winning.
struct FlagKeys {
    const char* verb;
    const char* flag;
    const char* key;              // the key that takes the flag's value, whole
    const char* also = nullptr;   // another key the flag sets, "key=value" (--data: train_input.corpus=file)
};
const std::vector<FlagKeys>& flag_keys();
// "--steps and --set runconfig.max_steps both set runconfig.max_steps; give one", or "".
std::string flag_and_set_clash(const char* verb_path, const Args& args);

int verb_info(const Args& args);
int verb_isa(const Args& args);        // verb_isa.cpp: instruction table, docs/cost-model.md
int verb_run(const Args& args);        // verb_run.cpp: WaferKernel files
// --const's NAME=VALUE lines (one a line) into a kernel's constants; "" or what is wrong (verb_run.cpp).
std::string const_overrides(const std::string& lines, std::map<std::string, double>* out);
int verb_check(const Args& args);      // verb_run.cpp
int verb_train(const Args& args);      // verb_train.cpp: the reference GPT
int verb_generate(const Args& args);   // verb_generate.cpp
int verb_compare(const Args& args);    // verb_compare.cpp: GPU model vs wafer estimate
int verb_compile_model(const Args& args);   // verb_model.cpp: the GPT on the mesh
int verb_forward(const Args& args);         // verb_model.cpp
int verb_lesson_list(const Args& args);    // verb_lesson.cpp: the guided lessons
int verb_lesson_check(const Args& args);   // verb_lesson.cpp

// Benchmarks: `bench <name>`.
int bench_gpt(const Args& args);       // bench_gpt.cpp
int bench_fabric(const Args& args);    // bench_fabric.cpp
int bench_compile(const Args& args);   // bench_compile.cpp
int bench_published(const Args& args);   // bench_published.cpp: our kernels at the sizes of published WSE cycle counts
int bench_fast(const Args& args);      // bench_fast.cpp: fast mode vs cycle mode vs plain C++
int bench_mesh_gpt(const Args& args);  // bench_mesh_gpt.cpp: the GPT forward on the mesh vs the reference
int bench_sparsity(const Args& args);  // bench_sparsity.cpp: cycles and wavelets of the mesh forward against weight density
int bench_swarmx(const Args& args);    // bench_swarmx.cpp: a data-parallel training step on 1, 2 and 4 wafers
int bench_scale(const Args& args);     // bench_scale.cpp: a kernel in one process and split over mpirun's ranks

}  // namespace wlcli
