// run_controller.h: the app's run controls over a kernel's host block — run
// and pause, step N cycles, run to the end, reset, rewind — carried out in
// slices that fit a frame's time budget, so the UI never freezes.
//
// Every control sets a target cycle; tick() moves toward it a slice at a time.
// Slicing never changes a result (KernelRun guarantees it), so only how fast
// the target is reached depends on the machine the app runs on.
//
// Rewind restores the nearest snapshot at or before the target and replays.
// Going back never forgets: the timeline and the extent (the furthest cycle
// reached) survive it, and only load() starts a new history.
// Snapshots are whole machines (each PE's used SRAM included), so they live
// within a byte budget: when it is full, every other one is dropped and the
// spacing doubles. Dropped ones are recycled, so taking one copies into
// memory that is already there.
// No ImGui here: the tests drive it directly.
#pragma once
#include "engine/lang/run.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace wlui {

// One point of the activity timeline, cumulative from cycle 0 (so dropping
// points or cutting the tail on rewind keeps the rest exact); rates are
// differences between neighbours.
struct ActivitySample {
    uint64_t cycle = 0;
    uint64_t busy = 0;            // CE busy cycles, summed over PEs
    uint64_t hops = 0;            // wavelets routers forwarded
    uint64_t stalls = 0;          // CE stall cycles + router stall colour-cycles
};

struct RunControllerOptions {
    size_t trace_capacity = 1 << 15;          // recent events kept for the animation
    size_t snapshot_budget_bytes = 192u << 20;
    uint64_t first_snapshot_every = 64;       // cycles; doubles as snapshots thin out
    uint64_t sample_every = 8;                // timeline resolution; doubles past max_samples
    size_t max_samples = 2048;
    uint64_t cycle_budget = wl::lang::RunOptions{}.cycle_budget;   // per `run` statement (the watchdog)
};

class RunController {
public:
    enum class Mode { Paused, Playing, ToTarget };

    explicit RunController(const RunControllerOptions& opt = {}) : opt_(opt) {}

    // [SECTION] what runs
    void load(std::shared_ptr<const wl::lang::CompileResult> cr);   // at cycle 0, paused
    void unload();
    bool loaded() const { return run_.has_value(); }
    const wl::lang::KernelRun* run() const { return run_ ? &*run_ : nullptr; }
    // Cycle mode (every router and CE each cycle; stepping and animation) or fast mode (functional,
    // cycles estimated: docs/engine.md). A change reloads the kernel at cycle 0.
    void set_run_mode(wl::RunMode m);
    wl::RunMode run_mode() const { return run_mode_; }
    // The machine profile the kernel runs on (engine/fabric/wafer.h: its lanes for the vector ops,
    // fp32 or fp16) and its SRAM per PE. A change reloads the kernel at cycle 0.
    void set_arch(const wl::MachineProfile& p, wl::Lanes lanes);
    const wl::MachineProfile& arch() const { return *arch_; }
    wl::Lanes lanes() const { return lanes_; }

    // [SECTION] controls (each only sets where to go; tick() goes there)
    void play();                              // at speed() cycles per second, until done
    void pause();
    void toggle() { mode_ == Mode::Paused ? play() : pause(); }
    void step(uint64_t n);                    // n more cycles from the current target, then pause
    void run_to_end();                        // as fast as the frame budget allows
    void reset() { rewind_to(0); }
    void rewind_to(uint64_t cycle);           // restore a snapshot, replay to `cycle`, pause
    void step_back(uint64_t n) { rewind_to(cycle() > n ? cycle() - n : 0); }
    // Cycles per second. The default is slow enough to follow one wavelet hop by hop (50 ms a cycle).
    static constexpr double kMinSpeed = 1, kMaxSpeed = 1e6, kDefaultSpeed = 20;
    void set_speed(double cycles_per_s) { speed_ = cycles_per_s >= kMinSpeed ? std::min(cycles_per_s, kMaxSpeed) : kMinSpeed; }
    double speed() const { return speed_; }

    // Advances toward the target for at most budget_ms of wall time;
    // dt_s is the time since the last frame (it paces play()). Returns cycles run.
    uint64_t tick(double dt_s, double budget_ms);

    // [SECTION] what the UI shows
    Mode mode() const { return mode_; }
    bool busy() const { return mode_ != Mode::Paused; }    // running toward a target
    uint64_t cycle() const { return run_ ? run_->cycle() : 0; }
    uint64_t target() const;                  // the cycle tick() heads for (UINT64_MAX: the end)
    bool done() const { return run_ && run_->done(); }
    uint64_t extent() const { return std::max(extent_, cycle()); }   // the furthest cycle this run has reached
    bool extent_is_end() const { return end_known_; }                // ...and it is where the run stops
    const std::vector<ActivitySample>& timeline() const { return samples_; }
    size_t snapshots() const { return snaps_.size(); }
    size_t snapshots_copied() const { return copied_; }   // since load, beyond cycle 0's: each one a copy of the machine
    uint64_t snapshot_every() const { return snap_every_; }
    double last_slice_ms() const { return last_slice_ms_; }  // the longest single slice of the last tick

private:
    void take_snapshot();
    void sample();
    uint64_t next_stop() const;               // the next snapshot or sample boundary

    RunControllerOptions opt_;
    const wl::MachineProfile* arch_ = &wl::default_profile();
    wl::Lanes lanes_ = wl::Lanes::Fp32;
    wl::RunMode run_mode_ = wl::RunMode::Cycle;
    std::shared_ptr<const wl::lang::CompileResult> cr_;
    std::optional<wl::lang::KernelRun> run_;
    std::vector<wl::lang::KernelRun> snaps_;  // ascending cycles; snaps_[0] is cycle 0
    std::vector<wl::lang::KernelRun> spare_;  // dropped snapshots, reused by the next ones
    static constexpr uint64_t kNoSnapshots = uint64_t(1) << 40;   // a spacing no run reaches
    uint64_t snap_every_ = 64;
    size_t copied_ = 0;
    std::vector<ActivitySample> samples_;
    uint64_t sample_every_ = 8;
    uint64_t extent_ = 0;
    bool end_known_ = false;
    Mode mode_ = Mode::Paused;
    uint64_t target_ = 0;                     // Paused: unused; ToTarget: where to stop
    double play_credit_ = 0;                  // fractional cycles owed to play()
    double speed_ = kDefaultSpeed;
    uint64_t chunk_ = 64;                     // cycles per KernelRun::step, adapted to the budget
    double step_ms_ = 0;                      // time spent emulating, and the cycles it ran
    uint64_t step_cycles_ = 0;
    double last_slice_ms_ = 0;
};

}  // namespace wlui
