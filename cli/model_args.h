// model_args.h: what the GPT verbs share: the config (--config FILE.yaml with --set
// key=value overrides), the model (--checkpoint, or --config with its seeded initial
// weights), its tokenizer, and the plan for the config's wafer.mesh (--mesh WxH
// overrides it) from the kernels in --kernels (kernels_dir), through the compile
// cache (--no-cache, --cache-dir).
#pragma once
#include "cli/args.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/tokenizer.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/plan_cache.h"
#include "engine/model/sparsity.h"
#include "engine/fabric/machine.h"
#include "engine/fabric/mesh.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace wlcli {

struct LoadedModel {
    std::unique_ptr<wl::gpt::GPT> model;
    std::unique_ptr<wl::gpt::Tokenizer> tokenizer;
    std::string source;   // "checkpoint F (step N)" or "config F, initial weights (seed S)"
};

// --config's params file, then --set's overrides ("optimizer.learning_rate=1e-3,train_input.batch_size=4")
// and --mesh/--mode/--execution (wafer.mesh, wafer.mode, wafer.execution) where the verb has them. Throws ConfigError, placed.
wl::gpt::GPTConfig config_from(const Args& args);
// --set, --mesh, --mode and --execution onto a config that came from elsewhere (a checkpoint).
// --set's keys, then those the verb's flags stand for (flag_keys(): train --data, --steps, --mesh ...),
// each flag's value whole.
wl::gpt::Overrides cli_overrides(const Args& args);
void apply_cli_overrides(const Args& args, wl::gpt::GPTConfig* cfg);
wl::RunMode run_mode_of(const wl::gpt::GPTConfig& cfg);   // wafer.mode
// The config a training run on the mesh compiles: a model whose weights fit no row of PEs resident
// (GPT-2's vocabulary) trains streamed, where wte is the store's (docs/weight-streaming.md, "The
// vocabulary"), unless the command line chose wafer.execution (--execution or --set). Says so on
// `note` (nullptr: silent).
wl::gpt::GPTConfig mesh_training_config(const Args& args, const wl::gpt::GPTConfig& cfg, std::FILE* note);

LoadedModel load_model(const Args& args);             // throws with a message naming the flag
// --prompt (or `dflt`) as token ids; a prompt the tokenizer cannot read, or one of no tokens,
// throws naming --prompt.
std::vector<int> prompt_ids(const Args& args, const wl::gpt::Tokenizer& tok, const std::string& dflt);
// --bpe-dir with a model whose tokenizer reads no BPE files (the char one) is an error, not ignored.
void require_bpe_tokenizer_for_bpe_dir(const Args& args, const wl::gpt::Tokenizer& tok);
// train: with the backward's and AdamW's arrays (plan_model's train). Throws the planner's error.
// Through the compile cache (compile once, run many: engine/model/plan_cache.h), kept on disk in
// --cache-dir (default PlanStore::default_dir()) between runs; --no-cache compiles anyway.
// *info: whether it was cached, the time, and why it compiled.
// --kernels, else the kernels/ folder beside --config (models/kernels for models/*.yaml, from any
// working directory), else models/kernels. Throws, naming the folder, when it is not there.
std::string kernels_dir(const Args& args);
// --mesh WxH, else the config's wafer.mesh. Throws on a malformed one.
wl::Mesh mesh_of(const Args& args, const wl::gpt::GPTConfig& cfg);
// sparse: a model pruned by prune_from (its weights decide the sparse matmuls' sizes), planned
// with SPARSE = 1 there; such a plan depends on the weights, so it is compiled, not cached.
wl::model::MeshPlan plan_for(const Args& args, const wl::gpt::GPTConfig& cfg, bool train, wl::model::CompileInfo* info,
                             const wl::gpt::GPT* sparse = nullptr);

// --sparsity S (0..0.95), --sparsity-mask magnitude|random, --sparsity-seed N (default the model's
// seed): prunes the model's linear weights in place (engine/model/sparsity.h). False, and nothing
// done, without --sparsity or with S = 0. Throws outside 0..0.95.
bool prune_from(const Args& args, wl::gpt::GPT* model, wl::model::PruneStats* stats);
// For the rule that --config and a checkpoint (--checkpoint, --resume) cannot both apply: which
// keys the two disagree on, as " (they differ in model.n_layer: 2 in the config, 4 in the
// checkpoint; ...)", or "" when either cannot be read (the verb would say why).
std::string config_vs_checkpoint(const Args& args);

// "compiled: cached (0.4 ms)" or "compiled in 85 ms (first compile)" on `out`; a cache folder
// that could not be written, as a warning on stderr.
void print_compile(const wl::model::CompileInfo& info, std::FILE* out);

}  // namespace wlcli
