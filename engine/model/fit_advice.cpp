// fit_advice.cpp: see fit_advice.h.
#include "engine/model/fit_advice.h"

namespace wl::model {

std::string fit_advice(const gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                       uint32_t sram_bytes, bool train) {
    std::string fits;
    auto suggest = [&](const std::string& set, const std::string& what) {
        fits += (fits.empty() ? "" : ", or ") + ("--set " + set + " (" + what + ")");
    };
    // A larger mesh: both sides doubled until one fits (more PEs an op, so less on each).
    for (int k = 2; mesh_w * k <= 256 && mesh_h * k <= 256; k *= 2) {
        if (plan_model(cfg, mesh_w * k, mesh_h * k, kernels, sram_bytes, train).ok) {
            const std::string m = std::to_string(mesh_w * k) + "x" + std::to_string(mesh_h * k);
            suggest("wafer.mesh=" + m, "a larger mesh; the CLI's --mesh " + m);
            break;
        }
    }
    // A shorter context: activations and attention's keys and values shrink with it.
    for (int t = cfg.block_size / 2; t >= 8; t /= 2) {
        gpt::GPTConfig c = cfg;
        c.block_size = t;
        if (plan_model(c, mesh_w, mesh_h, kernels, sram_bytes, train).ok) {
            suggest("model.block_size=" + std::to_string(t), "a shorter context");
            break;
        }
    }
    std::string out = fits.empty() ? ". Neither a mesh up to 256x256 nor a shorter context makes it fit"
                                   : ". It fits with " + fits;
    return out + ". (train_input.batch_size and optimizer.grad_accum_steps, the usual first remedies, change nothing a "
                 "PE holds here: the mesh takes a batch's sequences one at a time. wafer.execution: streaming is not "
                 "built yet.)";
}

}  // namespace wl::model
