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
// State lives beside a Machine (Machine::fast_); the Machine's Core, Router
// and SRAM state are the same in both modes, so every view of a machine works
// after a fast run.
#pragma once
#include "engine/fabric/machine.h"
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

// to[k] = from[k] + delay for k < n: a block's stamps as it joins a queue down its path, in the
// widest vectors the CPU has (simd.h; integer adds, so every width gives the same stamps).
void add_delay(uint64_t* to, const uint64_t* from, size_t n, uint64_t delay);

struct FastWavelet {
    uint32_t data;
    uint32_t ctrl;      // 1 = control wavelet
    uint64_t at;        // the cycle it is visible at its CE (or reaches its router, while held)
};

// A FIFO on a ring that doubles when full: its storage is the most it ever held
// at once, however many wavelets pass through it. Data, stamps and control bits
// lie in three arrays, so a block of data moves as a copy and its stamps as one
// loop the compiler vectorises. While its stamps are in order (one sender's
// wavelets, as they nearly always are) the latest of a run taken is its last.
class FastQueue {
public:
    FastQueue() = default;
    FastQueue(FastQueue&&) = default;
    FastQueue& operator=(FastQueue&&) = default;
    FastQueue(const FastQueue& o) : FastQueue(o, o.cap_) {}
    FastQueue& operator=(const FastQueue& o) { return *this = FastQueue(o); }
    bool empty() const { return n_ == 0; }
    size_t size() const { return n_; }
    FastWavelet front() const { return FastWavelet{data_[head_], ctrl_[head_], at_[head_]}; }
    uint64_t front_at() const { return at_[head_]; }
    void push(const FastWavelet& w) {
        if (n_ == cap()) grow(1);
        note(w.at, w.at);
        const size_t k = (head_ + n_++) & (cap() - 1);
        data_[k] = w.data, at_[k] = w.at, ctrl_[k] = uint8_t(w.ctrl);
    }
    FastWavelet pop() {
        const FastWavelet w = front();
        head_ = (head_ + 1) & (cap() - 1);
        --n_;
        return w;
    }
    // n data wavelets at the back, stamped at[k] + delay (at nondecreasing). Block moves walk the
    // ring as its two contiguous runs (no wrap per element).
    void push_block(const uint32_t* data, const uint64_t* at, size_t n, uint64_t delay) {
        if (cap() - n_ < n) grow(n);
        if (n) note(at[0] + delay, at[n - 1] + delay);
        const size_t back = (head_ + n_) & (cap() - 1), first = std::min(n, cap() - back);
        put(back, data, at, first, delay);
        put(0, data + first, at + first, n - first, delay);
        n_ += n;
    }
    // The first n, all data, into memory from `to`, `step` bytes apart. Returns the latest of t and their stamps.
    uint64_t pop_into(size_t n, uint8_t* to, int64_t step, uint64_t t) {
        const size_t first = std::min(n, cap() - head_);
        if (ordered_ && n) t = std::max(t, at_[(head_ + n - 1) & (cap() - 1)]);
        t = get(head_, first, to, step, t);
        t = get(0, n - first, to + int64_t(first) * step, step, t);
        head_ = (head_ + n) & (cap() - 1);
        n_ -= n;
        return t;
    }

    // The first n, all data, in order: their data into data[] and their stamps into at[].
    void pop_block(size_t n, uint32_t* data, uint64_t* at) {
        const size_t first = std::min(n, cap() - head_);
        std::memcpy(data, data_.get() + head_, first * 4);
        std::memcpy(data + first, data_.get(), (n - first) * 4);
        std::memcpy(at, at_.get() + head_, first * 8);
        std::memcpy(at + first, at_.get(), (n - first) * 8);
        head_ = (head_ + n) & (cap() - 1);
        n_ -= n;
    }

    size_t room() const { return cap_; }   // wavelets its ring holds
    // Empty and holding room for more than `keep`: its storage goes.
    void shrink(size_t keep) {
        if (n_ == 0 && cap_ > keep) *this = FastQueue();
    }

private:
    size_t cap() const { return cap_; }   // 0 or a power of two
    void put(size_t at, const uint32_t* data, const uint64_t* stamps, size_t n, uint64_t delay) {
        std::memcpy(data_.get() + at, data, n * 4);
        add_delay(at_.get() + at, stamps, n, delay);
        std::memset(ctrl_.get() + at, 0, n);
    }
    uint64_t get(size_t at, size_t n, uint8_t* to, int64_t step, uint64_t t) const {
        const uint32_t* const d = data_.get() + at;   // a local: the stores could alias the member
        if (step == 4) {
            std::memcpy(to, d, n * 4);
        } else {
            for (size_t k = 0; k < n; ++k) std::memcpy(to + int64_t(k) * step, d + k, 4);
        }
        return ordered_ ? t : latest(at_.get() + at, n, t);
    }
    // The latest of t and a[0, n): four running maxima, so the compares do not wait on each other.
    static uint64_t latest(const uint64_t* a, size_t n, uint64_t t) {
        uint64_t m[4] = {t, t, t, t};
        size_t k = 0;
        for (; k + 4 <= n; k += 4)
            for (int j = 0; j < 4; ++j) m[j] = std::max(m[j], a[k + size_t(j)]);
        for (; k < n; ++k) m[0] = std::max(m[0], a[k]);
        return std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
    }
    // Stamps first..last arrive at the back: still in order if first is not before the last one's.
    void note(uint64_t first, uint64_t last) {
        ordered_ = n_ == 0 || (ordered_ && first >= back_at_);
        back_at_ = last;
    }
    // Room for `more` wavelets past the n_ held, in one step.
    void grow(size_t more) {
        const size_t c = cap();
        size_t nc = c ? c * 2 : 16;
        while (nc - n_ < more) nc *= 2;
        *this = FastQueue(*this, nc);
    }
    // o's wavelets in storage for c (a power of two, at least o's size), from slot 0. The slots past
    // them are left unwritten: a slot is read only after a push writes it.
    FastQueue(const FastQueue& o, size_t c) : cap_(c), n_(o.n_), ordered_(o.ordered_), back_at_(o.back_at_) {
        if (!c) return;
        data_.reset(new uint32_t[c]), at_.reset(new uint64_t[c]), ctrl_.reset(new uint8_t[c]);
        for (size_t e = 0; e < n_; ++e) {
            const size_t from = (o.head_ + e) & (o.cap_ - 1);
            data_[e] = o.data_[from], at_[e] = o.at_[from], ctrl_[e] = o.ctrl_[from];
        }
    }
    std::unique_ptr<uint32_t[]> data_;
    std::unique_ptr<uint64_t[]> at_;
    std::unique_ptr<uint8_t[]> ctrl_;
    size_t cap_ = 0, head_ = 0, n_ = 0;
    bool ordered_ = true;    // stamps nondecreasing from the head to the back
    uint64_t back_at_ = 0;   // the back's stamp
};

class FastMode {
public:
    static constexpr size_t kMaxQueued = size_t(1) << 20;   // per CE queue: 16 MiB of wavelets nothing takes is a flood
    // The CE queues' rings keep their room between runs (no allocation per run), unless all of
    // them together hold more than kRoomKept (32 M wavelets, 416 MiB): then an empty one past
    // kQueueKept gives it back at quiescence, so one run's burst (a row's whole input vector at
    // each of a wide mesh's PEs) is not held by every queue it passed through.
    static constexpr size_t kRoomKept = size_t(1) << 25, kQueueKept = 256;
    explicit FastMode(size_t pes);

    // Runs until every PE's clock reaches machine.now() + max_cycles, or nothing can happen
    // (quiescent, or a deadlock fault), or a fault.
    RunResult advance(Machine& m, uint64_t max_cycles, bool stop_when_quiet);

    bool empty() const;                                    // no wavelet in flight, no PE scheduled
    size_t queued(int pe, int colour) const { return ceq_[size_t(pe) * kColours + size_t(colour)].size(); }
    size_t held(int pe, int port, int colour) const;       // wavelets waiting at a router for a switch position
    bool holds_any() const { return !held_.empty(); }
    void forget_paths(Machine& m);                         // a route or a program changed
    void forget_nest_map(int pe) {                         // a program or its constants were placed there
        if (!nest_maps_.pe.empty()) nest_maps_.pe[size_t(pe)].loop = nullptr;
    }
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

    void absorb(Machine& m);               // take over cycle mode's lists, timers and queued wavelets
    void schedule(int pe, uint64_t key);
    void wake(Machine& m, int pe, int colour, uint64_t at);   // a wavelet at `at` joined the PE's queue of `colour`
    bool flush_starved(Machine& m);        // every PE woken late takes what it has; false if there were none
    uint64_t horizon() const;              // no wavelet not yet sent can be visible before this cycle
    // A PE runs at most this many cycles ahead of the PE furthest behind, so what it sends waits in
    // queues (unbounded here) for no longer than that: memory stays near cycle mode's.
    static constexpr uint64_t kRunAhead = 4096;   // docs/engine.md weighs its memory against yields
    uint64_t run_ahead_limit() const;
    void run_pe(Machine& m, int i, uint64_t end);
    void route(Machine& m, int i, int port, int colour, FastWavelet w);
    struct Path {                          // where a data wavelet from one (router, port, colour) goes
        std::vector<std::pair<int, uint8_t>> visits;    // routers in route()'s order, with their tx ports
        std::vector<std::pair<int, uint32_t>> ramps;    // CEs it reaches, and the cycles it takes
        std::vector<std::pair<int, uint32_t>> drains;   // outbound links it leaves by (Machine::drains_ index), and the cycles to them
        bool ok = true;                    // no switch with several positions, nothing held
        uint64_t uncounted = 0;            // data wavelets sent along it since add_counts()
    };
    // A recorded path's wavelets count in its routers' counters when the run stops (add_counts),
    // not one router at a time as each block goes.
    void replayed(uint64_t key, Path& p, uint64_t n) {
        if (!p.uncounted) counting_.push_back(key);
        p.uncounted += n;
    }
    void add_counts(Machine& m);
    void replay(Machine& m, uint64_t key, Path& p, int colour, const FastWavelet& w);
    bool route_block(Machine& m, int i, int port, int colour, const uint32_t* data, const uint64_t* at, size_t n);
    std::vector<uint32_t> block_data_;     // a fabric op's outgoing data wavelets, sent together
    std::vector<uint64_t> block_at_;       // ... and the cycles they enter the router
    void deliver(Machine& m, int i, int colour, FastWavelet w);
    void leave(Machine& m, EdgeDrain& d, const FastWavelet& w);   // out through an outbound edge link, at its rate
    FastWavelet take(int pe, int colour);  // the head of a CE queue, off the counts
    void take_block(int pe, int colour, uint32_t n, uint32_t* data, uint64_t* at) {   // its first n (data), in order, off the counts
        pe_queued_[size_t(pe)] -= n;
        queued_total_ -= n;
        ceq_[size_t(pe) * kColours + size_t(colour)].pop_block(n, data, at);
    }
    // Its first n (data) into memory, off the counts (FastQueue::pop_into).
    uint64_t take_into(int pe, int colour, uint32_t n, uint8_t* to, int64_t step, uint64_t t) {
        pe_queued_[size_t(pe)] -= n;
        queued_total_ -= n;
        return ceq_[size_t(pe) * kColours + size_t(colour)].pop_into(n, to, step, t);
    }
    void release_held(Machine& m, int i, int colour, uint64_t at);

    std::vector<FastQueue> ceq_;           // [pe * kColours + colour]: the CE's input queues
    std::vector<uint32_t> pe_queued_;      // wavelets in each PE's CE queues (so idle PEs are skipped fast)
    size_t queued_total_ = 0;
    size_t room_ = 0;                      // the CE queues' rings, in wavelets (FastQueue::room)
    std::map<uint64_t, FastQueue> held_;   // (pe, port, colour) -> wavelets no current switch position accepts yet
    std::unordered_map<uint64_t, Path> paths_;   // (pe, port, colour) -> the recorded path; cleared when a route or program changes
    struct RampPaths {                     // [pe * kColours + colour] -> paths_'s entry for that ramp (ramp_path);
        std::vector<Path*> at;             // pointers into paths_, so a copy of the machine starts without them
        std::vector<size_t> set;           // the entries not null
        RampPaths() = default;
        RampPaths(const RampPaths&) {}
        RampPaths& operator=(const RampPaths&) { at.clear(), set.clear(); return *this; }
    } ramp_paths_;
    Path* ramp_path(int i, int colour, uint64_t key);
    std::vector<uint64_t> counting_;       // the paths with wavelets not yet in their routers' counters
    Path recording_;
    std::vector<Pe> pe_;
    NestMaps nest_maps_;                   // each PE's last affine nest map (nest_map.h)
    std::vector<Entry> heap_;
    // The PEs scheduled since the last deadlock check that found nothing stuck: no other PE's
    // state has changed since, so the check at quiescence looks at these alone (the whole mesh
    // at first, or while wavelets are held at a router).
    std::vector<int> touched_;
    bool check_all_ = true;
    // The PEs that blocked on a receive and got wavelets that do not finish it yet: they run when
    // the rest comes, or when the run would otherwise stop (flush_starved).
    std::vector<int> starved_;
    std::vector<int> listed_;              // absorb(): the routers that may hold cycle mode's wavelets
    bool scan_routers_ = true;             // ... all of them, the first time
    struct Hop { int i, port; FastWavelet w; };
    std::vector<Hop> hops_;                // route()'s work stack
    int running_ = -1;
    uint64_t end_time_ = 0;                // the latest cycle any PE was busy until
    bool ran_ = false;
    bool looped_ = false;                  // route() found a ring of routes
    int flooded_ = -1;                     // deliver() found this PE's queue at kMaxQueued                     // a PE has run (so end_time_ is an estimate)
};

}  // namespace wl
