// command_line_test.cpp: waferlab-cli's parser against the real verb table. What the
// table does not name is an error naming the word and the nearest flag; every flag
// the docs and tests use parses.
#include "cli/command_line.h"
#include "engine/gpt/gpt_config.h"
#include "engine/core/parse_number.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

using namespace wlcli;

namespace {

CommandLine parse(std::vector<std::string> words) {
    words.insert(words.begin(), "waferlab-cli");
    std::vector<const char*> argv;
    for (const std::string& w : words) argv.push_back(w.c_str());
    return parse_command_line(verb_table(), int(argv.size()), argv.data());
}

}  // namespace

TEST(CliCommandLine, UnknownFlagIsAnErrorThatSuggestsTheNearest) {
    CommandLine cl = parse({"train", "--config", "models/gpt-nano.yaml", "--step", "10"});
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("waferlab-cli train: error: unknown flag --step (did you mean --steps?)"), std::string::npos) << cl.err;
}

TEST(CliCommandLine, BadValuesNameTheFlag) {
    CommandLine cl = parse({"train", "--steps", "ten"});
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("--steps"), std::string::npos) << cl.err;
    EXPECT_NE(cl.err.find("expects an integer in 0..1000000000, got 'ten'"), std::string::npos) << cl.err;

    cl = parse({"generate", "--checkpoint", "a.ckpt", "--temperature", "warm"});
    EXPECT_NE(cl.err.find("--temperature"), std::string::npos) << cl.err;
    EXPECT_NE(cl.err.find("expects a number in 0..100, got 'warm'"), std::string::npos) << cl.err;

    cl = parse({"compare", "--config", "c.yaml", "--mode", "inference"});
    EXPECT_NE(cl.err.find("expects one of train|infer, got 'inference'"), std::string::npos) << cl.err;

    cl = parse({"forward", "--config", "c.yaml", "--sparsity", "0.5", "--sparsity-mask", "smallest"});
    EXPECT_NE(cl.err.find("expects one of magnitude|random, got 'smallest'"), std::string::npos) << cl.err;

    cl = parse({"run", "examples/hello.wk", "--budget"});
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("--budget"), std::string::npos) << cl.err;
}

TEST(CliCommandLine, UnknownVerbsAndExtraWordsAreErrors) {
    CommandLine cl = parse({"trian", "--steps", "3"});
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("trian"), std::string::npos) << cl.err;

    cl = parse({"run", "a.wk", "b.wk"});
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("unexpected argument 'b.wk'"), std::string::npos) << cl.err;

    cl = parse({"bench", "fabirc"});
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("unknown verb 'fabirc' (did you mean fabric?)"), std::string::npos) << cl.err;

    cl = parse({"bench", "fabric", "--steps", "3"});   // a flag of another benchmark
    EXPECT_NE(cl.err.find("waferlab-cli bench fabric: error: unknown flag --steps"), std::string::npos) << cl.err;

    cl = parse({"run"});
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("kernel.wk"), std::string::npos) << cl.err;
}

TEST(CliCommandLine, DocumentedCommandLinesParse) {
    struct Case {
        std::vector<std::string> words;
        const char* verb;
    };
    const Case cases[] = {
        {{"info", "--json"}, "info"},
        {{"isa", "markdown"}, "isa"},
        {{"run", "examples/summa.wk", "--json", "--budget=1000"}, "run"},
        {{"check", "examples/hello.wk"}, "check"},
        {{"check", "--disasm", "examples/summa.wk"}, "check"},
        {{"train", "--config", "models/gpt-micro.yaml", "--set", "optimizer.learning_rate=3e-4,runconfig.seed=500", "--steps", "5",
          "--threads", "1", "--out", "x.ckpt", "--json"},
         "train"},
        {{"generate", "--llmc", "gpt2_124M.bin", "--prompt", "Once", "--tokens", "5", "--top-k", "40",
          "--temperature", "0.8", "--seed", "7"},
         "generate"},
        {{"compare", "--config", "models/gpt2-small.yaml", "--gpu", "a100", "--batch", "8", "--mode", "infer",
          "--mesh", "16x16", "--csv", "o.csv"},
         "compare"},
        {{"bench", "fabric", "--json", "--mesh", "32", "--n", "64"}, "fabric"},
        {{"bench", "gpt", "--steps", "2", "--no-torch"}, "gpt"},
        {{"bench", "compile", "--reps", "1"}, "compile"},
        // The compile cache's flags, on every verb that plans a model (docs/model-compiler.md).
        {{"compile-model", "--config", "models/gpt-nano.yaml", "--train", "--cache-dir", "/tmp/plans"}, "compile-model"},
        {{"forward", "--config", "models/gpt-nano.yaml", "--no-cache"}, "forward"},
        {{"generate", "--checkpoint", "x.ckpt", "--on-mesh", "--no-cache", "--cache-dir", "/tmp/plans"}, "generate"},
        {{"train", "--config", "models/gpt-nano.yaml", "--on-mesh", "--no-cache"}, "train"},
        {{"bench", "mesh-gpt", "--train", "--cache-dir", "/tmp/plans", "--no-cache"}, "mesh-gpt"},
        // Sparsity (docs/model-compiler.md, "Sparsity"; docs/performance.md, "Sparsity").
        {{"compile-model", "--config", "models/gpt-nano.yaml", "--sparsity", "0.9", "--sparsity-mask", "random", "--sparsity-seed", "3"}, "compile-model"},
        {{"forward", "--config", "models/gpt-nano.yaml", "--sparsity", "0.75"}, "forward"},
        {{"generate", "--checkpoint", "x.ckpt", "--on-mesh", "--sparsity", "0.5", "--sparsity-mask", "magnitude"}, "generate"},
        {{"bench", "sparsity", "--json"}, "sparsity"},
        {{"bench", "sparsity", "--mode", "cycle", "--sparsity-mask", "random", "--steps", "5"}, "sparsity"},
        {{"train", "--config", "models/gpt-nano.yaml", "--on-mesh", "--sparsity", "0.75", "--sparsity-mask", "random",
          "--sparsity-seed", "3", "--json"},
         "train"},
        {{"train", "--resume", "x.ckpt", "--sparsity", "0.5"}, "train"},
        {{"train", "--config", "models/gpt-micro.yaml", "--on-mesh", "--execution", "streaming", "--steps", "2"}, "train"},
        {{"train", "--resume", "x.ckpt", "--on-mesh", "--execution", "streaming"}, "train"},
        {{"lesson", "list", "--json"}, "list"},
        {{"lesson", "check", "3"}, "check"},
    };
    for (const Case& c : cases) {
        CommandLine cl = parse(c.words);
        ASSERT_NE(cl.verb, nullptr) << c.words[0] << ": " << cl.err;
        EXPECT_STREQ(cl.verb->name, c.verb);
    }
    CommandLine cl = parse({"run", "examples/summa.wk", "--json", "--budget=1000"});
    EXPECT_EQ(cl.args.positional, std::vector<std::string>{"examples/summa.wk"});
    EXPECT_TRUE(cl.args.has("json"));
    EXPECT_EQ(cl.args.get_int("budget", 0), 1000);
    EXPECT_FALSE(cl.args.has("mode"));
    // lesson check takes the lesson's number and, optionally, the file to grade.
    cl = parse({"lesson", "check", "3", "mine.wk", "--dir", "lessons"});
    EXPECT_EQ(cl.args.positional, (std::vector<std::string>{"3", "mine.wk"}));
    EXPECT_EQ(cl.args.get("dir"), "lessons");
    EXPECT_NE(parse({"lesson", "check"}).status, 0);   // the number is required
}

TEST(CliCommandLine, UsageComesFromTheTable) {
    CommandLine cl = parse({"help"});
    EXPECT_EQ(cl.status, 0);
    for (const Verb& v : verb_table()) EXPECT_NE(cl.out.find(v.name), std::string::npos) << v.name;

    cl = parse({"train", "--help"});
    EXPECT_EQ(cl.status, 0);
    EXPECT_EQ(cl.verb, nullptr);
    const Verb& train = *std::find_if(verb_table().begin(), verb_table().end(), [](const Verb& v) { return std::string(v.name) == "train"; });
    for (const Flag& f : train.flags) EXPECT_NE(cl.out.find(std::string("--") + f.name), std::string::npos) << f.name;
    EXPECT_EQ(parse({"help", "train"}).out, cl.out);

    cl = parse({});
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("run"), std::string::npos);
}

TEST(CliCommandLine, NearestIgnoresWordsThatAreNotTypos) {
    EXPECT_EQ(nearest("--step", {"--steps", "--set", "--seed"}), "--steps");
    EXPECT_EQ(nearest("--temp", {"--temperature", "--tokens"}), "--temperature");
    EXPECT_EQ(nearest("--zzzzzz", {"--steps", "--json"}), "");
}

// Every number flag states its range (the parser holds values to it and --help shows it), and
// every flag rule names flags its verb has, so no rule can silently never fire.
TEST(CliCommandLine, EveryNumberFlagHasARangeAndEveryRuleItsFlags) {
    std::vector<std::pair<std::string, const Verb*>> all;
    for (const Verb& v : verb_table()) {
        all.push_back({v.name, &v});
        for (const Verb& s : v.subverbs) all.push_back({std::string(v.name) + " " + s.name, &s});
    }
    for (const auto& [path, v] : all)
        for (const Flag& f : v->flags)
            if (f.value == Value::Int || f.value == Value::Number) {
                EXPECT_TRUE(f.range.bounded()) << path << " --" << f.name;
            }
    CommandLine help = parse({"run", "--help"});
    EXPECT_NE(help.out.find("[1..1000000000000]"), std::string::npos) << help.out;
    for (const FlagRule& r : flag_rules()) {
        const Verb* v = nullptr;
        for (const auto& [path, verb] : all)
            if (path == r.verb) v = verb;
        ASSERT_NE(v, nullptr) << r.verb;
        for (const std::string& word : {std::string(r.flag), std::string(r.other)}) {
            const std::string name = word.substr(0, word.find('=')), value = name.size() < word.size() ? word.substr(name.size() + 1) : "";
            const auto f = std::find_if(v->flags.begin(), v->flags.end(), [&](const Flag& f) { return f.name == name; });
            EXPECT_NE(f, v->flags.end()) << r.verb << " has no --" << name;
            if (f == v->flags.end() || value.empty()) continue;   // "name=value": a value the flag takes
            double x = 0;
            if (f->choices) EXPECT_NE(("|" + std::string(f->choices) + "|").find("|" + value + "|"), std::string::npos) << r.verb << " --" << word;
            else EXPECT_EQ(wl::parse_real(value, f->range, &x), "") << r.verb << " --" << word;
        }
    }
}

// Every row of keys_read names a verb that takes --set, keys a config has and flags the verb has,
// so no row can silently never match.
// The verb (or sub-verb: "bench gpt") at a table path, or null.
static const Verb* verb_at(const std::string& path) {
    for (const Verb& top : verb_table()) {
        if (top.name == path) return &top;
        for (const Verb& s : top.subverbs)
            if (std::string(top.name) + " " + s.name == path) return &s;
    }
    return nullptr;
}

TEST(CliCommandLine, EveryKeysReadRowNamesRealKeysAndFlags) {
    const std::vector<std::string> keys = wl::gpt::GPTConfig::keys();
    auto split = [](const std::string& s) {
        std::istringstream in(s);
        std::vector<std::string> w;
        for (std::string x; in >> x;) w.push_back(x);
        return w;
    };
    for (const KeysRead& r : keys_read()) {
        const Verb* v = verb_at(r.verb);
        ASSERT_NE(v, nullptr) << r.verb;
        auto has_flag = [&](const std::string& n) { return std::any_of(v->flags.begin(), v->flags.end(), [&](const Flag& f) { return f.name == n; }); };
        EXPECT_TRUE(has_flag("set")) << r.verb;
        for (const std::string& p : split(r.keys)) {
            const bool section = p.size() > 2 && p.substr(p.size() - 2) == ".*";
            EXPECT_TRUE(std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return section ? k.rfind(p.substr(0, p.size() - 1), 0) == 0 : k == p; }))
                << r.verb << ": " << p;
        }
        for (const std::string& c : split(r.when)) {
            const std::string flag = c.substr(c[0] == '!');
            EXPECT_TRUE(has_flag(flag.substr(0, flag.find('=')))) << r.verb << ": " << c;
        }
    }
}

// Every flag_keys row names a flag its verb has and keys a config has, and the clash is said.
TEST(CliCommandLine, AFlagAndSetOfItsKeyAreAnErrorNamingBoth) {
    const std::vector<std::string> keys = wl::gpt::GPTConfig::keys();
    for (const FlagKeys& r : flag_keys()) {
        const Verb* v = verb_at(r.verb);
        ASSERT_NE(v, nullptr) << r.verb;
        EXPECT_TRUE(std::any_of(v->flags.begin(), v->flags.end(), [&](const Flag& f) { return f.name == std::string(r.flag); })) << r.verb << " --" << r.flag;
        EXPECT_NE(std::find(keys.begin(), keys.end(), std::string(r.key)), keys.end()) << r.verb << ": " << r.key;
        if (r.also) {
            EXPECT_NE(std::find(keys.begin(), keys.end(), std::string(r.also).substr(0, std::string(r.also).find('='))), keys.end()) << r.also;
        }
    }
    CommandLine cl = parse({"train", "--config", "c.yaml", "--steps", "1", "--set", "runconfig.max_steps=5"});
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_NE(cl.err.find("--steps and --set runconfig.max_steps both set runconfig.max_steps; give one"), std::string::npos) << cl.err;
    EXPECT_NE(parse({"train", "--config", "c.yaml", "--data", "a.txt", "--set", "train_input.corpus=addition"}).err.find("--data and --set train_input.corpus"),
              std::string::npos);
    EXPECT_NE(parse({"train", "--config", "c.yaml", "--steps", "1", "--set", "runconfig.seed=5"}).verb, nullptr);   // another key
}

TEST(CliCommandLine, ASetKeyTheVerbDoesNotReadIsAnErrorNamingWhatItReads) {
    CommandLine cl = parse({"generate", "--config", "c.yaml", "--set", "optimizer.beta1=0.8"});
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("--set optimizer.beta1: generate does not read this key, so it would change nothing; it reads model.*"), std::string::npos) << cl.err;
    // Read under a condition: wafer.* by train with --on-mesh only; runconfig.seed by generate from a config only.
    EXPECT_NE(parse({"train", "--config", "c.yaml", "--set", "wafer.mode=cycle"}).err.find("wafer.* (with --on-mesh)"), std::string::npos);
    EXPECT_NE(parse({"train", "--config", "c.yaml", "--on-mesh", "--set", "wafer.mode=cycle"}).verb, nullptr);
    EXPECT_NE(parse({"generate", "--config", "c.yaml", "--set", "runconfig.seed=3"}).verb, nullptr);
    EXPECT_EQ(parse({"generate", "--checkpoint", "a.ckpt", "--set", "runconfig.seed=3"}).verb, nullptr);
    // An unknown key is the config's own error (with the nearest key), not this one.
    EXPECT_NE(parse({"generate", "--config", "c.yaml", "--set", "optimiser.lr=1"}).verb, nullptr);
    // A verb with no rows (bench sparsity reads every section) is not checked.
    EXPECT_NE(parse({"bench", "sparsity", "--set", "optimizer.beta1=0.8"}).verb, nullptr);
}

TEST(CliCommandLine, FlagsThatCannotBothApplyAreAnErrorNamingBoth) {
    CommandLine cl = parse({"train", "--config", "c.yaml", "--data", "a.txt", "--corpus", "addition"});
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("waferlab-cli train: error: --data and --corpus cannot both apply: both name the training text; give one"),
              std::string::npos) << cl.err;
    cl = parse({"train", "--config", "c.yaml", "--wafers", "2"});
    EXPECT_NE(cl.err.find("--wafers needs --on-mesh"), std::string::npos) << cl.err;
    cl = parse({"forward", "--config", "c.yaml", "--sparsity-mask", "random"});
    EXPECT_NE(cl.err.find("--sparsity-mask needs --sparsity: it chooses how --sparsity prunes"), std::string::npos) << cl.err;
    cl = parse({"train", "--config", "c.yaml", "--wafers", "2", "--on-mesh"});
    EXPECT_NE(cl.verb, nullptr) << cl.err;
}

// --set may be given again, each adding its keys (the issue's `--set model.block_size=128 --set
// runconfig.max_steps=20`); another flag given twice with two values is an error (one would be
// ignored), with the same value twice it is that value.
TEST(CliCommandLine, RepeatedSetsAllApply) {
    CommandLine cl = parse({"train", "--config", "models/gpt-nano.yaml", "--set", "model.block_size=32", "--set",
                            "runconfig.seed=2,optimizer.learning_rate=1e-3", "--steps", "4", "--steps", "4"});
    ASSERT_NE(cl.verb, nullptr) << cl.err;
    EXPECT_EQ(cl.args.get("set"), "model.block_size=32\nrunconfig.seed=2,optimizer.learning_rate=1e-3");
    EXPECT_EQ(cl.args.get("steps"), "4");
    cl = parse({"train", "--config", "models/gpt-nano.yaml", "--steps", "1", "--steps", "0"});
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_EQ(cl.status, 2);
    EXPECT_NE(cl.err.find("--steps is given twice ('1' and '0'); give it once"), std::string::npos) << cl.err;
    for (const char* nothing : {"", ",,,"}) {   // a --set that sets no key is not silently nothing
        cl = parse({"train", "--config", "models/gpt-nano.yaml", "--set", nothing});
        EXPECT_EQ(cl.verb, nullptr) << nothing;
        EXPECT_NE(cl.err.find("sets nothing: give key=value"), std::string::npos) << cl.err;
    }
    cl = parse({"check", "examples/summa.wk", "--const", "P"});   // --const's form, not --set's comma list
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_NE(cl.err.find("--const 'P' sets nothing: give NAME=VALUE"), std::string::npos) << cl.err;
}

// --arch picks a machine profile (engine/fabric/wafer.h) where a verb builds a machine: run and
// check take it whole, bench published for every row, the GPT verbs as the shorthand of wafer.arch.
TEST(CliCommandLine, ArchIsAMachineProfileWhereAVerbBuildsAMachine) {
    EXPECT_NE(parse({"run", "k.wk", "--arch", "wse3", "--lanes", "fp16"}).verb, nullptr);
    EXPECT_NE(parse({"check", "k.wk", "--arch", "wse2"}).verb, nullptr);
    EXPECT_NE(parse({"bench", "published", "--arch", "default", "--markdown"}).verb, nullptr);
    EXPECT_NE(parse({"forward", "--config", "c.yaml", "--arch", "wse3"}).verb, nullptr);
    CommandLine cl = parse({"run", "k.wk", "--arch", "wse9"});
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_NE(cl.err.find("default|wse2|wse3"), std::string::npos) << cl.err;
    EXPECT_EQ(parse({"run", "k.wk", "--lanes", "fp8"}).verb, nullptr);
    cl = parse({"train", "--config", "c.yaml", "--arch", "wse3"});   // the mesh's, so with --on-mesh
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_NE(cl.err.find("--arch"), std::string::npos) << cl.err;
    EXPECT_NE(parse({"train", "--config", "c.yaml", "--on-mesh", "--arch", "wse3"}).verb, nullptr);
    cl = parse({"forward", "--config", "c.yaml", "--arch", "wse3", "--set", "wafer.arch=wse2"});
    EXPECT_EQ(cl.verb, nullptr);
    EXPECT_NE(cl.err.find("--arch and --set wafer.arch both set wafer.arch; give one"), std::string::npos) << cl.err;
    EXPECT_NE(parse({"compile-model", "--config", "c.yaml", "--set", "wafer.arch=wse3"}).verb, nullptr);   // the planner reads it
}
