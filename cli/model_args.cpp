// model_args.cpp: see model_args.h.
#include "cli/model_args.h"

#include "engine/gpt/checkpoint.h"
#include "engine/gpt/trainer.h"
#include "engine/gpu/wafer_estimate.h"
#include "engine/fabric/mesh.h"

#include <stdexcept>

namespace wlcli {

LoadedModel load_model(const Args& args) {
    using namespace wl::gpt;
    LoadedModel m;
    if (args.has("checkpoint")) {
        Checkpoint ck = load_checkpoint(args.get("checkpoint"));
        m.tokenizer = make_tokenizer(ck.tokenizer_kind, ck.tokenizer_state, args.get("bpe-dir"));
        m.model = model_from_checkpoint(ck);
        m.source = "checkpoint " + args.get("checkpoint") + " (step " + std::to_string(ck.step) + ")";
        return m;
    }
    if (!args.has("config")) throw std::runtime_error("needs --config FILE (e.g. models/gpt-nano.cfg) or --checkpoint FILE");
    Trainer tr(load_config(args.get("config")), args.get("bpe-dir"));   // the tokenizer comes from the corpus
    m.tokenizer = std::move(tr.tokenizer);
    m.model = std::move(tr.model);
    m.source = "config " + args.get("config") + ", initial weights (seed " + std::to_string(tr.cfg.seed) + ")";
    return m;
}

wl::model::MeshPlan plan_for(const Args& args, const wl::gpt::GPTConfig& cfg, bool train) {
    wl::Mesh m{32, 32};
    if (args.has("mesh") && !wl::parse_mesh(args.get("mesh"), &m))
        throw std::runtime_error("--mesh expects WxH, each 1..256, e.g. 32x32");
    const std::string dir = args.get("kernels", "models/kernels");
    wl::model::PlanResult r =
        wl::model::plan_model(cfg, m.w, m.h, wl::model::read_kernels(dir), wl::MachineConfig{}.sram_bytes, train);
    if (!r.ok) throw std::runtime_error("compile-model: " + r.error);
    return std::move(r.plan);
}

double wse_clock_hz() { return wl::gpu::wse2().clock_hz; }

}  // namespace wlcli
