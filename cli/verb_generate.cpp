// verb_generate.cpp: `waferlab-cli generate` — sample text from a trained checkpoint,
// or from GPT-2 weights in llm.c's layout (--llmc gpt2_124M.bin, GPT-2's BPE tokenizer).
//   waferlab-cli generate --checkpoint F --prompt TEXT [--tokens N] [--temperature T] [--top-k K]
//                         [--seed S] [--threads N] [--bpe-dir DIR] [--json]
#include "cli/verbs.h"

#include "engine/gpt/checkpoint.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/parallel.h"
#include "engine/gpt/sampler.h"
#include "engine/gpt/tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

namespace wlcli {

int verb_generate(const Args& args) {
    using namespace wl::gpt;
    if (args.has("checkpoint") == args.has("llmc"))
        throw std::runtime_error("generate needs one of --checkpoint FILE or --llmc gpt2_124M.bin");
    set_num_threads(int(args.get_int("threads", 0)));
    std::unique_ptr<GPT> model;
    std::unique_ptr<Tokenizer> tok;
    if (args.has("llmc")) {
        model = import_llmc(args.get("llmc"));
        tok = make_tokenizer("bpe", "", args.get("bpe-dir"));
    } else {
        Checkpoint ck = load_checkpoint(args.get("checkpoint"));
        tok = make_tokenizer(ck.tokenizer_kind, ck.tokenizer_state, args.get("bpe-dir"));
        model = model_from_checkpoint(ck);
    }
    SampleOptions opt;
    opt.temperature = float(args.get_double("temperature", 1.0));
    opt.top_k = int(args.get_int("top-k", 0));
    opt.seed = uint64_t(args.get_int("seed", 1337));
    int n = int(args.get_int("tokens", 200));
    if (n < 0) throw std::runtime_error("--tokens must be >= 0");
    std::string prompt = args.get("prompt", "\n");
    if (prompt.empty()) throw std::runtime_error("--prompt must not be empty");
    std::vector<int> ids = tok->encode(prompt);
    if (ids.empty()) throw std::runtime_error("the prompt encodes to no tokens");
    const bool json = args.has("json");
    if (!json) {
        std::fwrite(prompt.data(), 1, prompt.size(), stdout);
        std::fflush(stdout);
    }
    auto all = generate(*model, ids, n, opt, [&](int t) {
        if (json) return;
        std::string s = tok->decode({t});
        std::fwrite(s.data(), 1, s.size(), stdout);
        std::fflush(stdout);
    });
    std::string text = tok->decode(std::vector<int>(all.begin() + long(ids.size()), all.end()));
    if (json) {
        nlohmann::json j = {{"prompt", prompt}, {"text", text}, {"tokens", n}};
        std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else {
        std::printf("\n");
    }
    return 0;
}

}  // namespace wlcli
