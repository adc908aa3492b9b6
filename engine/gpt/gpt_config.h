// gpt_config.h: the GPT reference's settings: model shape, training schedule,
// data. Every default lives here, in the member initialisers below.
//
// Files (models/*.cfg) are plain text, one `key = value` per line, `#` starts a
// comment. Unknown keys and bad values are errors naming file:line. The same
// keys can be set from the CLI (`--set key=value`) and are stored in checkpoints.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wl::gpt {

struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct GPTConfig {
    // [model]
    int n_layer = 4;
    int n_head = 4;
    int n_embd = 128;
    int block_size = 64;          // context length (max T)
    int vocab_size = 0;           // 0: taken from the tokenizer
    // [training] nanoGPT's shakespeare_char CPU settings
    int batch_size = 12;
    int max_iters = 2000;
    double learning_rate = 1e-3;
    double min_lr = 1e-4;
    int warmup_iters = 100;
    int lr_decay_iters = 2000;    // cosine from learning_rate to min_lr, then flat
    double weight_decay = 0.1;    // on matrices and embeddings only (as nanoGPT)
    double beta1 = 0.9;
    double beta2 = 0.99;
    double adam_eps = 1e-8;
    double grad_clip = 1.0;       // global L2 norm; 0 disables
    int eval_interval = 250;
    int eval_iters = 20;
    uint64_t seed = 1337;
    // [data]
    std::string tokenizer = "char";   // char | bpe
    std::string corpus = "stories";   // stories | addition | file
    std::string data;                 // text file when corpus = file
    double val_fraction = 0.1;        // the last fraction of the text is validation
    int corpus_chars = 200000;        // size of a generated corpus
    int addition_digits = 3;          // operand digits for the addition corpus

    // Set one key from text; throws ConfigError(where + message) on a bad key/value.
    void set(const std::string& key, const std::string& value, const std::string& where = "");
    // Shape checks (n_embd % n_head, positive sizes, ...); throws ConfigError.
    void validate(const std::string& where = "") const;
    std::string to_text() const;   // every key, parseable by parse_config_text
    static std::vector<std::string> keys();
};

GPTConfig parse_config_text(const std::string& text, const std::string& name = "<config>");
GPTConfig load_config(const std::string& path);   // throws ConfigError naming the path

}  // namespace wl::gpt
