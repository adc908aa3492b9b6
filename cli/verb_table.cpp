// verb_table.cpp: every verb and flag of waferlab-cli, one row each. The parser, the
// usage text (`waferlab-cli help`, `<verb> --help`) and the error suggestions read it.
// A new flag is one row here plus the line in the verb that reads it.
#include "cli/command_line.h"
#include "cli/model_args.h"
#include "engine/gpt/parallel.h"
#include "engine/lang/run.h"
#include "engine/model/sparsity.h"
#include "engine/model/swarmx.h"

namespace wlcli {

namespace {

using wl::NumberRange;

// An integer flag in lo..hi, or a number flag in r: the parser refuses anything else, naming the flag.
Flag int_flag(const char* name, double lo, double hi, const char* help) { return {name, Value::Int, help, nullptr, NumberRange::closed(lo, hi)}; }
Flag num_flag(const char* name, NumberRange r, const char* help) { return {name, Value::Number, help, nullptr, r}; }

constexpr double kSeedMax = 9007199254740991.0;   // 2^53 - 1: the largest integer a range (a double) states exactly

const Flag kJson{"json", Value::Switch, "print JSON instead of text"};
const Flag kOptimise{"optimise", Value::Switch, "the optimising code generator: immediates, folded addresses, bottom-tested loops"};
const Flag kConst{"const", Value::Text, "a top-level constant's value instead of the file's: N=40 (`const N = ...;`); may be given again", nullptr, {}, /*repeats=*/true};
const Flag kThreads = int_flag("threads", 1, wl::gpt::kMaxThreads, "worker threads (default: all cores)");
const Flag kLessonDir{"dir", Value::Text, "the lessons folder (default: lessons)"};
const Flag kBpeDir{"bpe-dir", Value::Text, "directory with GPT-2's encoder.json and vocab.bpe"};
const Flag kModelConfig{"config", Value::Text, "model config, e.g. models/gpt-nano.yaml (initial weights from its seed)"};
const Flag kModelCheckpoint{"checkpoint", Value::Text, "a checkpoint written by train (instead of --config)"};
const Flag kMesh{"mesh", Value::Text, "the mesh to compile for, WxH (default: the config's wafer.mesh)"};
const Flag kExecution{"execution", Value::Text,
                      "resident: every layer's weights stay in SRAM; streaming: one layer's ops serve every layer, its "
                      "weights streamed in from the store, gradients streamed out (default: the config's wafer.execution)",
                      "resident|streaming"};
const Flag kSet{"set", Value::Text, "override config keys: optimizer.learning_rate=1e-3,train_input.batch_size=4 (docs/configs.md); may be given again",
                nullptr, {}, /*repeats=*/true};
const Flag kKernels{"kernels", Value::Text, "the kernel folder (default: kernels/ beside --config, else models/kernels)"};
// The compile cache (compile once, run many: docs/model-compiler.md).
const Flag kNoCache{"no-cache", Value::Switch, "compile the model even if the compile cache holds it (and replace the cached executable)"};
// Unstructured sparsity (engine/model/sparsity.h; docs/model-compiler.md, "Sparsity"): inference,
// and training with the mask fixed.
const Flag kSparsity = num_flag("sparsity", NumberRange::closed(0, wl::model::kMaxSparsity), "zero this fraction of every linear layer's weights; the mesh's matmuls skip them");
const Flag kSparsityMask{"sparsity-mask", Value::Text, "which weights --sparsity zeroes: the smallest |w|, or a seeded random choice (default magnitude)", "magnitude|random"};
const Flag kSparsitySeed = int_flag("sparsity-seed", 0, kSeedMax, "the random mask's seed (default: the model's runconfig.seed)");
// The machine profile (engine/fabric/wafer.h, machine_profiles(); docs/fidelity.md, "Machine profiles").
const Flag kArch{"arch", Value::Text, "the machine profile: clock, SRAM per PE, SIMD lanes (default: default, WaferLab's own; docs/fidelity.md)",
                 wl::machine_profile_choices()};
const Flag kLanes{"lanes", Value::Text,
                  "the profile's lanes the vector ops run at: fp32, or fp16 (the same ops timed as on 16-bit data; the data stays fp32) (default fp32)",
                  "fp32|fp16"};
// The GPT verbs': a shorthand for the config key, as --mesh is for wafer.mesh.
const Flag kArchKey{"arch", Value::Text, "the machine profile: clock, SRAM per PE, SIMD lanes (default: the config's wafer.arch; docs/fidelity.md)",
                    wl::machine_profile_choices()};
// The host's SIMD copies the emulator and the reference run (engine/core/simd.h): generic is the
// four lanes WebAssembly's SIMD128 has too, so a native run of it sets apart what the vectors' width gives.
const Flag kSimd{"simd", Value::Text, "the host's vector copies to run: generic (SSE2's four lanes, as WebAssembly's), avx2, avx512 (default: the CPU's widest)",
                 "generic|avx2|avx512"};
const Flag kCacheDir{"cache-dir", Value::Text, "the compile cache's folder (default $WAFERLAB_CACHE_DIR, else $XDG_CACHE_HOME/waferlab/plans or ~/.cache/waferlab/plans)"};

}  // namespace

const std::vector<Verb>& verb_table() {
    static const std::vector<Verb> verbs = {
        {"info", "engine version and defaults", nullptr, false, nullptr, {kJson}, verb_info},
        {"isa", "the compute-engine instruction table and costs (`isa markdown`: docs/cost-model.md)", "what", false,
         "markdown",
         {{"format", Value::Text, "markdown: print docs/cost-model.md", "markdown"}, kJson},
         verb_isa},
        {"run", "compile a WaferKernel file and run its host block (under mpirun -np N: the mesh split by bands of rows over N ranks, docs/scale.md)", "kernel.wk", true, nullptr,
         {int_flag("budget", 1, double(wl::lang::kMaxCycleBudget), "cycle budget per `run` statement (default 50000000)"),
          {"mode", Value::Text, "cycle: every router and CE each cycle; fast: functional, cycles estimated (default cycle)",
           "cycle|fast"},
          kArch, kLanes, kConst, kOptimise, kJson},
         verb_run},
        {"check", "compile a WaferKernel file; print its diagnostics", "kernel.wk", true, nullptr,
         {{"disasm", Value::Switch, "print each placed program's compiled instructions, with their source lines"}, kArch, kConst, kOptimise, kJson},
         verb_check},
        {"train", "train the reference GPT from a config", nullptr, false, nullptr,
         {{"config", Value::Text, "model config, e.g. models/gpt-micro.yaml"},
          {"data", Value::Text, "train on this text file"},
          {"corpus", Value::Text, "a generated corpus instead of --data: stories or addition"},
          int_flag("steps", 0, double(wl::gpt::kMaxSteps), "optimizer steps (default: the config's runconfig.max_steps)"),
          {"out", Value::Text, "checkpoint to write (default <config name>.ckpt)"},
          {"resume", Value::Text, "continue from this checkpoint"},
          kSet,
          {"on-mesh", Value::Switch, "every step on the emulated mesh: forward, backward and AdamW on the PEs"},
          int_flag("wafers", 1, wl::model::SwarmX::kMaxWafers, "with --on-mesh: data-parallel wafers, each on its shard of the batch; SwarmX sums their gradients (default 1)"),
          kMesh, kArchKey, kExecution, kKernels, kNoCache, kCacheDir,
          {"mode", Value::Text, "with --on-mesh: fast (functional, cycles estimated) or cycle (default: the config's wafer.mode)", "cycle|fast"},
          kSparsity, kSparsityMask, kSparsitySeed,
          kThreads, kBpeDir, kJson},
         verb_train},
        {"generate", "sample text from a checkpoint, from llm.c GPT-2 weights, or from a config's initial weights", nullptr, false, nullptr,
         {{"checkpoint", Value::Text, "a checkpoint written by train"},
          {"llmc", Value::Text, "GPT-2 weights in llm.c's layout (gpt2_124M.bin); with --config of their shape, its context (the first model.block_size positions) and wafer"},
          kModelConfig, kSet,
          {"prompt", Value::Text, "the text to continue (default a newline)"},
          int_flag("tokens", 1, 1000000, "tokens to generate (default 200)"),
          num_flag("temperature", NumberRange::closed(0, 100), "sampling temperature; 0 is greedy (default 1)"),
          int_flag("top-k", 0, 1000000, "sample from the k likeliest tokens; 0 for all (default 0)"),
          int_flag("seed", 0, kSeedMax, "sampling seed (default 1337)"),
          {"on-mesh", Value::Switch, "run every forward on the emulated mesh (fast mode, KV cache in SRAM)"},
          kSparsity, kSparsityMask, kSparsitySeed,
          kMesh, kArchKey, kExecution, kKernels, kNoCache, kCacheDir, kThreads, kBpeDir, kJson},
         verb_generate},
        {"compile-model", "the model compiler: a GPT's graph, placement, memory plan, kernels, schedule", nullptr,
         false, nullptr,
         {kModelConfig, kSet, kMesh, kArchKey, kExecution, kKernels,
          {"train", Value::Switch, "plan for training: gradients, AdamW's m and v, activations kept for backward"},
          kSparsity, kSparsityMask, kSparsitySeed,
          kNoCache, kCacheDir, kBpeDir, kJson},
         verb_compile_model},
        {"forward", "one forward pass on the emulated mesh, op by op, checked against the reference", nullptr, false,
         nullptr,
         {kModelConfig, kModelCheckpoint, kSet, kMesh, kArchKey, kExecution, kKernels,
          {"prompt", Value::Text, "the tokens to run (default: a line of a story)"},
          int_flag("batch", 1, 16, "the prompt this many times, as a batch of sequences (pipelined, they stream through the ops)"),
          {"mode", Value::Text, "fast: functional, cycles estimated; cycle: every cycle (default: the config's wafer.mode)", "cycle|fast"},
          kSparsity, kSparsityMask, kSparsitySeed,
          kNoCache, kCacheDir, kBpeDir, kJson},
         verb_forward},
        {"compare", "one GPT step on a modelled GPU next to the wafer's estimate", nullptr, false, nullptr,
         {{"config", Value::Text, "model config, e.g. models/gpt2-small.yaml"},
          kSet,
          {"gpu", Value::Text, "a100, a100-40gb, h100 or same-silicon (default a100)"},
          {"profile", Value::Text, "reference-fp32, pytorch-bf16, tuned-bf16 or flash1-bf16 (default tuned-bf16)"},
          int_flag("batch", 1, 1000000, "sequences per GPU (default: the config's train_input.batch_size)"),
          int_flag("gpus", 1, 100000, "data-parallel GPUs (default 1)"),
          int_flag("accum", 1, 65536, "gradient-accumulation micro-batches (default: the config's optimizer.grad_accum_steps)"),
          {"mode", Value::Text, "a training step or one forward (default train)", "train|infer"},
          {"mesh", Value::Text, "the wafer mesh, WxH (default: the wafer preset's)"},
          kKernels,
          {"execution", Value::Text,
           "the wafer's case: resident (weights in SRAM) or streaming (each layer's weights in over the wafer's I/O "
           "once per micro-batch); default: streaming only when the weights do not fit",
           "resident|streaming"},
          kSparsity,
          {"csv", Value::Text, "also write the op table to this CSV file"},
          kJson},
         verb_compare},
        {"lesson", "the guided lessons: list them, or check a kernel against one", nullptr, false, nullptr, {}, nullptr,
         {
             {"list", "every lesson: number, title, folder", nullptr, false, nullptr, {kLessonDir, kJson},
              verb_lesson_list},
             {"check", "run a kernel (default: the lesson's solution) against lesson N's check; exit 1 if it fails",
              "N", true, nullptr, {kLessonDir, kJson}, verb_lesson_check, {}, "file.wk"},
         }},
        {"bench", "run a benchmark (measured figures: docs/performance.md)", nullptr, false, nullptr, {}, nullptr,
         {
             {"fabric", "streaming rows of a 64x64 mesh, fmacs vs plain C++", nullptr, false, nullptr,
              // A PE holds two arrays of --n (the stream's) or --len (fmacs') words in its 48 KiB, with room to spare.
              {int_flag("mesh", 2, 256, "stream mesh side: a row's first PE sends to its last (default 64)"),
               int_flag("n", 1, 6000, "wavelets per row (default 4096)"),
               int_flag("reps", 1, 1000, "repetitions, best kept (default 3)"),
               int_flag("cmesh", 1, 256, "compute block side (default 16)"),
               int_flag("len", 1, 5000, "fmacs vector length (default 2048)"),
               int_flag("iters", 1, 1000000, "fmacs per PE (default 200)"),
               kJson},
              bench_fabric},
             {"gpt", "gpt-micro training tokens/s, ours vs PyTorch, and fraction of peak", nullptr, false, nullptr,
              {{"config", Value::Text, "model config (default models/gpt-micro.yaml)"},
               kSet,
               {"data", Value::Text, "training text (default: see docs/performance.md)"},
               int_flag("steps", 1, 1000000, "timed steps (default 30)"),
               {"python", Value::Text, "the Python with PyTorch (default /usr/bin/python3)"},
               {"no-torch", Value::Switch, "skip the PyTorch side"},
               kThreads, kJson},
              bench_gpt},
             {"fast", "SUMMA 256^3 on 16x16 in cycle mode, fast mode and plain C++: speed-up, GFLOP/s, cycle estimate",
              nullptr, false, nullptr,
              {int_flag("p", 1, 256, "PEs per side (default 16)"),
               int_flag("b", 1, 64, "block side per PE (default 16)"),
               int_flag("reps", 1, 1000, "repetitions, best kept (default 3)"),
               {"kernel", Value::Text, "the SUMMA kernel (default examples/summa.wk)"},
               kSimd, kJson},
              bench_fast},
             {"mesh-gpt", "the GPT forward (or --train: a training step) on the emulated mesh vs the reference: time, ratio, cycles",
              nullptr, false, nullptr,
              {{"config", Value::Text, "model config (default models/gpt-nano.yaml)"},
               kSet, kMesh, kArchKey, kKernels,
               int_flag("t", 1, 65536, "tokens in the forward (default: the config's block_size)"),
               int_flag("reps", 1, 1000, "repetitions, best kept (default 5)"),
               int_flag("batch", 1, 64, "also a batch of this many prompts' forward under each wafer.schedule (sequential, pipelined)"),
               {"train", Value::Switch, "a training step (batch_size sequences, backward, AdamW) instead of a forward"},
               kSimd, kNoCache, kCacheDir, kJson},
              bench_mesh_gpt},
             {"swarmx", "a data-parallel training step on 1, 2 and 4 emulated wafers: compute and SwarmX cycles, host time",
              nullptr, false, nullptr,
              {{"config", Value::Text, "model config (default models/gpt-nano.yaml)"},
               kSet, kMesh, kArchKey, kKernels,
               int_flag("t", 1, 65536, "tokens per sequence (default: the config's block_size)"),
               int_flag("reps", 1, 1000, "repetitions, best kept (default 2)"),
               kNoCache, kCacheDir, kJson},
              bench_swarmx},
             {"scale", "a kernel in one process and split by bands of rows over mpirun's ranks: times, bytes exchanged, memory a rank (docs/scale.md)",
              nullptr, false, nullptr,
              {{"kernel", Value::Text, "the kernel (default examples/published/stencil2d.wk, with K=256 and NG=1024: 65,536 PEs)"},
               {"mode", Value::Text, "fast (default) or cycle"},
               kConst, kJson},
              bench_scale},
             {"sparsity", "one gpt-nano matmul, a whole forward and a training step on the mesh at densities 1, 0.5, 0.25, 0.1: cycles and wavelets vs the ideal, and the loss after N steps",
              nullptr, false, nullptr,
              {{"config", Value::Text, "model config (default models/gpt-nano.yaml)"},
               kSet, kMesh, kArchKey, kKernels, kSparsityMask, kSparsitySeed,
               {"op", Value::Text, "the matmul to show on its own (default l0.fch)"},
               int_flag("steps", 1, 1000000, "training steps at each density, mask fixed (default 20)"),
               {"plot", Value::Text, "also write an SVG of cycles against density (one matmul, the forward, a training step) to this file"},
               {"mode", Value::Text, "cycle: every cycle, exact; fast: cycles estimated (default: the config's wafer.mode)", "cycle|fast"},
               kJson},
              bench_sparsity},
             {"compile", "the kernel compiler on every example, best of 5, against a 50 ms budget", nullptr, false,
              nullptr,
              {{"dir", Value::Text, "the kernels to compile (default examples)"},
               int_flag("reps", 1, 1000, "repetitions, best kept (default 5)"),
               kJson},
              bench_compile},
             {"published", "our kernels at the sizes of cycle counts published for the real machine: ours, theirs, the ratio (docs/fidelity.md)",
              nullptr, false, nullptr,
              {{"dir", Value::Text, "the kernels (default examples/published)"},
               {"arch", Value::Text, "run every row on this machine profile instead of its own (wse2 for figures 1, 2 and 5, wse3 for 3-4)",
                wl::machine_profile_choices()},
               {"markdown", Value::Switch, "docs/fidelity.md's table, and the reasons of the rows outside the band under it"},
               kJson},
              bench_published},
         }},
    };
    return verbs;
}

const std::vector<FlagRule>& flag_rules() {
    static const char* kOnMesh = "it sets up the mesh that --on-mesh runs on";
    static const char* kSparse = "it chooses how --sparsity prunes";
    static const char* kMagnitude = "the seed chooses a random mask; a magnitude mask (the default) keeps the largest weights";
    static const std::vector<FlagRule> rules = {
        {"train", "data", Rule::Conflicts, "corpus", "both name the training text"},
        {"train", "resume", Rule::Conflicts, "config", "a checkpoint carries its config (--set changes its keys)", config_vs_checkpoint},
        {"train", "wafers", Rule::Needs, "on-mesh", "the wafers are meshes"},
        {"train", "mesh", Rule::Needs, "on-mesh", kOnMesh},
        {"train", "arch", Rule::Needs, "on-mesh", kOnMesh},
        {"train", "execution", Rule::Needs, "on-mesh", kOnMesh},
        {"train", "mode", Rule::Needs, "on-mesh", kOnMesh},
        {"train", "kernels", Rule::Needs, "on-mesh", kOnMesh},
        {"train", "no-cache", Rule::Needs, "on-mesh", kOnMesh},
        {"train", "cache-dir", Rule::Needs, "on-mesh", kOnMesh},
        {"train", "sparsity-mask", Rule::Needs, "sparsity", kSparse},
        {"train", "sparsity-seed", Rule::Needs, "sparsity", kSparse},
        {"train", "sparsity-seed", Rule::Needs, "sparsity-mask=random", kMagnitude},
        {"generate", "checkpoint", Rule::Conflicts, "config", "a checkpoint carries its config (--set changes its keys)", config_vs_checkpoint},
        {"generate", "llmc", Rule::Conflicts, "checkpoint", "both name the weights"},
        {"generate", "top-k", Rule::Conflicts, "temperature=0", "temperature 0 is greedy: the top token, whatever --top-k"},
        {"generate", "seed", Rule::Conflicts, "temperature=0", "temperature 0 is greedy: no draw for a seed to choose"},
        {"generate", "mesh", Rule::Needs, "on-mesh", kOnMesh},
        {"generate", "arch", Rule::Needs, "on-mesh", kOnMesh},
        {"generate", "execution", Rule::Needs, "on-mesh", kOnMesh},
        {"generate", "kernels", Rule::Needs, "on-mesh", kOnMesh},
        {"generate", "no-cache", Rule::Needs, "on-mesh", kOnMesh},
        {"generate", "cache-dir", Rule::Needs, "on-mesh", kOnMesh},
        {"generate", "sparsity-mask", Rule::Needs, "sparsity", kSparse},
        {"generate", "sparsity-seed", Rule::Needs, "sparsity", kSparse},
        {"generate", "sparsity-seed", Rule::Needs, "sparsity-mask=random", kMagnitude},
        {"forward", "checkpoint", Rule::Conflicts, "config", "a checkpoint carries its config (--set changes its keys)", config_vs_checkpoint},
        {"forward", "sparsity-mask", Rule::Needs, "sparsity", kSparse},
        {"forward", "sparsity-seed", Rule::Needs, "sparsity", kSparse},
        {"forward", "sparsity-seed", Rule::Needs, "sparsity-mask=random", kMagnitude},
        {"compile-model", "sparsity-mask", Rule::Needs, "sparsity", kSparse},
        {"isa", "json", Rule::Conflicts, "format", "--format prints the Markdown page, --json the table"},
        {"bench published", "json", Rule::Conflicts, "markdown", "--markdown prints the table docs/fidelity.md holds, --json the rows"},
        {"bench gpt", "python", Rule::Conflicts, "no-torch", "--python names the PyTorch that --no-torch skips"},
        {"check", "json", Rule::Conflicts, "disasm", "--disasm prints the listing as text, --json the verdict"},
        {"compare", "kernels", Rule::Needs, "mode=infer", "a forward is what compare emulates on the mesh with them; a training step is modelled"},
        {"compare", "accum", Rule::Conflicts, "mode=infer", "gradient accumulation splits a training step's batch; a forward has none"},
        {"compile-model", "sparsity-seed", Rule::Needs, "sparsity", kSparse},
        {"compile-model", "sparsity-seed", Rule::Needs, "sparsity-mask=random", kMagnitude},
    };
    return rules;
}

const std::vector<KeysRead>& keys_read() {
    // A model from a config: its shape, the tokenizer (a char one is built from the corpus) and the weights' seed.
    static const char* kModel = "model.* train_input.tokenizer";
    static const char* kFromConfig = "train_input.corpus train_input.data train_input.corpus_chars train_input.addition_digits runconfig.seed";
    static const char* kPlan = "wafer.mesh wafer.arch wafer.execution wafer.schedule";   // what the model compiler reads (wafer.arch: its SRAM); wafer.mode is the run's
    static const std::vector<KeysRead> rows = {
        {"train", "model.* train_input.* optimizer.* runconfig.*"},
        {"train", "wafer.*", "on-mesh"},
        {"generate", kModel},
        {"generate", kFromConfig, "!checkpoint !llmc"},
        {"generate", kPlan, "on-mesh"},   // generation runs in fast mode
        {"compile-model", kModel},
        {"compile-model", kFromConfig},
        {"compile-model", kPlan},
        {"compile-model", "wafer.sequences_in_flight", "train"},   // a training plan's time pitch
        {"forward", kModel},
        {"forward", kFromConfig, "!checkpoint"},
        {"forward", "wafer.*"},
        {"compare", "model.*"},
        {"compare", "train_input.batch_size", "!batch"},
        {"compare", "optimizer.grad_accum_steps", "!accum !mode=infer"},
        // bench gpt trains on --data (or its own text) for --steps: the corpus keys and the run's length are its flags'.
        {"bench gpt", "model.* train_input.tokenizer train_input.batch_size train_input.val_fraction optimizer.* runconfig.seed"},
        {"bench mesh-gpt", kModel},
        {"bench mesh-gpt", kFromConfig},
        {"bench mesh-gpt", "wafer.*"},
        {"bench mesh-gpt", "train_input.batch_size optimizer.*", "train"},
        {"bench swarmx", kModel},
        {"bench swarmx", kFromConfig},
        {"bench swarmx", "wafer.* train_input.batch_size optimizer.*"},
    };
    return rows;
}

}  // namespace wlcli
