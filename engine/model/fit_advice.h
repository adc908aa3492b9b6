// fit_advice.h: what would make a model fit the mesh when it does not, tried rather than guessed.
//
// The seeds' remedies for a model too big for the wafer come in an order (ModelZoo's
// troubleshooting; docs/configs.md): a smaller batch_size, then gradient accumulation, then
// weight streaming. On this emulator a batch's sequences go through the same executable one at
// a time, so the first two change nothing a PE holds: the advice says so, rather than suggest
// them. What does change it is tried by planning: a larger mesh, then a shorter context. Only
// remedies that fit are suggested, each as a key the user can --set.
//
//   PlanResult r = plan_model(cfg, 16, 16, kernels, sram, true);
//   if (r.too_big) r.error += fit_advice(cfg, 16, 16, kernels, sram, true);
//   // "...; 49,152 available. It fits with --set wafer.mesh=32x32, or --set model.block_size=16; ..."
#pragma once
#include "engine/model/mesh_plan.h"

#include <string>

namespace wl::model {

// Sentences to append to a too_big plan's error (they start with ". "); "" if nothing tried fits.
std::string fit_advice(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, const KernelSource& kernels,
                       uint32_t sram_bytes, bool train);

}  // namespace wl::model
