// mesh_build.h: a GPT planned for the mesh and loaded onto it in units, for a UI that must draw
// between them: PlanBuilder's steps (placing, then a kernel program a step), then MeshGPT's (or,
// planned for training, MeshTrainer's) load steps. The same plan and the same machine as
// plan_model and the one-call constructors, however it is stepped. It is what the density
// sweep (density_sweep.h) and the resident/streaming comparison (execution_compare.h) build each
// of their meshes with.
//
//   MeshBuild b(cfg, 32, 32, read_kernels("models/kernels"), /*train=*/false, nullptr, RunMode::Fast);
//   while (b.step(model)) show(b.activity(), b.progress());   // "compiling kernels: 3 of 17 ..."
//   if (!b.error().empty()) report(b.error());               // the planner's: "l2.fch needs ..."
//   std::unique_ptr<MeshGPT> mesh = b.take_gpt();
#pragma once
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"
#include "engine/model/mesh_plan.h"
#include "engine/model/mesh_trainer.h"

#include <memory>
#include <optional>
#include <string>

namespace wl::model {

class MeshBuild {
public:
    // sparse: a pruned model whose non-zeros size the sparse matmuls (sparsity.h, sparse_nonzeros;
    // it must outlive the planning); nullptr plans every matmul dense. train: a training plan,
    // loaded as a MeshTrainer (take_trainer), else a MeshGPT (take_gpt).
    MeshBuild(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, KernelSource kernels, bool train,
              const wl::gpt::GPT* sparse, wl::RunMode mode);
    // One unit: a plan step, or a load step of model's weights. False once built, or failed (error()).
    bool step(const wl::gpt::GPT& model);
    bool built() const { return gpt_ || trainer_; }
    const std::string& error() const { return error_; }   // the planner's, when the model does not fit
    bool too_big() const { return too_big_; }             // it failed for want of SRAM or rows
    std::string activity() const;                         // "compiling kernels: 3 of 17 ...", "loading the mesh: 40 of 70"
    double progress() const;                              // 0..1: the plan is the first half, the loading the second
    const MeshPlan* plan() const;                         // once planned
    std::unique_ptr<MeshGPT> take_gpt() { return std::move(gpt_); }
    std::unique_ptr<MeshTrainer> take_trainer() { return std::move(trainer_); }

private:
    bool train_;
    wl::RunMode mode_;
    std::optional<PlanBuilder> builder_;
    std::unique_ptr<MeshGPT> loading_gpt_, gpt_;
    std::unique_ptr<MeshTrainer> loading_trainer_, trainer_;
    std::string error_;
    bool too_big_ = false;
};

}  // namespace wl::model
