// pipeline_replay.cpp: see pipeline_replay.h.
#include "ui/pipeline_replay.h"

#include <chrono>
#include <cstring>

namespace wlui {

namespace {
constexpr size_t kTraceEvents = 1 << 16;   // the newest hops are what the canvas draws (as OpAnimation's)
}

bool PipelineReplay::start(const wl::model::MeshPlan& plan, const wl::gpt::GPT& model, const std::vector<int>& ids,
                           std::vector<float> want, std::string* why) {
    *this = PipelineReplay{};
    auto mesh = std::make_unique<wl::model::MeshGPT>(plan, model, wl::RunMode::Cycle);
    mesh->set_schedule(wl::model::Schedule::Pipelined);
    mesh->trace_hops(kTraceEvents);
    if (!mesh->begin_forward(ids.data(), int(ids.size()))) {
        *why = mesh->error();
        return false;
    }
    start_ = mesh->now();
    mesh_ = std::move(mesh);
    want_ = std::move(want);
    return true;
}

uint64_t PipelineReplay::cycles() const { return mesh_ ? mesh_->now() - start_ : 0; }

void PipelineReplay::tick(double dt_s, double budget_ms) {
    if (!mesh_ || done_) return;
    owed_ = to_end_ ? 1e18 : std::min(owed_ + dt_s * speed_, std::max(speed_, double(wl::model::kPipelineSlice)));
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<float> logits;
    // Whole slices only: the schedule starts launches between them, so the replay's cycles are the
    // forward's whatever the frame rate.
    while (owed_ >= double(wl::model::kPipelineSlice) && !done_) {
        const uint64_t before = mesh_->now();
        if (!mesh_->advance_forward(1, &logits)) {
            done_ = true;
            error_ = mesh_->error();
            return;
        }
        owed_ -= double(std::max<uint64_t>(mesh_->now() - before, 1));
        if (!mesh_->forward_running()) done_ = true;
        if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() > budget_ms) break;
    }
    if (to_end_) owed_ = 0;
    if (done_ && error_.empty())
        matches_ = logits.size() == want_.size() && std::memcmp(logits.data(), want_.data(), logits.size() * sizeof(float)) == 0;
}

}  // namespace wlui
