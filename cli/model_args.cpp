// model_args.cpp: see model_args.h.
#include "cli/model_args.h"
#include "cli/verbs.h"

#include "engine/gpt/checkpoint.h"
#include "engine/gpt/trainer.h"
#include "engine/gpu/wafer_estimate.h"
#include "engine/fabric/mesh.h"
#include "engine/model/fit_advice.h"
#include "engine/model/plan_store.h"

#include <chrono>
#include <filesystem>
#include <stdexcept>

namespace wlcli {

wl::gpt::Overrides cli_overrides(const Args& args) {
    wl::gpt::Overrides o = wl::gpt::parse_overrides(args.get("set"), "command line");
    // The flags' values whole, after --set's (a flag and --set of its key are refused: flag_keys()).
    for (const FlagKeys& f : flag_keys()) {
        if (!args.has(f.flag) || std::string(f.verb) != args.verb) continue;
        if (f.also) {
            const std::string also = f.also;
            o.push_back({also.substr(0, also.find('=')), also.substr(also.find('=') + 1)});
        }
        o.push_back({f.key, args.get(f.flag)});
    }
    return o;
}

void apply_cli_overrides(const Args& args, wl::gpt::GPTConfig* cfg) { wl::gpt::apply_overrides(*cfg, cli_overrides(args), "command line"); }

wl::gpt::GPTConfig config_from(const Args& args) {
    wl::gpt::GPTConfig cfg = wl::gpt::load_config(args.get("config"));
    apply_cli_overrides(args, &cfg);
    return cfg;
}

wl::RunMode run_mode_of(const wl::gpt::GPTConfig& cfg) {
    wl::RunMode mode = wl::RunMode::Fast;
    if (!wl::run_mode_from_name(cfg.mode, &mode)) throw std::runtime_error("wafer.mode expects cycle or fast");
    return mode;
}

wl::gpt::GPTConfig mesh_training_config(const Args& args, const wl::gpt::GPTConfig& cfg, std::FILE* note) {
    for (const wl::gpt::Override& o : cli_overrides(args))
        if (o.key == "wafer.execution") return cfg;
    const auto o = wl::model::trains_only_streamed(cfg, wl::gpt::machine_profile_of(cfg).sram_bytes_per_pe);
    if (!o) return cfg;
    wl::gpt::GPTConfig out = cfg;
    out.execution = wl::gpt::Execution::Streaming;
    if (note) std::fprintf(note, "weights streamed (wafer.execution: streaming): %s's weights fit no row of PEs resident\n", o->op.c_str());
    return out;
}

LoadedModel load_model(const Args& args) {
    using namespace wl::gpt;
    LoadedModel m;
    if (args.has("llmc")) {   // GPT-2's weights; --config (its shape) may shorten the context and set the wafer
        try {
            LlmcModel w = llmc_model(args.get("llmc"), [&](GPTConfig* cfg) {   // --config, else the weights' own, with --set
                if (args.has("config")) *cfg = config_from(args);
                else apply_cli_overrides(args, cfg);
            }, args.get("bpe-dir"));
            m.model = std::move(w.model), m.tokenizer = std::move(w.tokenizer), m.source = std::move(w.source);
        } catch (const std::invalid_argument& e) {   // the config's shape is not the weights'
            throw std::runtime_error((args.has("config") ? "--config " + args.get("config") + " and " : std::string("--set and ")) + "--llmc " +
                                     args.get("llmc") + ": " + e.what());
        }
        return m;
    }
    if (args.has("checkpoint")) {
        Checkpoint ck = load_checkpoint(args.get("checkpoint"));
        m.tokenizer = checkpoint_tokenizer(ck, args.get("checkpoint"), args.get("bpe-dir"));
        apply_checkpoint_overrides(ck, cli_overrides(args), "command line", args.get("checkpoint"));
        m.model = model_from_checkpoint(ck);
        m.source = "checkpoint " + args.get("checkpoint") + " (step " + std::to_string(ck.step) + ")";
        require_bpe_tokenizer_for_bpe_dir(args, *m.tokenizer);
        return m;
    }
    if (!args.has("config")) throw std::runtime_error("needs --config FILE (e.g. models/gpt-nano.yaml) or --checkpoint FILE");
    InitialModel init = initial_model(config_from(args), args.get("bpe-dir"));
    m.tokenizer = std::move(init.tokenizer);
    m.model = std::move(init.model);
    m.source = "config " + args.get("config") + ", initial weights (seed " + std::to_string(m.model->cfg.seed) + ")";
    require_bpe_tokenizer_for_bpe_dir(args, *m.tokenizer);
    return m;
}

void require_bpe_tokenizer_for_bpe_dir(const Args& args, const wl::gpt::Tokenizer& tok) {
    if (args.has("bpe-dir") && tok.kind() != "bpe")
        throw std::runtime_error("--bpe-dir " + args.get("bpe-dir") + " names GPT-2's BPE files, but this model's tokenizer is " + tok.kind() +
                                 " (train_input.tokenizer): it reads none");
}

std::vector<int> prompt_ids(const Args& args, const wl::gpt::Tokenizer& tok, const std::string& dflt) {
    const std::string prompt = args.get("prompt", dflt);
    if (prompt.empty()) throw std::runtime_error("--prompt must not be empty");
    std::vector<int> ids;
    try {
        ids = tok.encode(prompt);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("--prompt: ") + e.what());
    }
    if (ids.empty()) throw std::runtime_error("--prompt encodes to no tokens");
    return ids;
}

std::string kernels_dir(const Args& args) {
    namespace fs = std::filesystem;
    std::string dir = "models/kernels";
    if (args.has("kernels")) dir = args.get("kernels");
    else if (args.has("config") && fs::is_directory(fs::path(args.get("config")).parent_path() / "kernels"))
        dir = (fs::path(args.get("config")).parent_path() / "kernels").string();
    if (!fs::is_directory(dir))
        throw std::runtime_error("the kernel folder " + dir + (fs::exists(dir) ? " is a file, not a folder" : " is not there") +
                                 " (--kernels DIR names it; by default it is " +
                                 "the kernels/ folder beside --config, else models/kernels from the repository's root)");
    return dir;
}

wl::Mesh mesh_of(const Args& args, const wl::gpt::GPTConfig& cfg) {
    wl::Mesh m;
    const std::string mesh = args.has("mesh") ? args.get("mesh") : cfg.mesh;
    if (!wl::parse_mesh(mesh, &m)) throw std::runtime_error((args.has("mesh") ? "--mesh " : "wafer.mesh ") + wl::mesh_error(mesh));
    return m;
}

static std::string plan_error(const wl::model::PlanResult& r, const std::string& kernels) {
    // A kernel's file:line:col names the file in its folder: say which folder (the model's size needs none).
    return "compile-model: " + (r.too_big ? "" : "kernels from " + kernels + ": ") + r.error;
}

wl::model::MeshPlan plan_for(const Args& args, const wl::gpt::GPTConfig& cfg, bool train, wl::model::CompileInfo* info,
                             const wl::gpt::GPT* sparse) {
    const wl::Mesh m = mesh_of(args, cfg);
    const std::string dir = kernels_dir(args);
    if (sparse) {
        const auto t0 = std::chrono::steady_clock::now();
        wl::model::PlanBuilder b(cfg, m.w, m.h, wl::model::read_kernels(dir), wl::gpt::machine_profile_of(cfg).sram_bytes_per_pe, train);
        b.set_sparse(wl::model::sparse_nonzeros(*sparse));
        wl::model::PlanResult r = b.take();
        if (!r.ok) throw std::runtime_error(plan_error(r, dir));
        *info = {};
        info->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        info->reason = "sparse weights: sized for these non-zeros, not cached";
        return std::move(r.plan);
    }
    wl::model::PlanCache cache;
    if (args.has("cache-dir") && args.get("cache-dir").empty())   // "" would be the default folder, silently
        throw std::runtime_error("--cache-dir is empty: it names the compile cache's folder (leave it out for the default)");
    const std::string cache_dir = args.has("cache-dir") ? args.get("cache-dir") : wl::model::PlanStore::default_dir();
    cache.set_dir(cache_dir);
    wl::model::PlanResult r = cache.plan(cfg, m.w, m.h, wl::model::read_kernels(dir), wl::gpt::machine_profile_of(cfg).sram_bytes_per_pe, train,
                                         args.has("no-cache"), info);
    if (!r.ok) throw std::runtime_error(plan_error(r, dir));
    if (cache_dir.empty() && info && !info->cached)   // no folder to keep it in: said, not silently compiled again next time
        info->reason += "; not kept: no cache folder (set WAFERLAB_CACHE_DIR, XDG_CACHE_HOME or HOME, or give --cache-dir)";
    return std::move(r.plan);
}

bool prune_from(const Args& args, wl::gpt::GPT* model, wl::model::PruneStats* stats) {
    const double s = args.get_double("sparsity", 0);
    if (!(s >= 0 && s <= wl::model::kMaxSparsity))
        throw std::runtime_error("--sparsity expects a fraction of the weights to zero, 0..0.95 (got " + args.get("sparsity") + ")");
    wl::model::MaskKind kind = wl::model::MaskKind::Magnitude;
    if (args.has("sparsity-mask") && !wl::model::mask_kind_from_name(args.get("sparsity-mask"), &kind))
        throw std::runtime_error("--sparsity-mask expects magnitude or random");
    if (s == 0) return false;
    const uint64_t seed = uint64_t(args.get_int("sparsity-seed", (long long)model->cfg.seed));
    *stats = wl::model::prune_linear_weights(*model, s, kind, seed);
    return true;
}

std::string config_vs_checkpoint(const Args& args) {
    const std::string ck = args.has("resume") ? args.get("resume") : args.get("checkpoint");
    std::vector<wl::gpt::ConfigDifference> d;
    try {
        d = wl::gpt::config_differences(wl::gpt::load_config(args.get("config")), wl::gpt::load_checkpoint(ck).cfg);
    } catch (const std::exception&) {
        return "";
    }
    if (d.empty()) return " (they agree on every key)";
    std::string s;
    for (size_t k = 0; k < d.size() && k < 4; ++k)
        s += (k ? "; " : "") + d[k].path + ": " + d[k].a + " in the config, " + d[k].b + " in the checkpoint";
    if (d.size() > 4) s += "; and " + std::to_string(d.size() - 4) + " more";
    return " (they differ in " + s + ")";
}

void print_compile(const wl::model::CompileInfo& info, std::FILE* out) {
    std::fprintf(out, "%s\n", info.summary().c_str());
    if (!info.warning.empty()) std::fprintf(stderr, "waferlab-cli: warning: the compiled model was not cached: %s\n", info.warning.c_str());
}


}  // namespace wlcli
