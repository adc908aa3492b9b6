// fast_band.cpp: fast mode on one band of a split mesh (band.h, docs/scale.md).
//
// Each band runs its own PEs in order of their clocks and routes what they send up to its edge.
// A wavelet that would enter another band's router is handed off: it waits in an outbox (a
// block of a fabric op's wavelets as one record) until the bands next exchange, and the band it
// enters routes it on from that router, at the stamps it had. So a band never touches another
// band's routers, queues or switches.
//
// The bands run in windows, conservatively (Chandy and Misra's lookahead; the global window of
// Nicol's YAWNS, "The cost of conservative synchronization in parallel discrete event
// simulations", JACM 1993). Between windows every band says, in one gather:
//   - its front: the earliest key of its scheduled PEs (no PE there sends before it);
//   - the earliest cycle anything in its outbox reaches its router;
//   - whether it faulted, and whether PEs wait short of a receive (starved).
// A wavelet sent at cycle s reaches the next band's router at s + 2 at the soonest and its CE at
// s + 3, and crosses a row a cycle; one handed off at a reaches the CE of the row it left at
// a + 2 at the soonest. So nothing from elsewhere is visible at this band's first row before
//     remote_up_ = min(over bands above: min(front + 2, outbox) + 1, own outbox up + 2),
// at its last row before remote_down_ (the same from below), and d rows in, d cycles later
// (remote_at); the bounds fall as this band hands off more during the window. In the window a PE
// chooses a task (and task control waits for microthreads) only before min(this band's front + 2,
// its row's bound), as in one machine it does only before the front + 2. A PE that must wait past
// its row's bound is parked until the next window: its key is past the bound, and so is anything it
// could send to another row's PE (the bound rises a cycle a row), so the front may leave it out.
// Plain code, receives and sends need no bound, and run as far as their data allows. What a
// choice or a receive sees is then what one machine would show it: every wavelet visible by then
// has been routed here. A queue fed by one sender gets that sender's wavelets in its order,
// whichever window they come in, so results do not depend on the number of bands (programs that
// merge two senders into one colour already depend on the schedule in one machine: docs/engine.md,
// Fast mode).
//
// The band with the earliest front can always run (its bounds are at least its front + 3), so
// every window moves. When no band has a PE before the slice's end and no outbox holds anything,
// every band flushes its starved PEs (as one machine does before it stops) or the run ends there,
// quiescent or at the slice's end, on every band alike.
#include "engine/fabric/fast_mode.h"

#include <algorithm>
#include <cstring>

namespace wl {

namespace {
enum : uint8_t { kOne = 1, kBlock = 2 };   // an outbox's records
}

// A record's head into the outbox toward router j's band (above this one, or below), for a wavelet
// that reaches j at cycle `first` at the soonest: the outbox's earliest, and the bound on what may
// come back across that edge, follow it. The body follows the head.
ByteWriter& FastMode::record(const MachineState& m, uint8_t kind, int j, int port, int colour, uint64_t hops, uint64_t first) {
    const bool up = j < m.own0_;
    Outbox& o = out_[up ? 0 : 1];
    uint64_t& back = up ? remote_up_ : remote_down_;
    o.w.u8(kind);
    o.w.u32(uint32_t(j));
    o.w.u8(uint8_t(port));
    o.w.u8(uint8_t(colour));
    o.w.u64(hops);
    o.first = std::min(o.first, first);
    back = std::min(back, first + 2);   // it may come back round
    return o.w;
}

void FastMode::hand_off(const MachineState& m, int j, int port, int colour, const FastWavelet& w, uint64_t hops) {
    ByteWriter& b = record(m, kOne, j, port, colour, hops, w.at);
    b.u8(uint8_t(w.ctrl));
    b.u32(w.data);
    b.u64(w.at);
}

void FastMode::hand_off_block(const MachineState& m, int j, int port, int colour, const uint32_t* data, const uint64_t* at, size_t n,
                              uint64_t delay, uint64_t hops) {
    if (!n) return;
    ByteWriter& b = record(m, kBlock, j, port, colour, hops, at[0] + delay);   // stamps nondecreasing
    b.u64(delay);
    b.u32(uint32_t(n));
    b.raw({reinterpret_cast<const char*>(data), n * sizeof(uint32_t)});
    b.raw({reinterpret_cast<const char*>(at), n * sizeof(uint64_t)});
}

// The walk route() would make from there, dry, through the other bands' routers as well: their
// routes are the same on every band, but a switch with several positions there may have moved
// since, so the walk ends at one. One machine's route() finds a ring of routes at the wavelet's
// sender, and stops it there (fast_mode.h); so does this, before the wavelet leaves the band.
bool FastMode::rings(const MachineState& m, int j, int port, int c, uint64_t hops) {
    const uint64_t most = ring_hops(m);
    dry_.clear();
    dry_.push_back({j, port});
    while (!dry_.empty()) {
        const auto [i, p] = dry_.back();
        dry_.pop_back();
        if (++hops > most) return true;
        const Router& r = m.net_[size_t(i)];
        const SwitchPos sp = r.cur_sw[c];
        if ((!m.owns(i) && r.npos[c] > 1) || !(sp.rx >> p & 1)) continue;
        for (uint32_t tx = sp.tx; tx; tx &= tx - 1) {
            const int d = __builtin_ctz(tx);
            if (d == kRamp || m.net_.off_mesh(i, d)) continue;
            const int next = m.net_.neighbour(i, d);
            if (m.net_.accepts(next, opposite(Port(d)), c)) dry_.push_back({next, opposite(Port(d))});
        }
    }
    return false;
}

// A block into router j from `port`, as route_block or one route() each: a path recorded (by the
// first wavelet, if none was) carries the rest as one block.
void FastMode::enter(MachineState& m, int j, int port, int c, const uint32_t* data, const uint64_t* at, size_t n, uint64_t hops) {
    for (size_t k = 0; k < n && !m.fault_; ++k) {
        if (route_block(m, j, port, c, data + k, at + k, n - k, hops)) return;
        route_in(m, j, port, c, FastWavelet{data[k], 0, at[k]}, hops);
    }
}

// route(), for a wavelet from another band: a fault its walk leaves (a flooded queue, a ring of
// routes) is raised at the router it came in by, as there is no sender here.
void FastMode::route_in(MachineState& m, int j, int port, int c, const FastWavelet& w, uint64_t hops) {
    route(m, j, port, c, w, hops);
    if (std::string why = routing_fault(m, false); !why.empty()) {
        m.raise(FaultKind::Deadlock, j, c, m.cores_[size_t(j)].task, -1, std::move(why));
        m.fault_.cycle = w.at;
    }
}

void FastMode::take_handoffs(MachineState& m, const std::string& msg) {
    ByteReader r(msg);
    while (r.left() && !m.fault_) {
        const uint8_t kind = r.u8("hand-off");
        const int j = int(r.u32("hand-off router"));
        const int port = r.u8("hand-off port"), c = r.u8("hand-off colour");
        const uint64_t hops = r.u64("hand-off hops");
        if (kind == kOne) {
            FastWavelet w;
            w.ctrl = r.u8("hand-off ctrl");
            w.data = r.u32("hand-off word");
            w.at = r.u64("hand-off cycle");
            route_in(m, j, port, c, w, hops);
            continue;
        }
        const uint64_t delay = r.u64("hand-off delay");
        const size_t n = r.u32("hand-off block");
        in_data_.resize(n), in_at_.resize(n);
        std::memcpy(in_data_.data(), r.raw(n * sizeof(uint32_t), "hand-off words").data(), n * sizeof(uint32_t));
        std::memcpy(in_at_.data(), r.raw(n * sizeof(uint64_t), "hand-off cycles").data(), n * sizeof(uint64_t));
        add_delay(in_at_.data(), in_at_.data(), n, delay);
        enter(m, j, port, c, in_data_.data(), in_at_.data(), n, hops);
    }
}

FastMode::Ended FastMode::run_bands(MachineState& m, uint64_t end) {
    BandLink& link = *m.link_;
    const int me = link.rank(), n = link.ranks();
    m.band_ran_ = true;
    w_ = m.cfg_.w, y0_ = m.band_.y0, y1_ = m.band_.y1;
    for (;;) {
        // Agree: every band's front, outbox, fault and starved PEs.
        ByteWriter w;
        w.u64(front());
        w.u64(std::min(out_[0].first, out_[1].first));
        w.u8(m.fault_ ? 1 : 0);
        w.u8(starved_.empty() ? 0 : 1);
        const std::vector<std::string> all = link.gather(w.take());
        uint64_t fronts = kNever, outboxes = kNever;
        bool faulted = false, starved = false;
        remote_up_ = out_[0].first == kNever ? kNever : out_[0].first + 2;
        remote_down_ = out_[1].first == kNever ? kNever : out_[1].first + 2;
        for (int b = 0; b < n; ++b) {
            ByteReader r(all[size_t(b)]);
            const uint64_t f = r.u64("front"), o = r.u64("outbox");
            faulted |= r.u8("fault") != 0;
            starved |= r.u8("starved") != 0;
            fronts = std::min(fronts, f), outboxes = std::min(outboxes, o);
            const uint64_t reach = std::min(f == kNever ? kNever : f + 2, o);   // the soonest it reaches a router beyond it
            uint64_t& edge = b < me ? remote_up_ : remote_down_;   // it comes in across that edge
            if (b != me && reach != kNever) edge = std::min(edge, reach + 1);
        }
        if (faulted) {   // the earliest fault, the lowest PE within a cycle
            const std::vector<std::string> faults = link.gather(m.fault_ ? fault_bytes(m.fault_) : std::string());
            Fault first;
            for (const std::string& b : faults) {
                if (b.empty()) continue;
                Fault f = fault_from_bytes(b);
                if (!first || f.cycle < first.cycle || (f.cycle == first.cycle && f.y * m.cfg_.w + f.x < first.y * m.cfg_.w + first.x))
                    first = std::move(f);
            }
            m.fault_ = std::move(first);
            remote_up_ = remote_down_ = kNever;
            return Ended::Fault;
        }
        if (outboxes == kNever && fronts >= end) {   // nothing moves before the slice's end, anywhere
            if (starved) {
                flush_starved(m);
                continue;
            }
            uint64_t v[2] = {ran_ ? 1u : 0u, end_time_};
            link.max(v, 2);
            ran_ = v[0] != 0, end_time_ = v[1];
            remote_up_ = remote_down_ = kNever;
            return fronts == kNever ? Ended::Quiet : Ended::Slice;
        }
        run_until(m, end, end);
        // Exchange: the outboxes to the neighbours, what they handed here routed on.
        const std::string up = out_[0].w.take(), down = out_[1].w.take();
        out_[0] = Outbox(), out_[1] = Outbox();
        std::string from_up, from_down;
        link.exchange(up, down, &from_up, &from_down);
        take_handoffs(m, from_up);
        take_handoffs(m, from_down);
        for (const Entry& e : parked_) schedule(e.pe, e.key);   // the next window may run them
        parked_.clear();
    }
}

}  // namespace wl
