// machine_band.cpp: a Machine that steps one band of the mesh's rows (band.h). The run loop
// moves every band together, cycle by cycle: after each cycle the bands trade their boundary
// queues' pushes and pops, then agree (one max over every band) on a fault, on whether anything
// moved, and on the next cycle anything can happen; each band then does what one machine would
// with that answer. At the end of a run every band takes the others' cores, counters and SRAM,
// so the host's calls between runs see on every band what one machine would show.
#include "engine/fabric/machine.h"

#include "engine/core/byte_io.h"

#include <algorithm>
#include <cstring>

namespace wl {

namespace {
enum : uint8_t { kPush = 1, kPops = 2 };   // boundary_changes' records
}

Fault Machine::split(BandLink* link) {
    if (fault_) return fault_;
    if (!link || link->ranks() < 1 || link->rank() < 0 || link->rank() >= link->ranks())
        return host_error(-1, -1, "split: no band link, or a rank outside it");
    if (link->ranks() > cfg_.h)
        return host_error(-1, -1, "split: " + std::to_string(link->ranks()) + " bands for a mesh of " + std::to_string(cfg_.h) +
                                      " rows; each band needs at least one row (use at most " + std::to_string(cfg_.h) + ")");
    if (!net_.feeds().empty() || !net_.drains().empty()) return host_error(-1, -1, "split: edge links are not split across bands (docs/scale.md)");
    link_ = link;
    band_ = band_of(link->rank(), link->ranks(), cfg_.h);
    own0_ = band_.y0 * cfg_.w, own1_ = band_.y1 * cfg_.w;
    for (ActiveList* l : {&rnow_, &rnext_, &cnow_, &cnext_}) {   // what waits elsewhere is another band's
        size_t k = 0;
        for (size_t j = 0; j < l->n; ++j)
            if (owns(l->v[j])) l->v[k++] = l->v[j];
        l->n = k;
    }
    timers_.erase(std::remove_if(timers_.begin(), timers_.end(), [&](const Timer& t) { return !owns(t.pe); }), timers_.end());
    std::make_heap(timers_.begin(), timers_.end(), std::greater<Timer>());
    synced_router_steps_ = router_steps_, synced_core_steps_ = core_steps_;
    return {};
}

RunResult Machine::run_bands(uint64_t cycles, bool stop_when_quiet) {
    RunResult res;
    const uint64_t start = now_, end = now_ + cycles;
    auto finish = [&](RunStatus s) {
        sync_bands();
        res.status = fault_ ? RunStatus::Faulted : s;
        res.fault = fault_;
        res.cycles = now_ - start;
        return res;
    };
    if (fault_) return finish(RunStatus::Faulted);   // every band holds the same one
    // This band's next event: now while anything is listed, else its next timer.
    auto next_here = [&] { return !rnow_.empty() || !cnow_.empty() ? now_ : timers_.empty() ? kNever : timers_.front().at; };
    uint64_t v[3] = {0, 0, ~next_here()};
    link_->max(v, 3);
    uint64_t next = ~v[2];
    while (true) {
        if (next == kNever) {   // nothing will ever happen again, on any band: done, or deadlocked
            if (!band_deadlock()) return finish(RunStatus::Faulted);
            if (!stop_when_quiet) now_ = std::max(now_, end);
            return finish(RunStatus::Quiescent);
        }
        if (next >= end) {
            now_ = end;
            return finish(RunStatus::CyclesDone);
        }
        now_ = std::max(now_, next);   // idle skip, to the earliest band's next event
        cycle_step();
        band_ran_ = true;
        band_exchange();
        // Any fault; anything moved or waiting on a timer; the next event (as ~, so max finds the least).
        v[0] = fault_ ? 1 : 0, v[1] = progress_ != 0 || !timers_.empty(), v[2] = ~next_here();
        link_->max(v, 3);
        if (v[0]) {   // the first band's fault is the lowest PE's, as Machine::raise keeps in one machine
            const std::vector<std::string> all = link_->gather(fault_ ? fault_bytes(fault_) : std::string());
            for (const std::string& b : all)
                if (!b.empty()) {
                    fault_ = fault_from_bytes(b);
                    break;
                }
            return finish(RunStatus::Faulted);
        }
        next = ~v[2];
        if (!v[1]) {   // a cycle without progress and without timers, on every band
            if (!band_deadlock()) return finish(RunStatus::Faulted);
            next = kNever;   // band_deadlock emptied the lists
        }
    }
}

// What this band changed at its boundary with the band across ghost_row, in the cycle just run:
// the wavelets it pushed into that row's ghost_port queues (those routers' port facing this band)
// and the slots it popped from its own row's own_port queues (which that band fills).
std::string Machine::boundary_changes(int ghost_row, int ghost_port, int own_row, int own_port) const {
    const uint64_t t = now_ - 1;
    ByteWriter w;
    for (int x = 0; x < cfg_.w; ++x) {
        const Router& g = net_[size_t(idx(x, ghost_row))];
        if (g.mark_cycle == t)
            for (uint32_t m = g.pushed[ghost_port]; m; m &= m - 1) {   // at most one push a cycle: the tail
                const int c = __builtin_ctz(m);
                const PortQueue& q = g.q[ghost_port][c];
                w.u8(kPush);
                w.put(uint16_t(x));
                w.u8(uint8_t(c));
                w.u8(uint8_t(q.ctrl >> (q.count - 1) & 1));
                w.u32(q.slot[q.count - 1]);
            }
        const Router& o = net_[size_t(idx(x, own_row))];
        if (o.mark_cycle == t && o.popped[own_port]) {
            w.u8(kPops);
            w.put(uint16_t(x));
            w.u32(o.popped[own_port]);
        }
    }
    return w.take();
}

// The other band's boundary_changes, seen from here: its pushes land in this band's own_row, its
// pops free this band's ghost_row. A queue gains at its tail and loses at its head, and a wavelet
// pushed in a cycle cannot be popped in it, so the order of the two never matters.
void Machine::apply_boundary(const std::string& msg, int ghost_row, int ghost_port, int own_row, int own_port) {
    ByteReader r(msg);
    while (r.left()) {
        const uint8_t kind = r.u8("boundary record");
        const int x = r.get<uint16_t>("boundary x");
        if (kind == kPush) {
            const int c = r.u8("boundary colour");
            const bool ctrl = r.u8("boundary ctrl");
            const uint32_t w = r.u32("boundary word");
            const int i = idx(x, own_row);
            net_[size_t(i)].push(own_port, c, w, ctrl);
            wake_router(i, now_);
        } else {
            Router& g = net_[size_t(idx(x, ghost_row))];
            for (uint32_t m = r.u32("boundary pops"); m; m &= m - 1) {
                bool ctrl;
                g.pop(ghost_port, __builtin_ctz(m), &ctrl);
            }
        }
    }
}

void Machine::band_exchange() {
    const bool up = band_.y0 > 0, down = band_.y1 < cfg_.h;
    const std::string to_up = up ? boundary_changes(band_.y0 - 1, kSouth, band_.y0, kNorth) : std::string();
    const std::string to_down = down ? boundary_changes(band_.y1, kNorth, band_.y1 - 1, kSouth) : std::string();
    std::string from_up, from_down;
    link_->exchange(to_up, to_down, &from_up, &from_down);
    if (up) apply_boundary(from_up, band_.y0 - 1, kSouth, band_.y0, kNorth);
    if (down) apply_boundary(from_down, band_.y1, kNorth, band_.y1 - 1, kSouth);
}

// Each band's rows to every band: its routers' counters, its cores (registers, threads, counters)
// and the SRAM each core has used, with its steps since the last sync. What a host call, a report
// or a checksum reads is then whole on every band. The other bands' queues and switch positions
// are not sent: only their own band steps them, and the rows next to a band's (its ghosts) are
// kept exact cycle by cycle (band_exchange).
void Machine::sync_bands() {
    if (!band_ran_) return;   // every band made the same host calls since: each holds the same machine
    band_ran_ = false;
    if (link_->ranks() == 1) return;   // one band: its rows are the machine
    const size_t S = cfg_.sram_bytes, n = size_t(own1_ - own0_);
    size_t used = 0;
    for (int i = own0_; i < own1_; ++i) used += cores_[size_t(i)].sram_used;
    ByteWriter w;
    w.reserve(16 + n * (sizeof(RouterStats) + sizeof(Core)) + used);
    w.u64(router_steps_ - synced_router_steps_);
    w.u64(core_steps_ - synced_core_steps_);
    for (int i = own0_; i < own1_; ++i) w.raw({reinterpret_cast<const char*>(&net_[size_t(i)].stats), sizeof(RouterStats)});
    w.raw({reinterpret_cast<const char*>(&cores_[size_t(own0_)]), n * sizeof(Core)});
    for (int i = own0_; i < own1_; ++i) w.raw({reinterpret_cast<const char*>(sram_.get() + size_t(i) * S), cores_[size_t(i)].sram_used});
    const std::vector<std::string> all = link_->gather(w.take());
    uint64_t rs = synced_router_steps_, cs = synced_core_steps_;
    for (int b = 0; b < int(all.size()); ++b) {
        ByteReader r(all[size_t(b)]);
        rs += r.u64("router steps");
        cs += r.u64("core steps");
        if (b == link_->rank()) continue;
        const Band o = band_of(b, link_->ranks(), cfg_.h);
        const size_t i0 = size_t(o.y0) * size_t(cfg_.w), m = size_t(o.y1 - o.y0) * size_t(cfg_.w);
        for (size_t k = 0; k < m; ++k) std::memcpy(&net_[i0 + k].stats, r.raw(sizeof(RouterStats), "router counters").data(), sizeof(RouterStats));
        const std::string_view cores = r.raw(m * sizeof(Core), "cores");
        for (size_t k = 0; k < m; ++k) {
            Core c;
            std::memcpy(static_cast<void*>(&c), cores.data() + k * sizeof(Core), sizeof(Core));
            uint8_t* mem = sram_.get() + (i0 + k) * S;
            const uint32_t had = cores_[i0 + k].sram_used;
            std::memcpy(mem, r.raw(c.sram_used, "sram").data(), c.sram_used);
            if (had > c.sram_used) std::memset(mem + c.sram_used, 0, had - c.sram_used);
            std::memcpy(static_cast<void*>(&cores_[i0 + k]), &c, sizeof(Core));
        }
    }
    router_steps_ = synced_router_steps_ = rs;
    core_steps_ = synced_core_steps_ = cs;
}

std::vector<Stuck> Machine::band_stuck(bool include_running) const {
    std::vector<Stuck> st;
    for (const std::string& b : link_->gather(stuck_bytes(stuck(include_running))))
        for (Stuck& s : stuck_from_bytes(b))
            if (st.size() < cfg_.max_stuck_reported) st.push_back(std::move(s));
    return st;
}

bool Machine::band_deadlock() {
    std::vector<Stuck> st = band_stuck(false);
    if (st.empty()) {
        rnow_.clear();
        cnow_.clear();
        return true;
    }
    sync_bands();   // the fault names the first place's kernel line, which its band's core holds
    fault_ = deadlock_fault(std::move(st));
    return false;
}

}  // namespace wl
