// verb_generate.cpp: `waferlab-cli generate` — sample text from a trained checkpoint, from
// GPT-2 weights in llm.c's layout (--llmc gpt2_124M.bin, GPT-2's BPE tokenizer; with --config of
// its shape, that config's context and wafer), or from a config's seeded initial weights.
//   waferlab-cli generate --checkpoint F | --llmc F [--config F] | --config F [--set K=V]
//                         --prompt TEXT [--tokens N] [--temperature T] [--top-k K]
//                         [--seed S] [--threads N] [--bpe-dir DIR] [--json]
//                         [--on-mesh [--mesh WxH] [--kernels DIR]]   every forward on the emulated mesh
//                         [--sparsity S [--sparsity-mask magnitude|random]]   prune the linear layers first
#include "cli/model_args.h"
#include "cli/verbs.h"

#include "engine/core/json_text.h"
#include "engine/gpt/checkpoint.h"
#include "engine/gpt/gpt.h"
#include "engine/gpt/parallel.h"
#include "engine/gpt/sampler.h"
#include "engine/gpt/tokenizer.h"
#include "engine/model/mesh_gpt.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <memory>

namespace wlcli {

int verb_generate(const Args& args) {
    using namespace wl::gpt;
    if (!args.has("checkpoint") && !args.has("llmc") && !args.has("config"))
        throw std::runtime_error("generate needs --checkpoint FILE, --llmc gpt2_124M.bin or --config FILE.yaml (its seeded initial weights)");
    set_num_threads(int(args.get_int("threads", 0)));
    LoadedModel loaded = load_model(args);   // --set, --mesh, --execution applied
    std::unique_ptr<GPT>& model = loaded.model;
    std::unique_ptr<Tokenizer>& tok = loaded.tokenizer;
    wl::model::PruneStats pruned;
    const bool sparse = prune_from(args, model.get(), &pruned);   // the mesh's and the reference's weights alike
    if (sparse && !args.has("json"))
        std::fprintf(stderr, "pruned (--sparsity %s): %zu of %zu linear-layer weights kept (density %.3f)\n",
                     args.get("sparsity").c_str(), pruned.kept, pruned.weights, pruned.density());
    SampleOptions opt;
    opt.temperature = float(args.get_double("temperature", 1.0));
    opt.top_k = int(args.get_int("top-k", 0));
    opt.seed = uint64_t(args.get_int("seed", 1337));
    int n = int(args.get_int("tokens", 200));
    if (n < 0) throw std::runtime_error("--tokens must be >= 0");
    const std::string prompt = args.get("prompt", "\n");
    std::vector<int> ids = prompt_ids(args, *tok, "\n");
    const bool json = args.has("json");
    // Planned (or read from the compile cache) before the prompt is echoed, so the compile line
    // on stderr does not land inside the text.
    std::unique_ptr<wl::model::MeshGPT> mesh;
    wl::model::CompileInfo compile_info;
    if (args.has("on-mesh")) {
        mesh = std::make_unique<wl::model::MeshGPT>(plan_for(args, model->cfg, false, &compile_info, sparse ? model.get() : nullptr), *model);
        if (!json) print_compile(compile_info, stderr);
    }
    const int V = model->V, maxT = model->maxT;
    if (int(ids.size()) > maxT && !json)   // as forward says: the model sees one context
        std::fprintf(stderr, "waferlab-cli generate: the prompt is %zu tokens; each step sees the last %d (model.block_size)\n", ids.size(), maxT);
    if (mesh) model.reset();   // the weights are in the mesh's SRAM now: GPT-2 small's 500 MB go back
    if (!json) {
        std::fwrite(prompt.data(), 1, prompt.size(), stdout);
        std::fflush(stdout);
    }
    auto show = [&](int t) {
        if (json) return;
        std::string s = tok->decode({t});
        std::fwrite(s.data(), 1, s.size(), stdout);
        std::fflush(stdout);
    };
    const auto start = std::chrono::steady_clock::now();
    std::vector<int> all;
    uint64_t cycles = 0;
    // The prompt's forward (which gives the first token) apart from the tokens after it, each a
    // step from the KV cache: their time per token is the generation speed.
    struct Part {
        int calls = 0;
        double seconds = 0;
        uint64_t cycles = 0;
    } prompt_part, step_part;
    auto forward_on_mesh = [&](const int* ctx, int T) {
        const auto t0 = std::chrono::steady_clock::now();
        const float* l = mesh->next_logits(ctx, T);
        Part& p = prompt_part.calls ? step_part : prompt_part;
        p.calls++;
        p.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        p.cycles += mesh->last_cycles();
        cycles += mesh->last_cycles();
        return l;
    };
    try {   // a failure while generating names the weights it came from (a checkpoint whose forward overflows)
        if (mesh) all = generate(forward_on_mesh, V, maxT, ids, n, opt, show);
        else all = generate(*model, ids, n, opt, show);
    } catch (const std::exception& e) {
        throw std::runtime_error(loaded.source + ": " + e.what());
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string text = tok->decode(std::vector<int>(all.begin() + long(ids.size()), all.end()));
    if (json) {
        nlohmann::json j = {{"prompt", prompt}, {"text", text}, {"tokens", n}, {"wall_s", wall}};
        if (mesh) {
            j["on_mesh"] = true;
            j["cycles"] = cycles;
            j["cycles_per_token"] = n ? double(cycles) / n : 0.0;
            j["wafer_s"] = double(cycles) / wl::kClockHz;
            j["clock_hz"] = wl::kClockHz;
            j["compile"] = wl::model::to_json(compile_info);
            j["prompt_tokens"] = ids.size();
            j["prompt_s"] = prompt_part.seconds;
            j["prompt_cycles"] = prompt_part.cycles;
            if (step_part.calls) {
                j["wall_s_per_token"] = step_part.seconds / step_part.calls;
                j["tokens_per_s"] = step_part.calls / step_part.seconds;
                j["cycles_per_step"] = double(step_part.cycles) / step_part.calls;
                j["wafer_tokens_per_s"] = wl::kClockHz * step_part.calls / double(step_part.cycles);
            }
        }
        if (sparse) j["density"] = pruned.density();
        std::printf("%s\n", wl::json_text(j).c_str());
    } else {
        std::printf("\n");
        std::fflush(stdout);   // the text's end before stderr's summary
        if (mesh && n > 0) {
            std::fprintf(stderr, "on the mesh: %d tokens, %.0f emulated cycles per token (estimated) = %.2f us per token at %.2f GHz; wall %.2f s\n",
                         n, double(cycles) / n, double(cycles) / n / wl::kClockHz * 1e6, wl::kClockHz / 1e9, wall);
            std::fprintf(stderr, "  the prompt (%zu tokens): %.2f s wall, %llu cycles", ids.size(), prompt_part.seconds,
                         (unsigned long long)prompt_part.cycles);
            if (step_part.calls)
                std::fprintf(stderr, "; then from the KV cache: %.3f s wall a token (%.2f tokens/s), %.0f cycles a token (%.0f tokens/s on the wafer)",
                             step_part.seconds / step_part.calls, step_part.calls / step_part.seconds,
                             double(step_part.cycles) / step_part.calls, wl::kClockHz * step_part.calls / double(step_part.cycles));
            std::fprintf(stderr, "\n");
        }
    }
    return 0;
}

}  // namespace wlcli
