// trainer.cpp: see trainer.h.
#include "engine/gpt/trainer.h"

#include "engine/gpt/checkpoint.h"
#include "engine/gpt/tokenizer_char.h"

#include <sstream>


namespace wl::gpt {

static const GPTConfig& validated(const GPTConfig& c, bool training = false) {   // before its corpus is built, as ever
    c.validate("config");
    check_model_memory(c, training);   // and before a byte of it is allocated
    return c;
}

Trainer::Trainer(const GPTConfig& c, const std::string& bpe_dir) : Trainer(c, make_corpus(validated(c, true)), bpe_dir) {}

// The tokenizer (char: from the corpus's text; bpe: GPT-2's files), and cfg's vocab_size from it when 0.
static std::unique_ptr<Tokenizer> tokenizer_for(GPTConfig& cfg, const std::string& text, const std::string& bpe_dir) {
    std::unique_ptr<Tokenizer> t;
    if (cfg.tokenizer == "char") t = std::make_unique<CharTokenizer>(CharTokenizer::from_text(text));
    else t = make_tokenizer("bpe", "", bpe_dir);
    if (t->vocab_size() < 2)   // one token: every prediction is right, the loss is 0 and nothing is learnt
        throw ConfigError("the training text has " + std::to_string(t->vocab_size()) + " distinct character" + (t->vocab_size() == 1 ? "" : "s") +
                          " (train_input.tokenizer char): there is nothing to predict; train on a text with more than one");
    if (cfg.vocab_size == 0) cfg.vocab_size = t->vocab_size();
    if (cfg.vocab_size != t->vocab_size())
        throw ConfigError("model.vocab_size " + std::to_string(cfg.vocab_size) + " is not the tokenizer's " +
                          std::to_string(t->vocab_size()) + " (0 takes the tokenizer's)");
    return t;
}

InitialModel initial_model(const GPTConfig& c, const std::string& bpe_dir) {
    GPTConfig cfg = validated(c);
    InitialModel m;
    m.tokenizer = tokenizer_for(cfg, cfg.tokenizer == "char" ? make_corpus(cfg).text : std::string(), bpe_dir);
    m.model = std::make_unique<GPT>(cfg);
    m.model->init_weights(cfg.seed);
    return m;
}

Trainer::Trainer(const GPTConfig& c, Corpus text, const std::string& bpe_dir) : cfg(c) {
    cfg.validate("config");
    corpus = std::move(text);
    tokenizer = tokenizer_for(cfg, corpus.text, bpe_dir);
    check_model_memory(cfg, true);
    model = std::make_unique<GPT>(cfg);
    model->init_weights(cfg.seed);
    opt = AdamW(model->num_parameters);
    build_data();
}

// A split of the corpus, refused in the keys that size it when it is shorter than one sequence.
static std::unique_ptr<DataLoader> split_loader(std::vector<int> tokens, const GPTConfig& cfg, int split) {
    if (tokens.size() < size_t(cfg.block_size) + 1) {
        std::ostringstream m;
        m << (split ? "the validation split" : "the training split") << " (train_input.val_fraction " << cfg.val_fraction
          << (split ? " of the text" : ": the text but that") << ") is " << tokens.size() << " tokens, fewer than model.block_size + 1 = "
          << cfg.block_size + 1 << ": " << (split ? "raise train_input.val_fraction" : "lower train_input.val_fraction")
          << ", give a longer text, or shorten model.block_size";
        throw ConfigError(m.str());
    }
    return std::make_unique<DataLoader>(std::move(tokens), cfg.batch_size, cfg.block_size, cfg.seed, split);
}

void Trainer::build_data() {
    auto encode = [&](const std::string& text) {   // a resumed tokenizer may not know this text's bytes
        try {
            return tokenizer->encode(text);
        } catch (const std::exception& e) {
            throw ConfigError("the training text (train_input.corpus " + cfg.corpus + (cfg.corpus == "file" ? ", train_input.data " + cfg.data : "") +
                              "): " + e.what());
        }
    };
    train_data = split_loader(encode(corpus.train()), cfg, 0);
    val_data = split_loader(encode(corpus.val()), cfg, 1);
    inputs_.resize(size_t(cfg.grad_accum_steps) * cfg.batch_size * cfg.block_size);
    targets_.resize(inputs_.size());
}

std::unique_ptr<Trainer> Trainer::resume(const std::string& path, const Overrides& overrides,
                                         const std::string& bpe_dir) {
    Checkpoint ck = load_checkpoint(path);
    std::unique_ptr<Trainer> t(new Trainer());
    apply_checkpoint_overrides(ck, overrides, "override", path);
    t->cfg = ck.cfg;
    t->cfg.validate("resumed config");
    check_model_memory(t->cfg, true);
    t->corpus = make_corpus(t->cfg);
    t->tokenizer = checkpoint_tokenizer(ck, path, bpe_dir);
    t->model = model_from_checkpoint(ck, &t->opt);
    t->step = ck.step;
    t->build_data();
    return t;
}

void Trainer::step_batches(int64_t s, int* inputs, int* targets) const {
    const size_t n = size_t(cfg.batch_size) * cfg.block_size;
    for (int k = 0; k < cfg.grad_accum_steps; k++)
        train_data->batch(s * cfg.grad_accum_steps + k, inputs + k * n, targets + k * n);
}

float Trainer::train_step() {
    // grad_accum_steps micro-batches, their gradients summed, then one update.
    const int N = cfg.grad_accum_steps;
    const size_t n = size_t(cfg.batch_size) * cfg.block_size;
    step_batches(step, inputs_.data(), targets_.data());
    model->zero_grad();
    double loss = 0;
    for (int k = 0; k < N; k++) {
        model->forward(inputs_.data() + k * n, targets_.data() + k * n, cfg.batch_size, cfg.block_size);
        model->backward(N);
        loss += model->mean_loss;
    }
    last_grad_norm = opt.step(*model, learning_rate_at(cfg, step), cfg);
    step += 1;
    return N == 1 ? model->mean_loss : float(loss / N);
}

void Trainer::eval_batch(Split split, int k, int* inputs, int* targets) const {
    // negative indexes: never a training batch (one micro-batch)
    (split == Split::Val ? *val_data : *train_data).batch(-1 - k, inputs, targets);
}

float Trainer::eval_loss(Split split, const BatchLoss& batch_loss) {
    double sum = 0;
    for (int k = 0; k < cfg.eval_iters; k++) {
        eval_batch(split, k, inputs_.data(), targets_.data());
        sum += batch_loss(inputs_.data(), targets_.data(), cfg.batch_size, cfg.block_size);
    }
    return float(sum / cfg.eval_iters);
}

float Trainer::eval_loss(Split split) {
    return eval_loss(split, [this](const int* in, const int* tg, int B, int T) {
        model->forward(in, tg, B, T);
        return model->mean_loss;
    });
}

void Trainer::save(const std::string& path) const {
    save_checkpoint(path, *model, &opt, step, tokenizer->kind(), tokenizer->state());
}

}  // namespace wl::gpt
