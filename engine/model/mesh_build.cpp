// mesh_build.cpp: see mesh_build.h.
#include "engine/model/mesh_build.h"

#include "engine/model/sparsity.h"

#include <algorithm>

namespace wl::model {

MeshBuild::MeshBuild(const wl::gpt::GPTConfig& cfg, int mesh_w, int mesh_h, KernelSource kernels, bool train,
                     const wl::gpt::GPT* sparse, wl::RunMode mode)
    : train_(train), mode_(mode) {
    builder_.emplace(cfg, mesh_w, mesh_h, std::move(kernels), wl::gpt::machine_profile_of(cfg).sram_bytes_per_pe, train);
    if (sparse) builder_->set_sparse(sparse_nonzeros(*sparse));
}

bool MeshBuild::step(const wl::gpt::GPT& model) {
    if (built() || !error_.empty()) return false;
    if (builder_) {
        if (builder_->step()) return true;
        PlanResult r = builder_->take();
        builder_.reset();
        if (!r.ok) {
            error_ = r.error;
            too_big_ = r.too_big;
            return false;
        }
        if (train_) loading_trainer_ = std::make_unique<MeshTrainer>(std::move(r.plan), mode_, MeshGPT::InSteps{});
        else loading_gpt_ = std::make_unique<MeshGPT>(std::move(r.plan), mode_, MeshGPT::InSteps{});
        return true;
    }
    if (loading_trainer_) {
        if (loading_trainer_->load_step(model)) return true;
        trainer_ = std::move(loading_trainer_);
        return false;
    }
    if (loading_gpt_->load_step(model)) return true;
    gpt_ = std::move(loading_gpt_);
    return false;
}

const MeshPlan* MeshBuild::plan() const {
    if (loading_gpt_) return &loading_gpt_->plan();
    if (gpt_) return &gpt_->plan();
    if (loading_trainer_) return &loading_trainer_->mesh().plan();
    if (trainer_) return &trainer_->mesh().plan();
    return nullptr;
}

std::string MeshBuild::activity() const {
    if (!error_.empty()) return "";
    if (builder_) return builder_->activity();
    auto loading = [](size_t done, size_t total) {
        return "loading the mesh: " + std::to_string(done) + " of " + std::to_string(total);
    };
    if (loading_trainer_) return loading(loading_trainer_->load_done(), loading_trainer_->load_total());
    if (loading_gpt_) return loading(loading_gpt_->load_done(), loading_gpt_->load_total());
    return "";
}

double MeshBuild::progress() const {
    if (builder_) return 0.5 * builder_->progress();
    auto half = [](size_t done, size_t total) { return 0.5 + 0.5 * std::min(1.0, double(done) / double(std::max<size_t>(total, 1))); };
    if (loading_trainer_) return half(loading_trainer_->load_done(), loading_trainer_->load_total());
    if (loading_gpt_) return half(loading_gpt_->load_done(), loading_gpt_->load_total());
    return built() ? 1 : 0;
}

}  // namespace wl::model
