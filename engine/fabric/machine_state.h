// machine_state.h: what both run modes step — the network (network.h), each PE's core and SRAM,
// the loaded programs, the clock and the fault — and the band of rows this process owns when one
// mesh is split over several (band.h). Machine (machine.h) owns it and answers the host's calls;
// cycle mode (machine.cpp, core.cpp) and fast mode (fast_mode.h) advance it, and neither reaches
// into the other's state.
#pragma once
#include "engine/fabric/band.h"
#include "engine/fabric/core.h"
#include "engine/fabric/fault.h"
#include "engine/fabric/network.h"
#include "engine/fabric/wafer.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace wl {

// Every default in one place (docs/engine.md explains each).
struct MachineConfig {
    int w = 8, h = 8;                       // PEs across and down
    uint32_t sram_bytes = kSramBytesPerPe;  // per PE (wafer.h)
    int router_queue_depth = 2;             // per (port, colour), 1..kRouterQueueMax; 2 sustains 1 wavelet/cycle
    int ce_queue_depth = 4;                 // per colour at the CE, 1..kCeQueueMax
    int simd_fp32 = 1;                      // vector-op elements per cycle (2 reads + 1 write port: 1); machine_config() sets a profile's
    int task_pick_cycles = 1;               // the picker's cost to start a task
    size_t trace_capacity = 0;              // events kept; 0 = trace off
    size_t max_stuck_reported = 32;         // deadlock report size cap
    size_t fast_path_entries = size_t(1) << 22;   // fast mode's recorded paths kept: 32 MiB of entries (fast_mode.h)
    // Fast mode's leash: how many cycles a PE may run ahead of the one furthest behind. Longer lets
    // a PE do more a turn with its SRAM in the host's caches, and costs queued wavelets' memory
    // (docs/engine.md, "Fast mode"); the model's machines take kModelRunAhead (mesh_gpt.h).
    uint64_t fast_run_ahead = 4096;
    // The most memory a machine may take (SRAM + per-PE state); 0 = no limit but what
    // allocation allows. A 32-bit (WebAssembly) heap tops out at 4 GiB, shared with the
    // app and its snapshots: half of it for the machine.
    uint64_t memory_limit = sizeof(void*) == 4 ? (uint64_t(2) << 30) : 0;
};

struct SramArenaDeleter {   // a machine's SRAM arena back to zeroed_free
    size_t bytes = 0;
    void operator()(uint8_t* p) const;
};

// The members keep the names Machine gives them (it holds this as its base).
struct MachineState {
    MachineConfig cfg_;
    uint64_t now_ = 0;
    Fault fault_;                                   // sticky: a faulted machine does not run
    Network net_;
    std::vector<Core> cores_;
    std::unique_ptr<uint8_t, SramArenaDeleter> sram_;   // one zeroed_alloc'd arena; pages commit on first touch
    std::vector<LoadedProgram> progs_;
    uint64_t router_steps_ = 0, core_steps_ = 0;
    // Split (Machine::split): the other bands, and the rows this machine steps (all of them unless split).
    BandLink* link_ = nullptr;                      // nullptr: whole
    Band band_;
    int own0_ = 0, own1_ = 0;                       // ... as PE indices [own0_, own1_)
    bool band_ran_ = false;                         // a cycle (or a fast window) ran since the bands last synced

    int idx(int x, int y) const { return y * cfg_.w + x; }
    bool owns(int i) const { return i >= own0_ && i < own1_; }   // only the host's calls wake another band's PEs: they ask
    uint8_t* sram_at(int i) { return sram_.get() + size_t(i) * cfg_.sram_bytes; }   // PE i's SRAM
    const uint8_t* sram_at(int i) const { return sram_.get() + size_t(i) * cfg_.sram_bytes; }

    // The run's fault, if it is the first: the earliest cycle's, then the lowest PE index, so the
    // order PEs are visited in never decides. pc >= 0 names the kernel's line.
    void raise(FaultKind k, int pe, int colour, int task, int32_t pc, std::string msg);
    // A wavelet on colour reached router i from port and no switch position there accepts it (NoRoute).
    void refuse(int i, int port, int colour);
    // Whether the CE at i has a task or a reader for colour; unread() raises NoTask when it has not.
    bool reads(int i, int colour) const {
        const Core& ce = cores_[size_t(i)];
        return ce.prog >= 0 && (progs_[size_t(ce.prog)].consumed_colours >> colour & 1);
    }
    void unread(int i, int colour);
};

}  // namespace wl
