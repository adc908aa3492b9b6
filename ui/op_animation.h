// op_animation.h: one op of the model's last forward, run again in cycle mode so the
// canvas can show its wavelets moving. A copy of the model's machine (its weights,
// the op's inputs and the time window as that forward left them) is switched to
// cycle mode with a trace, the op's main is launched again on its PEs, and tick()
// steps it a slice per frame. When it ends, its output is compared with the fast
// run's, word for word: the two modes must agree (docs/engine.md).
// Streaming execution: a layer's weight stream (MeshGPT::feed_layer) replays the same way:
// the edge links feed the copy again and the ops' load_w keep their parts; its outputs are w.
//
//   OpAnimation a;
//   if (!a.start(*session.machine(), *plan.find("l0.qkv"), &why)) show(why);
//   a.tick(dt, 12.0);   // every frame; a.machine() is what the canvas draws
#pragma once
#include "engine/fabric/host.h"
#include "engine/model/mesh_plan.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wlui {

class OpAnimation {
public:
    // Copies `model` (quiescent, after a forward) and launches op's main on the copy.
    bool start(const wl::Machine& model, const wl::model::PlannedOp& op, std::string* why);
    // Any replay: `launch` starts it on the copy; `outputs` (PEs, symbol) are compared with the model's at the end.
    using Launch = std::function<wl::Fault(wl::Host&)>;
    bool start(const wl::Machine& model, const std::string& name, const Launch& launch,
               const std::vector<std::pair<wl::Rect, std::string>>& outputs, std::string* why);
    void stop() { host_.reset(); }
    bool active() const { return host_ != nullptr; }
    const wl::Machine* machine() const { return host_ ? &host_->machine() : nullptr; }
    const std::string& op() const { return op_; }

    // Plays at speed() cycles per second (to_end: as fast as the budget allows), at most budget_ms of work.
    void tick(double dt_s, double budget_ms);
    void set_speed(double cycles_per_s) { speed_ = std::clamp(cycles_per_s, 1.0, 1e7); }
    double speed() const { return speed_; }
    void to_end() { to_end_ = true; }

    uint64_t cycles() const;               // since the launch
    bool done() const { return done_; }    // quiescent, or stopped by a fault
    const std::string& error() const { return error_; }
    // Once done without a fault: whether the op's output on every PE is the fast run's, bit for bit.
    std::optional<bool> matches_fast() const { return matches_; }

private:
    std::unique_ptr<wl::Host> host_;
    std::string op_;
    std::vector<std::pair<wl::Rect, std::string>> outputs_;
    std::vector<std::vector<uint8_t>> fast_out_;   // per output, per PE of its rect, row-major: what the fast run left
    uint64_t start_ = 0;
    double speed_ = 2000, owed_ = 0;       // cycles per second; cycles not yet run
    bool to_end_ = false, done_ = false;
    std::string error_;
    std::optional<bool> matches_;
};

}  // namespace wlui
