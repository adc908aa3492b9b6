#include "ui/run_controller.h"

#include <algorithm>
#include <chrono>

namespace wlui {

using Clock = std::chrono::steady_clock;

static double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void RunController::load(std::shared_ptr<const wl::lang::CompileResult> cr) {
    wl::lang::RunOptions ro;
    ro.machine = wl::machine_config(*arch_, lanes_);
    ro.cycle_budget = opt_.cycle_budget;
    ro.machine.trace_capacity = opt_.trace_capacity;
    ro.mode = run_mode_;
    cr_ = cr;
    run_.emplace(std::move(cr), ro);
    run_->step(0);                           // the fills and launches before the first `run`
    snap_every_ = opt_.first_snapshot_every;
    snaps_.assign(1, *run_);
    copied_ = 0;
    spare_.clear();
    sample_every_ = opt_.sample_every;
    samples_.clear();
    sample();
    extent_ = 0;
    end_known_ = run_->done();
    mode_ = Mode::Paused;
    play_credit_ = 0;
}

void RunController::set_run_mode(wl::RunMode m) {
    if (m == run_mode_) return;
    run_mode_ = m;
    if (cr_) load(cr_);
}

void RunController::set_arch(const wl::MachineProfile& p, wl::Lanes lanes) {
    if (&p == arch_ && lanes == lanes_) return;
    arch_ = &p;
    lanes_ = lanes;
    if (cr_) load(cr_);
}

void RunController::unload() {
    run_.reset();
    cr_.reset();
    snaps_.clear();
    spare_.clear();
    samples_.clear();
    extent_ = 0;
    end_known_ = false;
    mode_ = Mode::Paused;
}

void RunController::play() {
    if (!run_ || run_->done()) return;
    mode_ = Mode::Playing;
    play_credit_ = 0;
}

void RunController::pause() { mode_ = Mode::Paused; }

void RunController::step(uint64_t n) {
    if (!run_ || run_->done() || n == 0) return;
    target_ = (mode_ == Mode::ToTarget && target_ != UINT64_MAX ? target_ : cycle()) + n;
    mode_ = Mode::ToTarget;
}

void RunController::run_to_end() {
    if (!run_ || run_->done()) return;
    target_ = UINT64_MAX;
    mode_ = Mode::ToTarget;
}

uint64_t RunController::target() const {
    switch (mode_) {
    case Mode::Paused: return cycle();
    case Mode::Playing: return UINT64_MAX;
    case Mode::ToTarget: return target_;
    }
    return cycle();
}

void RunController::rewind_to(uint64_t c) {
    if (!run_) return;
    auto it = std::upper_bound(snaps_.begin(), snaps_.end(), c, [](uint64_t v, const wl::lang::KernelRun& s) { return v < s.cycle(); });
    *run_ = *std::prev(it);                  // snaps_[0] is cycle 0, so there is one
    // The timeline and the later snapshots stay: the replay is deterministic, so they are still this run's.
    target_ = c;
    mode_ = run_->cycle() < c ? Mode::ToTarget : Mode::Paused;
}

void RunController::take_snapshot() {
    if (run_->cycle() <= snaps_.back().cycle()) return;
    // One that cannot fit beside cycle 0's would be dropped at once, after its copy (a 64 x 64 mesh's
    // arena is 192 MiB: a second's stall in a browser). Rewinds replay from cycle 0 instead.
    if (snaps_.front().machine().snapshot_bytes() + run_->machine().snapshot_bytes() > opt_.snapshot_budget_bytes) {
        snap_every_ = kNoSnapshots;
        return;
    }
    copied_++;
    if (spare_.empty()) snaps_.push_back(*run_);
    else {
        snaps_.push_back(std::move(spare_.back()));
        spare_.pop_back();
        snaps_.back() = *run_;                // into the arena a dropped snapshot left behind
    }
    // Over budget: keep cycle 0 and every snapshot on the doubled spacing.
    auto bytes = [&] {
        size_t n = 0;
        for (const auto& s : snaps_) n += s.machine().snapshot_bytes();
        return n;
    };
    while (snaps_.size() > 1 && bytes() > opt_.snapshot_budget_bytes) {
        snap_every_ *= 2;
        std::vector<wl::lang::KernelRun> kept;
        for (auto& s : snaps_) {
            if (s.cycle() % snap_every_ == 0) kept.push_back(std::move(s));
            else if (spare_.size() < 2) spare_.push_back(std::move(s));
        }
        snaps_ = std::move(kept);
    }
}

void RunController::sample() {
    if (!samples_.empty() && run_->cycle() <= samples_.back().cycle) return;   // replaying what is already known
    const wl::MachineStats st = run_->machine().stats();
    samples_.push_back({st.cycles, st.busy, st.hops, st.stall + st.router_stalls});
    if (samples_.size() <= opt_.max_samples) return;
    sample_every_ *= 2;
    std::vector<ActivitySample> kept;
    for (const auto& s : samples_)
        if (s.cycle % sample_every_ == 0 || &s == &samples_.back()) kept.push_back(s);
    samples_ = std::move(kept);
}

// Cycle mode stops at every sample and snapshot. Fast mode only at snapshots: every stop makes all
// its PEs yield and start again, so stopping every few cycles on a large mesh cost it nearly all
// its time (a 64 x 64 SUMMA took minutes in the page); it takes a sample at the end of each step.
uint64_t RunController::next_stop() const {
    const uint64_t c = cycle();
    const uint64_t snap = c / snap_every_ * snap_every_ + snap_every_;
    if (run_mode_ == wl::RunMode::Fast) return snap;
    return std::min(c / sample_every_ * sample_every_ + sample_every_, snap);
}

uint64_t RunController::tick(double dt_s, double budget_ms) {
    last_slice_ms_ = 0;
    if (!run_ || mode_ == Mode::Paused) return 0;
    uint64_t goal = target_;
    if (mode_ == Mode::Playing) {
        // At most a quarter second owed: a hidden tab must not come back to a burst.
        play_credit_ = std::min(play_credit_ + speed_ * dt_s, std::max(1.0, speed_ * 0.25));
        goal = cycle() + uint64_t(play_credit_);
    }
    const Clock::time_point start = Clock::now();
    const uint64_t from = cycle();
    while (!run_->done() && cycle() < goal && ms_since(start) < budget_ms) {
        const uint64_t n = std::min({chunk_, goal - cycle(), next_stop() - cycle()});
        const Clock::time_point t = Clock::now();
        run_->step(n);
        const double ms = ms_since(t);
        last_slice_ms_ = std::max(last_slice_ms_, ms);
        // Keep one step well inside the budget: it cannot be interrupted. A fast-mode step has a
        // fixed cost (every PE yields at its end and starts again), so it aims at half the budget.
        const bool fast = run_mode_ == wl::RunMode::Fast;
        if (ms > budget_ms * (fast ? 0.5 : 0.25)) chunk_ = std::max<uint64_t>(1, chunk_ / 2);
        else if (n == chunk_ && ms < budget_ms * (fast ? 0.25 : 0.05)) chunk_ = std::min<uint64_t>(chunk_ * 2, 1u << 20);
        step_ms_ += ms, step_cycles_ += n;
        if (cycle() % sample_every_ == 0 || run_->done() || run_mode_ == wl::RunMode::Fast) sample();
        if (cycle() % snap_every_ == 0) {
            // Snapshots may cost at most a tenth of the emulation: a costly one spaces the next further out.
            const Clock::time_point q = Clock::now();
            take_snapshot();
            if (ms_since(q) > 0.1 * double(snap_every_) * step_ms_ / double(std::max<uint64_t>(step_cycles_, 1)) && snap_every_ < kNoSnapshots)
                snap_every_ *= 2;
        }
    }
    const uint64_t ran = cycle() - from;
    extent_ = std::max(extent_, cycle());
    if (run_->done()) end_known_ = true;
    if (mode_ == Mode::Playing) play_credit_ = std::max(0.0, play_credit_ - double(ran));
    if (run_->done() || (mode_ == Mode::ToTarget && cycle() >= target_)) mode_ = Mode::Paused;
    return ran;
}

}  // namespace wlui
