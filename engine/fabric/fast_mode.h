// fast_mode.h: fast mode — the same PE programs, run functionally.
//
// Each PE runs with the cycle machine's interpreter (core_exec.h) until it
// blocks. A wavelet is routed at once, through the same routes, multicast and
// switch positions, into an unbounded queue at each CE it reaches, stamped
// with the cycle it would become visible there: send cycle + hops + 2. A
// fabric vector op moves its whole vector in one loop. Each PE keeps its own
// clock: an instruction advances it by its cost, and a receive or a task start
// waits for the later of the clock and the wavelet's stamp. A run's cycle
// count is the latest clock: an estimate of cycle mode's (docs/engine.md, Fast mode).
//
// PEs run in order of their clocks (a min-heap). A PE that must choose which
// task to start next chooses only when no other PE could still send it an
// earlier wavelet, so task order, and so results, do not depend on the
// schedule. What fast mode does not model: link and queue contention, and
// backpressure (queues are unbounded). Programs whose results depend on those
// (streams merged into one colour, a deadlock made by a full queue) can differ
// from cycle mode; docs/engine.md says how.
//
// State lives beside a Machine (Machine::fast_). The PEs' cores, routers and
// SRAM are the MachineState both modes step (machine_state.h), and a wavelet
// goes where the network says (network.h), so every view of a machine works
// after a fast run. The Machine keeps a run's books (Machine::run_fast).
//
// Split across bands of rows (Machine::split, band.h), each band runs its own
// PEs and routes up to its edge; a wavelet that crosses it is handed to the
// next band in windows (fast_band.cpp, docs/scale.md).
#pragma once
#include "engine/core/byte_io.h"
#include "engine/fabric/fast_queue.h"
#include "engine/fabric/machine_state.h"
#include "engine/fabric/nest_map.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <string>
#include <vector>

namespace wl {

class FastMode {
public:
    static constexpr size_t kMaxQueued = size_t(1) << 20;   // per CE queue: 16 MiB of wavelets nothing takes is a flood
    // The CE queues' rings keep their room between runs (no allocation per run), unless all of
    // them together hold more than kRoomKept (32 M wavelets, 416 MiB): then an empty one past
    // kQueueKept gives it back at quiescence, so one run's burst (a row's whole input vector at
    // each of a wide mesh's PEs) is not held by every queue it passed through.
    static constexpr size_t kRoomKept = size_t(1) << 25, kQueueKept = 256;
    explicit FastMode(size_t pes);

    // A run (Machine::run_fast): the PEs that may run, from `key` on (cycle mode's woken CEs and
    // timers, the host's launches), then what waits in the routers that may hold wavelets
    // (listed: a host's inject; every router, the first time) and the edge links.
    void schedule(int pe, uint64_t key);
    void absorb(MachineState& m, const std::vector<int>& listed);
    // Then runs the PEs until every clock reaches end (Slice), nothing can happen (Quiet), or a fault.
    enum class Ended { Quiet, Slice, Fault };
    Ended run(MachineState& m, uint64_t end, uint64_t lookahead = 0);   // PEs may run on to end + lookahead (one machine)
    uint64_t quiet_at() const { return ran_ ? end_time_ + 1 : 0; }   // quiet: cycle mode stops the cycle after its last event
    void add_counts(MachineState& m);      // the recorded paths' wavelets into their routers' counters
    // The PEs whose state changed since a deadlock check last found nothing stuck (nullptr: any may have).
    const std::vector<int>* changed() const { return check_all_ || !held_.empty() ? nullptr : &touched_; }
    void rest();                           // none was stuck: start counting changes anew, give back queue room

    bool empty() const;                                    // no wavelet in flight, no PE scheduled
    size_t queued(int pe, int colour) const { return ceq_[size_t(pe) * kColours + size_t(colour)].size(); }
    size_t held(int pe, int port, int colour) const;       // wavelets waiting at a router for a switch position
    bool holds_any() const { return !held_.empty(); }
    void forget_paths(MachineState& m);                    // a program or an edge link changed: every path goes
    // A route of `colour` changed: that colour's paths go before the next run (drop_stale_paths); the
    // others stay, as no path of another colour crosses a route of this one. (Streaming points its
    // edge links at each PE in turn: forgetting every path then re-recorded every broadcast's.)
    void forget_paths(int colour) { stale_colours_ |= 1u << colour; }
    void forget_nest_map(int pe) { nest_maps_.forget(pe); }   // a program or its constants were placed there
    size_t queued_at(int pe) const { return pe_queued_[size_t(pe)]; }   // over all colours
    uint64_t busy_until() const { return end_time_; }

private:
    friend struct FastPort;
    friend struct FastCore;
    struct Pe {
        uint64_t key = 0;                  // heap key while scheduled
        bool scheduled = false;
        bool touched = false;              // scheduled since the last deadlock check found nothing
        uint32_t wait_n = 0;               // blocked on a receive: wake when colour wait_colour holds this many
        uint8_t wait_colour = 0;
        bool starved = false;              // in starved_
        uint64_t ramp_free = 0;            // the next cycle the ramp takes a wavelet
        uint64_t next[1 + kMicrothreads] = {};   // fabric ops (main thread, microthreads): the earliest cycle of their next element
        uint64_t last[1 + kMicrothreads] = {};   // ... and the cycle of their last element
    };
    struct Entry {
        uint64_t key;
        int pe;
        bool operator>(const Entry& o) const { return key != o.key ? key > o.key : pe > o.pe; }
    };

    void wake(MachineState& m, int pe, int colour, uint64_t at);   // a wavelet at `at` joined the PE's queue of `colour`
    bool flush_starved(MachineState& m);   // every PE woken late takes what it has; false if there were none
    uint64_t horizon() const;              // no wavelet not yet sent can be visible before this cycle
    // A PE runs at most run_ahead_ cycles (MachineConfig::fast_run_ahead, taken at each run) ahead of
    // the PE furthest behind, so what it sends waits in queues (unbounded here) for no longer than
    // that: memory stays bounded.
    uint64_t run_ahead_ = MachineConfig{}.fast_run_ahead;
    static constexpr uint64_t kBandLeash = uint64_t(1) << 18;   // at most a wavelet a cycle: 5.5 MB of outbox a PE
    uint64_t run_ahead_limit() const;
    void run_pe(MachineState& m, int i, uint64_t end);
    uint64_t front();                      // the earliest scheduled PE's key (stale entries dropped), or kNever
    void run_until(MachineState& m, uint64_t limit, uint64_t end);   // the PEs scheduled before limit, in order of their clocks
    Ended run_whole(MachineState& m, uint64_t end, uint64_t lookahead);   // one machine: until quiescent, the slice's end, or a fault
    static uint64_t ring_hops(const MachineState& m);   // more hops than this on one walk: a ring of routes
    // hops: routers the wavelet crossed in other bands before it came here (a ring of routes counts them all).
    void route(MachineState& m, int i, int port, int colour, FastWavelet w, uint64_t hops = 0);
    // A fault route() or deliver() left for the sender (a queue flooded, a ring of routes), in words; empty if none.
    std::string routing_fault(const MachineState& m, bool sent_here);
    struct Path {                          // where a data wavelet from one (router, port, colour) goes
        std::vector<std::pair<int, uint8_t>> visits;    // routers in route()'s order, with their tx ports
        std::vector<std::pair<int, uint32_t>> ramps;    // CEs it reaches, and the cycles it takes
        std::vector<std::pair<int, uint32_t>> drains;   // outbound links it leaves by (Network::drains() index), and the cycles to them
        struct Handoff {
            int router;                    // another band's, where the path goes on (fast_band.cpp)
            int port;                      // ... the port it enters by
            uint32_t delay, hops;          // the cycles to it, and the routers route() had crossed
        };
        std::vector<Handoff> handoffs;
        bool ok = true;                    // no switch with several positions, nothing held
        uint64_t uncounted = 0;            // data wavelets sent along it since add_counts()
        size_t entries() const { return visits.size() + ramps.size() + drains.size() + handoffs.size(); }   // path_entries_'s
    };
    // A recorded path's wavelets count in its routers' counters when the run stops (add_counts),
    // not one router at a time as each block goes.
    void replayed(uint64_t key, Path& p, uint64_t n) {
        if (!p.uncounted) counting_.push_back(key);
        p.uncounted += n;
    }
    void replay(MachineState& m, uint64_t key, Path& p, int colour, const FastWavelet& w, uint64_t hops);
    Path* block_path(int i, int port, int colour, size_t n);
    bool route_block(MachineState& m, int i, int port, int colour, const uint32_t* data, const uint64_t* at, size_t n, uint64_t hops = 0);
    void deliver_run(MachineState& m, const Path& p, int colour, FastBlock* b, uint32_t begin, uint32_t end, uint64_t delay, uint64_t hops = 0);
    static constexpr size_t kShareFrom = 8;   // a shorter block is copied into each queue: its run would cost more
    std::vector<uint32_t> block_data_;     // a fabric op's outgoing data wavelets, sent together
    std::vector<uint64_t> block_at_;       // ... and the cycles they enter the router
    void deliver(MachineState& m, int i, int colour, FastWavelet w);
    void leave(MachineState& m, EdgeDrain& d, const FastWavelet& w);   // out through an outbound edge link, at its rate
    FastWavelet take(int pe, int colour);  // the head of a CE queue, off the counts
    void take_block(int pe, int colour, uint32_t n, uint32_t* data, uint64_t* at) {   // its first n (data), in order, off the counts
        pe_queued_[size_t(pe)] -= n;
        queued_total_ -= n;
        ceq_[size_t(pe) * kColours + size_t(colour)].pop_block(n, data, at);
    }
    void skip(int pe, int colour, uint32_t n) {   // its first n, all of its head's run, off the counts, unread
        pe_queued_[size_t(pe)] -= n;
        queued_total_ -= n;
        ceq_[size_t(pe) * kColours + size_t(colour)].skip(n);
    }
    // Its first n (data) into memory, off the counts (FastQueue::pop_into).
    uint64_t take_into(int pe, int colour, uint32_t n, uint8_t* to, int64_t step, uint64_t t) {
        pe_queued_[size_t(pe)] -= n;
        queued_total_ -= n;
        return ceq_[size_t(pe) * kColours + size_t(colour)].pop_into(n, to, step, t);
    }
    void release_held(MachineState& m, int i, int colour, uint64_t at);

    // [split across bands] (fast_band.cpp)
    Ended run_bands(MachineState& m, uint64_t end);
    // A wavelet, or a block of them (at[k] + delay), into router j of the band above or below.
    void hand_off(const MachineState& m, int j, int port, int colour, const FastWavelet& w, uint64_t hops);
    void hand_off_block(const MachineState& m, int j, int port, int colour, const uint32_t* data, const uint64_t* at, size_t n, uint64_t delay,
                        uint64_t hops);
    // Whether a wavelet into router j from `port`, past `hops` routers, goes round a ring of routes.
    bool rings(const MachineState& m, int j, int port, int colour, uint64_t hops);
    std::vector<std::pair<int, int>> dry_;   // rings()'s work stack
    void take_handoffs(MachineState& m, const std::string& msg);   // a neighbour's, routed on from its routers here
    void enter(MachineState& m, int j, int port, int colour, const uint32_t* data, const uint64_t* at, size_t n, uint64_t hops);
    void route_in(MachineState& m, int j, int port, int colour, const FastWavelet& w, uint64_t hops);
    struct Outbox {
        ByteWriter w;
        uint64_t first = kNever;           // the earliest cycle any of it reaches its router
    };
    Outbox out_[2];                        // to the band above, and below
    ByteWriter& record(const MachineState& m, uint8_t kind, int j, int port, int colour, uint64_t hops, uint64_t first);
    // No wavelet from another band (or handed off from here and coming back) is visible at this
    // band's first row before remote_up_, nor at its last before remote_down_; a row further in,
    // a cycle later for each row. A PE chooses a task only before its row's (remote_at).
    uint64_t remote_up_ = kNever, remote_down_ = kNever;
    int w_ = 1, y0_ = 0, y1_ = 0;          // the mesh's width, and this band's rows (horizon() has no Machine)
    uint64_t remote_at(int pe) const;      // kNever when not split
    std::vector<Entry> parked_;            // PEs that stopped past their row's bound (to choose, or on the leash): the next window's
    std::vector<uint32_t> in_data_;        // a handed-in block's words and stamps
    std::vector<uint64_t> in_at_;

    std::vector<FastQueue> ceq_;           // [pe * kColours + colour]: the CE's input queues
    std::vector<uint32_t> pe_queued_;      // wavelets in each PE's CE queues (so idle PEs are skipped fast)
    size_t queued_total_ = 0;
    size_t room_ = 0;                      // the CE queues' rings, in wavelets (FastQueue::room)
    std::map<uint64_t, FastQueue> held_;   // (pe, port, colour) -> wavelets no current switch position accepts yet
    std::unordered_map<uint64_t, Path> paths_;   // (pe, port, colour) -> the recorded path; cleared when a route or program changes, or past the budget below
    // A broadcast's path spans a row or a column, and a SUMMA's sender sends one block a step on
    // it: kept, its paths would grow as P^3 (9 GB at 512 x 512). Past MachineConfig's
    // fast_path_entries entries (visits, ramps, drains and hand-offs) the paths are forgotten
    // between two PEs' runs, their counts added first, and recorded again as they are used.
    size_t path_entries_ = 0;
    struct RampPaths {                     // [pe * kColours + colour] -> paths_'s entry for that ramp (ramp_path);
        std::vector<Path*> at;             // pointers into paths_, so a copy of the machine starts without them
        std::vector<size_t> set;           // the entries not null
        RampPaths() = default;
        RampPaths(const RampPaths&) {}
        RampPaths& operator=(const RampPaths&) { at.clear(), set.clear(); return *this; }
    } ramp_paths_;
    Path* ramp_path(int i, int colour, uint64_t key);
    std::vector<uint64_t> counting_;       // the paths with wavelets not yet in their routers' counters
    uint32_t stale_colours_ = 0;           // forget_paths(colour)'s, not yet dropped
    std::vector<uint64_t> keys_of_[kColours];   // paths_'s keys by colour, as recorded
    void drop_stale_paths(MachineState& m);
    Path recording_;
    std::vector<Pe> pe_;
    NestMaps nest_maps_;                   // each PE's affine nest maps, by the state worked out from (nest_map.h)
    std::vector<Entry> heap_;
    // The PEs scheduled since the last deadlock check that found nothing stuck: no other PE's
    // state has changed since, so the check at quiescence looks at these alone (the whole mesh
    // at first, or while wavelets are held at a router).
    std::vector<int> touched_;
    bool check_all_ = true;
    // The PEs that blocked on a receive and got wavelets that do not finish it yet: they run when
    // the rest comes, or when the run would otherwise stop (flush_starved).
    std::vector<int> starved_;
    std::vector<int> all_routers_;         // absorb()'s list the first time: every router of this band
    bool scan_routers_ = true;
    struct Hop { int i, port; FastWavelet w; };
    std::vector<Hop> hops_;                // route()'s work stack
    int running_ = -1;
    uint64_t end_time_ = 0;                // the latest cycle any PE was busy until
    bool ran_ = false;                     // a PE has run (so end_time_ is an estimate)
    bool looped_ = false;                  // route() found a ring of routes
    int flooded_ = -1;                     // deliver() found this PE's queue at kMaxQueued
};

}  // namespace wl
