// checkpoint.h: save/resume training state, and import GPT-2 weights in llm.c's layout.
//
// Our format (little-endian; docs/gpt-reference.md has the table):
//   "WLGPTCKP"  u32 version (1)  u64 payload bytes
//   payload: u32 len + config text (gpt_config to_text) | u32 len + tokenizer kind |
//            u32 len + tokenizer state (char: the vocabulary; bpe: its fingerprint) | i64 step | i64 adam t | u64 P | u8 has_optimizer |
//            f32 params[P] | (has_optimizer) f32 m[P], f32 v[P]
//   u64 FNV-1a 64 of the payload
// A resumed run continues bit-identically: params, Adam moments, the step count
// and the config are everything the training loop reads (batches derive from
// (seed, step)). A short, long or corrupt file is an error naming the path.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/gpt/gpt_config.h"

namespace wl::gpt {

class GPT;
class Tokenizer;
struct AdamW;

struct CheckpointError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Checkpoint {
    GPTConfig cfg;
    std::string tokenizer_kind, tokenizer_state;
    int64_t step = 0;   // optimizer steps done
    int64_t adam_t = 0;
    std::vector<float> params, m, v;   // m, v empty when saved without the optimizer
};

// What a checkpoint holds, read where it lies (a model's params_memory and an AdamW's moments, or
// a weight store's arrays): the weights and, unless m is empty, the moments and AdamW's step.
struct CheckpointState {
    std::span<const float> params, m, v;
    int64_t adam_t = 0;
};

void save_checkpoint(const std::string& path, const GPT& model, const AdamW* opt, int64_t step,
                     const std::string& tokenizer_kind, const std::string& tokenizer_state);
// The same file from a config and the state as it lies (GPT-small's 1.5 GB written, never copied).
void save_checkpoint(const std::string& path, const GPTConfig& cfg, const CheckpointState& state, int64_t step,
                     const std::string& tokenizer_kind, const std::string& tokenizer_state);
// The file's bytes, as save_checkpoint writes them (the app's browser download).
std::string checkpoint_bytes(const GPT& model, const AdamW* opt, int64_t step, const std::string& tokenizer_kind,
                             const std::string& tokenizer_state);
Checkpoint load_checkpoint(const std::string& path);   // throws CheckpointError
Checkpoint parse_checkpoint(const std::string& bytes, const std::string& path);   // the file's bytes; `path` for messages
std::string checkpoint_envelope(const std::string& payload);   // magic, version, size, payload, checksum

// The tokenizer a checkpoint's weights were trained with (GPT-2's BPE files from bpe_dir, empty:
// default_bpe_dir()): refused, naming `path`, when its files are not the vocabulary the checkpoint
// records (tokenizer_bpe.h's fingerprint) or its size is not the model's.
std::unique_ptr<Tokenizer> checkpoint_tokenizer(const Checkpoint& ck, const std::string& path, const std::string& bpe_dir = "");

// Builds a model (and restores the optimizer if given and saved) from a checkpoint.
std::unique_ptr<GPT> model_from_checkpoint(const Checkpoint& ck, AdamW* opt = nullptr);

// ck.cfg with `overrides` (key=value,...) applied, as --set: any key but those the weights fix
// (the model's shape, model.*, and train_input.tokenizer); changing one of those is a ConfigError
// naming the key, both values and `path`, so a checkpoint never runs as a model of another shape.
void apply_checkpoint_overrides(Checkpoint& ck, const Overrides& overrides, const std::string& where, const std::string& path);

// llm.c's gpt2_124M.bin: int32 header[256] (magic 20240326, version 1 or 3, maxT, V, L, NH, C,
// and Vp for version 3), then fp32 parameters in ParameterTensors order with wte as (Vp, C).
// The padding rows Vp - V are dropped. Training settings take the defaults. Throws CheckpointError.
std::unique_ptr<GPT> import_llmc(const std::string& path);
std::unique_ptr<GPT> parse_llmc(std::string_view bytes, const std::string& path);   // the file's bytes
bool is_llmc_file(const std::string& path);   // it opens with llm.c's magic (a weights file, not a checkpoint of ours)

// What llm.c's header (the file's first 1,024 bytes) says, checked as parse_llmc checks it, so a
// reader that has only the header (the browser's file picker, before it reads 500 MB) refuses a
// bad file with the same words. Throws CheckpointError naming `path`.
struct LlmcHeader {
    GPTConfig cfg;               // the weights' shape; block_size their positions; tokenizer bpe
    int padded_vocab = 0;        // Vp: wte's rows in the file (V for version 1)
    uint64_t file_bytes = 0;     // the whole file's size this header implies: 1,024 + 4 per float, padding rows included
};
LlmcHeader parse_llmc_header(std::string_view head, const std::string& path);
void check_llmc_size(const LlmcHeader& h, uint64_t bytes, const std::string& path);   // the file's size is the header's

// llm.c's weights at `path` as a model of a config: `configure` gets the weights' own config to
// change (a config file's keys, --set); its shape and tokenizer must stay the weights' and its
// context may be shorter (with_context, whose std::invalid_argument names the keys); a vocab_size
// of 0 is the weights'. The tokenizer is GPT-2's BPE from bpe_dir (empty: default_bpe_dir()).
struct LlmcModel {
    std::unique_ptr<GPT> model;
    std::unique_ptr<Tokenizer> tokenizer;
    std::string source;   // "llm.c weights PATH (the first 64 of its 1024 positions)"
};
LlmcModel llmc_model(const std::string& path, const std::function<void(GPTConfig*)>& configure, const std::string& bpe_dir = "");
// The same from the file's bytes, where there is no file (the browser's file picker): `name` in
// messages and the source. The bytes go as soon as the full model holds them, so the most held at
// once is the bytes and the model, then the model and its shorter-context copy, never all three.
LlmcModel llmc_model_from_bytes(std::string bytes, const std::string& name, const std::function<void(GPTConfig*)>& configure,
                                const std::string& bpe_dir = "");

// The same model with a shorter context: cfg's block_size (at most the model's) positions of wpe,
// the first ones, and every other weight as it is. For T up to that context it computes exactly
// what the model computes (a mesh planned for a shorter context runs GPT-2's real weights). cfg's
// shape (layers, heads, channels, vocabulary) and tokenizer must be the model's; its other keys (the wafer's,
// training's) are taken. Throws std::invalid_argument naming the keys that differ.
std::unique_ptr<GPT> with_context(const GPT& model, GPTConfig cfg);
// with_context's check alone, on the weights' config (a header's, before the weights are read):
// cfg as with_context takes it (a vocab_size of 0 becomes the weights'), or its std::invalid_argument.
GPTConfig context_config(const GPTConfig& weights, GPTConfig cfg);

}  // namespace wl::gpt
