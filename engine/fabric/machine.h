// machine.h: the wafer — a W×H mesh of PEs (router + compute engine + SRAM),
// stepped cycle by cycle in phases:
//   1. route:   every active router moves at most one wavelet per colour and
//               one per output link (queues it reads were filled before this cycle)
//   2. compute: every active CE issues at most one instruction and advances
//               its vector ops / microthreads
// Pushes become visible next cycle, so the order within a phase never matters.
// Only active routers and CEs are visited; when nothing is active the clock
// jumps to the next timer (a CE busy with a long vector op). No globals: many
// machines may live in one process. A Machine copy is a snapshot.
//
// What both run modes step (the network of routers and links, the cores, SRAM
// and programs, the clock and the fault) is MachineState (machine_state.h),
// this class's base; fast mode (fast_mode.h) steps it too, and a wavelet goes
// where the network says in either mode (network.h).
#pragma once
#include "engine/fabric/machine_state.h"
#include "engine/fabric/mesh.h"
#include "engine/fabric/stats.h"
#include "engine/fabric/trace.h"
#include "engine/fabric/wafer.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wl {

// A machine of profile p (wafer.h, "machine profiles"): base with p's SRAM per PE and p's lanes
// for its vector ops: the fp32 lanes, or with Lanes::Fp16 the fp16 lanes (a kernel's fp32 vector
// ops timed as the same ops on 16-bit data: docs/fidelity.md, "fp16"). The default profile at fp32
// is MachineConfig{} exactly.
MachineConfig machine_config(const MachineProfile& p, Lanes lanes = Lanes::Fp32, MachineConfig base = {});

struct Rect {
    int x = 0, y = 0, w = 1, h = 1;
};

enum class RunStatus : uint8_t { Quiescent, CyclesDone, Faulted };

// How run/advance move the machine (docs/engine.md): Cycle steps every router and CE each
// cycle; Fast runs each PE until it blocks, with wavelets routed at once and cycles estimated.
enum class RunMode : uint8_t { Cycle, Fast };
const char* run_mode_name(RunMode m);                       // "cycle", "fast"
bool run_mode_from_name(const std::string& s, RunMode* out);

class FastMode;

struct RunResult {
    RunStatus status = RunStatus::Quiescent;
    uint64_t cycles = 0;          // cycles this call advanced
    Fault fault;                  // when Faulted
    bool ok() const { return status != RunStatus::Faulted; }
};

class Machine : private MachineState {
public:
    explicit Machine(const MachineConfig& cfg = {});
    Machine(const Machine& o);               // deep copy: a snapshot
    Machine& operator=(const Machine& o);
    Machine(Machine&&) noexcept;
    Machine& operator=(Machine&&) noexcept;
    ~Machine();

    const MachineConfig& config() const { return cfg_; }
    Mesh mesh() const { return Mesh{cfg_.w, cfg_.h}; }
    uint64_t now() const { return now_; }
    const Fault& fault() const { return fault_; }   // sticky: a faulted machine does not run

    // [SECTION] layout
    Fault set_route(int x, int y, int colour, const Route& r);
    // Validates, places, writes initial data. consts: each PE's constants for the program's ldp
    // (p->nconsts of them; the same for the whole rectangle).
    Fault load(std::shared_ptr<const Program> p, Rect r, const std::vector<uint32_t>& consts = {});
    const Program* program_at(int x, int y) const;

    // [SECTION] memory and launch (host side; no cycles pass)
    uint8_t* sram(int x, int y);                   // nullptr outside the mesh; prefer write(): this marks all SRAM used
    const uint8_t* sram(int x, int y) const;
    Fault write(int x, int y, uint32_t offset, const void* src, size_t bytes);
    Fault read(int x, int y, uint32_t offset, void* dst, size_t bytes) const;
    Fault launch(int x, int y, int fn);            // run function fn when the CE is next free
    Fault inject(int x, int y, int port, int colour, uint32_t data, bool ctrl = false);   // a wavelet arriving at a router port from outside
    // An edge link (EdgeFeed) from now: port must face off the mesh (W at x = 0, ...) and the colour's
    // route there must take it; cycles_per_wavelet >= 1. The words are data wavelets.
    Fault feed(int x, int y, int port, int colour, std::vector<uint32_t> words, double cycles_per_wavelet);
    bool feeding() const;                          // an edge link still has words to send
    // An outbound edge link (EdgeDrain): wavelets a route sends out of port (which must face off the
    // mesh) on colour leave the mesh, at most one every cycles_per_wavelet cycles (>= 1), into a buffer
    // the host takes. Stays open until closed. Opening one lets set_route send tx to that port on that
    // colour at that PE (otherwise "tx W leads off the mesh"). Control wavelets use the link but are
    // not kept (the store receives data).
    Fault drain(int x, int y, int port, int colour, double cycles_per_wavelet);
    std::vector<uint32_t> take_drained(int x, int y, int port, int colour);   // the words so far, in order; clears them
    Fault close_drain(int x, int y, int port, int colour);   // HostError if a route still sends there; words not taken go with it
    const EdgeDrain* drain_at(int x, int y, int port, int colour) const;   // nullptr: none open

    // [SECTION] one mesh over several processes (band.h, docs/scale.md)
    // From now on this machine steps only band link->rank() of link->ranks() (band_of), and each run
    // advances every band together, as one machine would. Each band makes the same host calls; at
    // the end of every run each band takes the others' rows' SRAM, cores and counters, so between
    // runs every band reads and writes the machine as one process would (sync_bands). Either mode
    // (fast mode's bands: fast_band.cpp), kept from then on; edge links are not split. A HostError
    // if there are more bands than rows, or edge links are open.
    Fault split(BandLink* link);
    const Band& band() const { return band_; }
    BandLink* band_link() const { return link_; }   // nullptr: whole

    // [SECTION] running
    RunMode mode() const { return mode_; }
    Fault set_mode(RunMode m);                     // a HostError while a fast run has wavelets in flight
    RunResult run(uint64_t cycles);                // advance exactly `cycles` (or until a fault)
    RunResult run_until_quiescent(uint64_t budget);   // Watchdog fault past the budget; Deadlock if stuck
    RunResult advance(uint64_t max_cycles);        // a slice of the above: stops when quiescent, no watchdog
    // Groups of PEs that exchange nothing with one another, each launched by launch(k) at this cycle,
    // run until quiescent. Fast mode runs one group after the other, each from this cycle: a PE keeps
    // its own clock and fast mode models no contention, so the clocks, results and cycle count are
    // one run's of them all, with one group's SRAM in the host's caches at a time (a GPT-2 LM head's
    // 99 tiers of 256 PEs ran 2.3 times slower together). Cycle mode, a split mesh or a trace runs
    // them together. The caller vouches that the groups exchange nothing: one whose wavelets wait for
    // a group not yet launched stops the run (the deadlock's report names where, else a HostError).
    RunResult run_apart(size_t groups, const std::function<Fault(size_t)>& launch, uint64_t budget);
    // Fast mode: a slice's PEs may run on this many cycles past its end (the run's bits and clocks
    // are the same however it is sliced), stopping where they block rather than at the slice's end.
    // The slice still ends at its end, quiescent only once every clock is there: the pipelined
    // schedule looks at its launches every few hundred cycles, and its PEs' long nests go on
    // unbroken. 0 (the default): every PE stops at the slice's end.
    void set_lookahead(uint64_t cycles) { lookahead_ = cycles; }
    Fault watchdog(uint64_t budget);               // raise (and return) the Watchdog fault for a spent budget
    bool quiescent() const;                        // nothing active, nothing pending
    // Who holds pending work, and what it waits for: on every PE, or on `pes` alone.
    std::vector<Stuck> stuck(bool include_running = false, const std::vector<int>* pes = nullptr) const;

    // [SECTION] inspection
    const Router& router(int x, int y) const { return net_[size_t(idx(x, y))]; }
    const Core& core(int x, int y) const { return cores_[idx(x, y)]; }
    int ce_queued(int x, int y, int colour) const;   // wavelets waiting at the CE on a colour (either mode)
    bool ce_any_queued(int x, int y) const;          // a wavelet waiting at the CE on any colour (either mode)
    RouterStats router_stats(int x, int y) const;  // with in[N..W] filled from the neighbours
    MachineStats stats() const;
    // The counts of the routers and cores in r alone (cycles and steps are the machine's): where
    // everything that ran since a stats() was inside r, the same difference, without visiting
    // every PE of a large mesh.
    MachineStats stats(const Rect& r) const;
    Trace& trace() { return trace_; }
    const Trace& trace() const { return trace_; }
    static size_t state_bytes_per_pe() { return sizeof(Router) + sizeof(Core); }   // beyond SRAM
    size_t snapshot_bytes() const;                 // the memory a copy (a snapshot) takes, SRAM arena included
    uint64_t checksum() const;                     // FNV-1a of all SRAM, registers and stats (kHashedCoreStats)

private:
    friend struct CyclePort;
    friend struct CycleCore;
    void route_phase();                            // phase 1 over the active routers (fast path inline)
    void route_general(int i);
    template <bool kTrace> void route_phase_t();
    int* route_general_from(int i, int* nextp);
    void relist(Router& r, int i, uint64_t now, bool ramp_popped);
    void core_step(int i);
    void wake_router(int i, uint64_t cycle);
    void wake_core(int i, uint64_t cycle);
    void add_timer(uint64_t at, int i);
    RunResult run_loop(uint64_t cycles, bool stop_when_quiet);
    void cycle_step();                             // one cycle: timers due, edge feeds, route, compute; the clock moves on
    // [SECTION] bands (machine_band.cpp)
    RunResult run_bands(uint64_t cycles, bool stop_when_quiet);
    void band_exchange();                          // after a cycle: the boundary queues' pushes and pops, both ways
    std::string boundary_changes(int ghost_row, int ghost_port, int own_row, int own_port) const;
    void apply_boundary(const std::string& msg, int ghost_row, int ghost_port, int own_row, int own_port);
    void sync_bands();                             // every band's rows to every band
    bool band_deadlock();                          // check_deadlock over every band
    std::vector<Stuck> band_stuck(bool include_running) const;
    // False (and fault_ set) when stuck. pes: the only PEs whose state changed since the last check.
    bool check_deadlock(const std::vector<int>* pes = nullptr);
    Fault deadlock_fault(std::vector<Stuck> st) const;   // st: not empty
    void place_at_instruction(Fault& f, int pe) const;
    void copy_state(const Machine& o);             // everything but the SRAM arena
    void place(int prog, Rect r, const std::vector<uint32_t>& consts);   // load()'s part per PE
    void push_from_outside(int i, int port, int colour, uint32_t data, bool ctrl);   // inject's and feed's: visible at once
    void feed_phase();                             // cycle mode: the edge links' words due now, where there is room
    void new_arena(size_t pes);                    // a zeroed arena of pes PEs' SRAM (sram_ null if it fails)
    RunResult run_fast(uint64_t cycles, bool stop_when_quiet);   // fast mode's run: fast_ steps the PEs, this keeps the machine's books

    // Active lists: this cycle's and the next's; timers (CE wake-ups) as a min-heap.
    struct ActiveList {                            // fixed capacity: each PE is listed at most once per cycle
        std::vector<int> v;
        size_t n = 0;
        void init(size_t cap) { v.assign(cap, 0); }
        void push(int i) { v[n++] = i; }
        bool empty() const { return n == 0; }
        size_t size() const { return n; }
        void clear() { n = 0; }
        int operator[](size_t k) const { return v[k]; }
    };
    ActiveList rnow_, rnext_, cnow_, cnext_;
    struct Timer { uint64_t at; int pe; bool operator>(const Timer& o) const { return at != o.at ? at > o.at : pe > o.pe; } };
    std::vector<Timer> timers_;
    uint64_t progress_ = 0;                        // events this cycle (deadlock = a cycle of none, no timers)
    unsigned rr_colour_ = 0, rr_port_ = 0;         // round-robin starts this cycle (now % 24, now % 5)
    Trace trace_;
    RunMode mode_ = RunMode::Cycle;
    std::unique_ptr<FastMode> fast_;               // fast mode's queues and schedule, while in fast mode
    uint64_t lookahead_ = 0;                       // set_lookahead
    uint64_t synced_router_steps_ = 0, synced_core_steps_ = 0;   // the steps counts at the last sync_bands
};

}  // namespace wl
