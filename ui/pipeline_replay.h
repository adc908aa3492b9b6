// pipeline_replay.h: a pipelined forward run again in cycle mode, a few slices a frame, so the
// canvas shows every op of the pipeline working at once, its wavelets moving, each op lit in the
// colour of the chunk it works on (timeline_overlay over in_flight()). A fresh mesh of the same
// plan and weights runs the same schedule as the fast run (MeshGPT::begin_forward and
// advance_forward), and at the end its logits are compared with the reference's, bit for bit:
// cycle mode must agree with fast mode (docs/engine.md).
//
//   PipelineReplay r;
//   if (!r.start(plan, model, ids, reference_logits, &why)) show(why);
//   r.tick(dt, 12.0);   // every frame; r.machine() is what the canvas draws
#pragma once
#include "engine/gpt/gpt.h"
#include "engine/model/mesh_gpt.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wlui {

class PipelineReplay {
public:
    // A cycle-mode mesh of plan with model's weights, its pipelined forward of ids begun.
    // want: the logits it must give (the reference's for ids). False, with *why, when it cannot.
    bool start(const wl::model::MeshPlan& plan, const wl::gpt::GPT& model, const std::vector<int>& ids, std::vector<float> want,
               std::string* why);
    void stop() { mesh_.reset(); }
    bool active() const { return mesh_ != nullptr; }
    const wl::Machine* machine() const { return mesh_ ? &mesh_->host().machine() : nullptr; }
    const wl::model::MeshGPT* mesh() const { return mesh_.get(); }

    // Plays at speed() cycles per second (to_end: as fast as the budget allows), at most budget_ms of work.
    void tick(double dt_s, double budget_ms);
    void set_speed(double cycles_per_s) { speed_ = std::clamp(cycles_per_s, 256.0, 1e8); }
    double speed() const { return speed_; }
    void to_end() { to_end_ = true; }

    uint64_t cycles() const;                 // since the forward began
    bool done() const { return done_; }      // every launch finished, or a fault
    const std::string& error() const { return error_; }
    // The launches working now (the overlay's), empty once done.
    std::vector<wl::model::LaunchSpan> in_flight() const { return mesh_ ? mesh_->in_flight() : std::vector<wl::model::LaunchSpan>{}; }
    // Once done without a fault: whether every logit is the reference's, bit for bit.
    std::optional<bool> matches() const { return matches_; }

private:
    std::unique_ptr<wl::model::MeshGPT> mesh_;
    std::vector<float> want_;
    uint64_t start_ = 0;
    double speed_ = 20000, owed_ = 0;
    bool to_end_ = false, done_ = false;
    std::string error_;
    std::optional<bool> matches_;
};

}  // namespace wlui
