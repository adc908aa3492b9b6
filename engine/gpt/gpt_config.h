// gpt_config.h: the GPT's settings: model shape, training input, optimiser, run,
// and the wafer it runs on. Every default lives here, in the member initialisers.
//
// Files (models/*.yaml) are YAML params files laid out like Cerebras ModelZoo's:
//
//   model:       { n_layer: 3, n_head: 4, n_embd: 64, block_size: 64, vocab_size: 0 }
//   train_input: { batch_size: 8, corpus: stories, ... }
//   optimizer:   { optimizer_type: AdamW, learning_rate: 2e-3, grad_accum_steps: 1, ... }
//   runconfig:   { max_steps: 1500, eval_steps: 10, checkpoint_steps: 100, seed: 1337 }
//   wafer:       { mesh: 32x32, arch: default, mode: fast, execution: resident, schedule: sequential, sequences_in_flight: 1 }
//
// WL_CONFIG_KEYS below is the one table of keys: its path, the member it sets, its
// type and its help. The parser, its error messages, to_text(), --set and the key
// table in docs/configs.md (kept current by a test) all read it. Errors name
// file:line:col; an unknown key suggests the nearest known one.
#pragma once
#include "engine/core/parse_number.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wl {
struct MachineProfile;
}

namespace wl::gpt {

struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

constexpr int64_t kMaxSteps = 1'000'000'000;   // runconfig.max_steps and --steps at most; a checkpoint's step too

// How a planned model holds its weights (docs/weight-streaming.md): Resident, each layer's ops on
// their own PEs with their weights; Streaming, one layer's ops serve every layer, its weights
// streamed in over the mesh's edge (and, training, the gradients out).
enum class Execution : uint8_t { Resident, Streaming };
const char* execution_name(Execution e);                         // "resident", "streaming"
bool execution_from_name(const std::string& s, Execution* out);  // false for anything else

// X(section, key, member, type, range, help). type: Int, U64, Real, Text, Execution. range: what a number
// may be (NumberRange, engine/core/parse_number.h), checked as it is read; any() for text and seeds.
#define WL_CONFIG_KEYS(X) \
    X(model, n_layer, n_layer, Int, closed(1, 1024), "transformer blocks") \
    X(model, n_head, n_head, Int, closed(1, 1024), "attention heads per block") \
    X(model, n_embd, n_embd, Int, closed(1, 16384), "channels (a multiple of n_head)") \
    X(model, block_size, block_size, Int, closed(1, 65536), "context length: the longest sequence, and the one trained on") \
    X(model, vocab_size, vocab_size, Int, closed(0, 1000000), "0: from the tokenizer") \
    X(train_input, batch_size, batch_size, Int, closed(1, 65536), "sequences per micro-batch") \
    X(train_input, tokenizer, tokenizer, Text, any(), "char | bpe (GPT-2's files in WAFERLAB_BPE_DIR)") \
    X(train_input, corpus, corpus, Text, any(), "stories | addition | file") \
    X(train_input, data, data, Text, any(), "the text file when corpus is file") \
    X(train_input, val_fraction, val_fraction, Real, open(0, 1), "the last fraction of the text is validation") \
    X(train_input, corpus_chars, corpus_chars, Int, closed(1000, 100000000), "size of a generated corpus") \
    X(train_input, addition_digits, addition_digits, Int, closed(1, 9), "operand digits for the addition corpus") \
    X(optimizer, optimizer_type, optimizer_type, Text, any(), "AdamW (the only one)") \
    X(optimizer, learning_rate, learning_rate, Real, closed(0, 10), "peak learning rate, after the warmup") \
    X(optimizer, min_lr, min_lr, Real, closed(0, 10), "the cosine decay's end") \
    X(optimizer, warmup_steps, warmup_iters, Int, closed(0, 1000000000), "linear warmup from 0, in optimiser steps") \
    X(optimizer, decay_steps, lr_decay_iters, Int, closed(0, 1000000000), "cosine from learning_rate to min_lr by this step, then flat") \
    X(optimizer, weight_decay, weight_decay, Real, closed(0, 10), "on matrices and embeddings only (as nanoGPT)") \
    X(optimizer, beta1, beta1, Real, half_open(0, 1), "AdamW's first-moment decay") \
    X(optimizer, beta2, beta2, Real, half_open(0, 1), "AdamW's second-moment decay") \
    X(optimizer, eps, adam_eps, Real, open(0, 1), "AdamW's epsilon") \
    X(optimizer, max_gradient_norm, grad_clip, Real, closed(0, 1000000), "clip the global L2 norm to this; 0 disables") \
    X(optimizer, grad_accum_steps, grad_accum_steps, Int, closed(1, 65536), "micro-batches summed into each optimiser step") \
    X(runconfig, max_steps, max_iters, Int, closed(0, double(kMaxSteps)), "optimiser steps to train") \
    X(runconfig, eval_steps, eval_iters, Int, closed(1, 1000000), "batches per evaluation") \
    X(runconfig, checkpoint_steps, eval_interval, Int, closed(1, 1000000000), "evaluate and save a checkpoint every this many steps") \
    X(runconfig, seed, seed, U64, any(), "weights, batches and the generated corpus") \
    X(wafer, mesh, mesh, Text, any(), "WxH PEs the model compiler places the GPT on, each side 1..256") \
    X(wafer, arch, arch, Text, any(), "the machine profile (clock, SRAM per PE, SIMD lanes): default | wse2 | wse3 (docs/fidelity.md)") \
    X(wafer, mode, mode, Text, any(), "fast | cycle: how the mesh is emulated") \
    X(wafer, execution, execution, Execution, any(), "resident: weights stay in the PEs' SRAM; streaming: one layer's ops serve every layer, weights streamed in (and, training, gradients out)") \
    X(wafer, schedule, schedule, Text, any(), "pipelined: a resident model's ops (forward, and a training step's backward) work at once, each on its own chunk of the time steps; sequential: one op at a time (streaming execution is always sequential)") \
    X(wafer, sequences_in_flight, sequences_in_flight, Int, closed(1, 16), "a pipelined training step: how many of the batch's sequences go through the ops at once, each in time columns of its own on every op (more SRAM); 1: one after another")

struct GPTConfig {
    // model
    int n_layer = 4;
    int n_head = 4;
    int n_embd = 128;
    int block_size = 64;          // context length (max T)
    int vocab_size = 0;           // 0: taken from the tokenizer
    // train_input
    int batch_size = 12;
    std::string tokenizer = "char";   // char | bpe
    std::string corpus = "stories";   // stories | addition | file
    std::string data;                 // text file when corpus = file
    double val_fraction = 0.1;        // the last fraction of the text is validation
    int corpus_chars = 200000;        // size of a generated corpus
    int addition_digits = 3;          // operand digits for the addition corpus
    // optimizer: nanoGPT's shakespeare_char CPU settings
    std::string optimizer_type = "AdamW";
    double learning_rate = 1e-3;
    double min_lr = 1e-4;
    int warmup_iters = 100;
    int lr_decay_iters = 2000;    // cosine from learning_rate to min_lr, then flat
    double weight_decay = 0.1;    // on matrices and embeddings only (as nanoGPT)
    double beta1 = 0.9;
    double beta2 = 0.99;
    double adam_eps = 1e-8;
    double grad_clip = 1.0;       // global L2 norm; 0 disables
    int grad_accum_steps = 1;     // micro-batches of batch_size per optimiser step
    // runconfig
    int max_iters = 2000;
    int eval_iters = 20;
    int eval_interval = 250;
    uint64_t seed = 1337;
    // wafer
    std::string mesh = "32x32";
    std::string arch = "default";         // a machine profile's id (engine/fabric/wafer.h): its SRAM per PE is the planner's
    std::string mode = "fast";
    Execution execution = Execution::Resident;
    std::string schedule = "sequential";   // pipelined: fewer cycles, but a training step 5-6 times the host time (docs/configs.md)
    int sequences_in_flight = 1;           // a training plan's time pitch is this many block_sizes (mesh_plan.cpp)

    // Set one key ("optimizer.learning_rate") from text; throws ConfigError(where + message)
    // on an unknown key (with the nearest known one) or a value of the wrong type.
    void set(const std::string& path, const std::string& value, const std::string& where = "");
    // Range checks (n_embd % n_head, positive sizes, known names); throws ConfigError.
    void validate(const std::string& where = "") const;
    std::string to_text() const;   // every key, as a YAML params file that parse_config_text reads back
    static std::vector<std::string> keys();   // "model.n_layer", ... in table order
};

// A YAML params file. Errors: "name:line:col: message". Empty (no section) is every default, or,
// without empty_ok (a file a user names: load_config), an error.
GPTConfig parse_config_text(const std::string& text, const std::string& name = "<config>", bool empty_ok = true);
GPTConfig load_config(const std::string& path);   // throws ConfigError naming the path
// The flat `key = value` format (member names) that checkpoints written before the YAML
// params files embed; kept so they still load. Not for new files.
GPTConfig parse_flat_config_text(const std::string& text, const std::string& name = "<config>");
// Config keys to set, in order. From --set's text (parse_overrides), and from flags that stand for
// keys, whose values are taken whole (a --data path may hold a comma: it must not set a second key).
struct Override {
    std::string key, value;
};
using Overrides = std::vector<Override>;
// "key=value" overrides, one per line or separated by commas (--set); a piece without '=' is a ConfigError.
Overrides parse_overrides(const std::string& text, const std::string& where = "--set");
// Each through set(), then validate().
void apply_overrides(GPTConfig& cfg, const Overrides& overrides, const std::string& where = "--set");
void apply_overrides(GPTConfig& cfg, const std::string& overrides, const std::string& where = "--set");   // parse_overrides, then those
// Among `keys` (those one layer set: a file's, or the command line's), the first that c's corpus does
// not read, as "train_input.data: train_input.corpus is 'stories', which reads no file ...", or "".
std::string corpus_key_unread(const GPTConfig& c, const std::vector<std::string>& keys);

// wafer.arch's profile (validate() has refused an unknown one; this throws ConfigError on one too).
// The model compiler plans for its SRAM per PE; the GPT's vector ops are fp32, at its fp32 lanes.
const wl::MachineProfile& machine_profile_of(const GPTConfig& c);

// The keys on which two configs disagree, in table order, with each one's value as to_text()
// writes it. A vocab_size of 0 ("from the tokenizer") agrees with any.
struct ConfigDifference {
    std::string path, a, b;
};
std::vector<ConfigDifference> config_differences(const GPTConfig& a, const GPTConfig& b);

// The table for readers outside the parser (docs, the app): one row per key.
struct ConfigKeyInfo {
    std::string path;      // "optimizer.learning_rate"
    const char* type;      // "integer", "non-negative integer", "number", "text"
    std::string range;     // "1..1024", "(0, 1)"; "" where any value of the type goes
    std::string fallback;  // the default, as to_text() writes it
    const char* help;
};
const std::vector<ConfigKeyInfo>& config_key_table();
std::string config_keys_markdown();   // the table in docs/configs.md

}  // namespace wl::gpt
