// fast_mode.cpp: fast mode's scheduler, its fabric (routes resolved at send),
// and its compute-engine driver (a PE runs until it blocks).
//
// Index of this file:
//   [SECTION] the port: what a CE sees in fast mode
//   [SECTION] the driver: one PE until it blocks
//   [SECTION] the fabric: routes resolved at send
//   [SECTION] the scheduler
#include "engine/fabric/fast_mode.h"

#include "engine/fabric/core_exec.h"

#include "engine/core/thousands.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace wl {

// [SECTION] the port: what a CE sees in fast mode

struct FastPort {
    FastMode& f;
    MachineState& m;
    const int i;
    Core& ce;
    const uint64_t* clock = nullptr;       // the driver's clock, for fault cycles

    FastQueue& q(int c) { return f.ceq_[size_t(i) * kColours + size_t(c)]; }
    uint64_t recv_at(int c) { return q(c).empty() ? kNever : q(c).front_at(); }
    bool head_ctrl(int c) { return q(c).front().ctrl; }
    uint32_t pop(int c) { return f.take(i, c).data; }
    uint64_t ramp_at(int) const { return f.pe_[size_t(i)].ramp_free; }   // the interpreter waits for the later of this and now
    bool routed(int c) const { return m.net_[size_t(i)].rx_any[c] & kR; }
    void send(int c, uint32_t w, bool ctrl, uint64_t t) {
        f.pe_[size_t(i)].ramp_free = t + 1;   // one wavelet up the ramp per cycle
        m.net_[size_t(i)].stats.in[kRamp]++;
        f.route(m, i, kRamp, c, FastWavelet{w, ctrl ? 1u : 0u, t + 1});
        if (std::string why = f.routing_fault(m, true); !why.empty())
            fault(FaultKind::Deadlock, c, ce.task, int32_t(ce.state == ThreadState::Vec ? ce.vop.pc : ce.pc), std::move(why));
    }
    // A fabric op's wavelets from this CE, in order (stamps nondecreasing): one pass along the
    // recorded path when there is one, else one send() each (which records it, or faults). A
    // first send() records the path that the rest then follow.
    void send_block(int c, const uint32_t* data, const uint64_t* at, size_t n) {
        for (size_t k = 0; k < n && !m.fault_; ++k) {
            if (f.route_block(m, i, kRamp, c, data + k, at + k, n - k)) {
                ramp_sent(n - k);
                f.pe_[size_t(i)].ramp_free = at[n - 1];
                return;
            }
            send(c, data[k], false, at[k] - 1);
        }
    }
    void ramp_sent(size_t n) { m.net_[size_t(i)].stats.in[kRamp] += n; }   // n wavelets up the ramp
    void timer(uint64_t) {}                 // the driver runs on; it needs no wake-ups
    template <class Same>
    NestMap& nest_map(const FmacsLoop* L, uint64_t key, Same same, bool* fresh) {   // this PE's for which same() holds, or one to work out (nest_map.h)
        return f.nest_maps_.find(i, f.pe_.size(), L, key, same, fresh);
    }
    const NestMap* nest_map_at(int32_t k) const { return f.nest_maps_.at(i, k); }
    void fault(FaultKind k, int colour, int task, int32_t pc, std::string msg) {
        const bool first = !m.fault_;
        m.raise(k, i, colour, task, pc, std::move(msg));
        if (first && m.fault_ && clock) m.fault_.cycle = *clock;
    }
    bool faulted() const { return bool(m.fault_); }
    bool tracing() const { return false; }  // fast mode records no trace: animation is cycle mode's
    void trace(uint64_t, TraceKind, uint8_t, int16_t, uint32_t) {}
};

// [SECTION] the driver: one PE until it blocks

struct FastCore : CoreExec<FastPort> {
    FastMode::Pe& st;
    FastCore(FastPort& p, Core& c, uint8_t* m, uint32_t sram, const LoadedProgram* l, int pick, int simd_fp32, FastMode::Pe& s)
        : CoreExec(p, c, m, sram, l, pick, simd_fp32, c.ready_at), st(s) {
        p.clock = &now;
    }

    // Moves a fabric op's elements as far as its queues allow, one element per cycle at most
    // through the ramp, as cycle mode does. Returns true when the op is complete; its last
    // element's cycle is then st.last[slot].
    bool progress(VecOp& v, int slot) {
        const bool two = v.op != Op::FSUMS && two_sources(v.op);
        const int ina = v.a.kind == DsdKind::FabIn ? v.a.colour : -1;
        const int inb = two && v.b.kind == DsdKind::FabIn ? v.b.colour : -1;
        const bool out = v.op != Op::FSUMS && v.dst.kind == DsdKind::FabOut;
        uint32_t n = v.n - v.i;
        if (ina >= 0) n = std::min<uint32_t>(n, uint32_t(ina == inb ? port.q(ina).size() / 2 : port.q(ina).size()));
        if (inb >= 0 && inb != ina) n = std::min<uint32_t>(n, uint32_t(port.q(inb).size()));
        if (n) {
            if (!mem_ok(v.a, v.i, n, v.pc) || (two && !mem_ok(v.b, v.i, n, v.pc)) || (v.op != Op::FSUMS && !mem_ok(v.dst, v.i, n, v.pc)))
                return false;
            if (out && !ramp_route_ok(v.dst.colour, v.pc)) return false;
        }
        uint64_t t = st.next[slot];
        // This chunk's output wavelets, in the fabric's buffers (grown, never cleared: no fill per chunk).
        if (out && port.f.block_data_.size() < n) port.f.block_data_.resize(n), port.f.block_at_.resize(n);
        uint32_t* const block = port.f.block_data_.data();   // locals: the stores could alias the vectors and st
        uint64_t* const block_at = port.f.block_at_.data();
        uint32_t nb = 0;
        auto get = [&](const Dsd& d, uint32_t k) -> float {
            if (d.kind != DsdKind::FabIn) return load(d, k);
            const FastWavelet w = port.f.take(port.i, d.colour);
            if (w.at > t) t = w.at;
            ce.stats.received++;
            return f32(w.data);
        };
        if (v.op == Op::FMOVS && ina >= 0 && !out && n) {   // the common receive into memory: one pass
            t = port.f.take_into(port.i, ina, n, mem + v.dst.base + int64_t(v.i) * v.dst.stride * 4, int64_t(v.dst.stride) * 4, t);
            ce.stats.received += n;
            st.last[slot] = t;
        } else if (v.op == Op::FMOVS && ina >= 0 && out && n) {   // a relay (receive and send on): one pass
            // Element k goes up the ramp at s_k = max(s_{k-1} + 1, its arrival a_k), the first not
            // before t or the ramp's free cycle: s_k - k is the running maximum of a_j - j, one
            // compare an element (no chain through the ramp).
            nb = n - relay_runs(ina, v.dst.colour, n, t, slot);
            if (nb) {
                port.f.take_block(port.i, ina, nb, block, block_at);
                int64_t m = int64_t(std::max(t, st.ramp_free));
                for (uint32_t k = 0; k < nb; ++k) {
                    m = std::max(m, int64_t(block_at[k]) - int64_t(k));
                    block_at[k] = uint64_t(m + int64_t(k)) + 1;   // it enters the router the cycle after
                }
                st.last[slot] = block_at[nb - 1] - 1;
                t = st.ramp_free = block_at[nb - 1];
            }
            ce.stats.received += n;
            ce.stats.sent += n;
        } else if (v.op == Op::FMOVS && ina < 0 && out && n) {   // the common send from memory: one pass
            // One wavelet up the ramp per cycle: after the first, each goes the cycle after the last.
            const uint64_t t0 = std::max(t, st.ramp_free);
            const uint8_t* const src = mem + v.a.base + int64_t(v.i) * v.a.stride * 4;   // locals: the stores could alias v
            const int64_t step = int64_t(v.a.stride) * 4;
            if (step == 4) std::memcpy(block, src, size_t(n) * 4);
            else
                for (uint32_t k = 0; k < n; ++k) std::memcpy(&block[k], src + int64_t(k) * step, 4);
            for (uint32_t k = 0; k < n; ++k) block_at[k] = t0 + 1 + k;
            nb = n;
            ce.stats.sent += n;
            st.last[slot] = t0 + n - 1;
            t = st.ramp_free = t0 + n;
        } else {
            for (uint32_t k = v.i, e = v.i + n; k < e; ++k) {
                const float x = get(v.a, k);
                if (v.op == Op::FSUMS) {
                    v.scalar = u32(f32(v.scalar) + x);
                    st.last[slot] = t;
                    continue;
                }
                const float y = two ? get(v.b, k) : 0.0f;
                const float r = elem(v, x, y);
                if (out) {
                    if (st.ramp_free > t) t = st.ramp_free;
                    st.ramp_free = t + 1;   // one wavelet up the ramp per cycle
                    block[nb] = u32(r), block_at[nb] = t + 1, ++nb;
                    ce.stats.sent++;
                    st.last[slot] = t++;
                } else {
                    store(v.dst, k, r);
                    st.last[slot] = t;
                }
            }
        }
        if (out) port.send_block(v.dst.colour, block, block_at, nb);
        st.next[slot] = t;
        v.i += n;
        count_elems(v, n);
        if (v.i < v.n) return false;
        if (v.n == 0) st.last[slot] = t;
        return true;
    }

    // A relay's leading runs of a block with consecutive stamps go on as runs of the same block
    // (fast_queue.h): a_k = a_0 + k makes s_k = max(t, the ramp's free cycle, a_0) + k, so only
    // the delay changes and no word is copied. Returns how many of n it sent.
    uint32_t relay_runs(int in, int out, uint32_t n, uint64_t& t, int slot) {
        FastMode& f = port.f;
        uint32_t done = 0;
        FastQueue::RunView r;
        while (done < n && port.q(in).head_run(&r) && r.b->consecutive()) {
            const uint32_t k = std::min(n - done, r.left);
            FastMode::Path* const p = f.block_path(port.i, kRamp, out, k);
            if (!p) break;
            const uint64_t first = r.b->at()[r.next], s0 = std::max({t, st.ramp_free, first + r.delay});
            r.b->hold();   // past the queue's run, until the path's queues hold it
            f.skip(port.i, in, k);
            f.deliver_run(port.m, *p, out, r.b, r.next, r.next + k, s0 + 1 - first);   // it enters the router the cycle after
            r.b->release();
            port.ramp_sent(k);
            st.last[slot] = s0 + k - 1;
            t = st.ramp_free = s0 + k;
            done += k;
        }
        return done;
    }

    // Microthreads' fabric ops move what they can; a finished one completes at its last element's cycle.
    bool waiting_microthread = false;      // a microthread waits for wavelets
    void progress_microthreads() {
        waiting_microthread = false;
        for (int k = 0; k < kMicrothreads; ++k) {
            if (!(ce.ut_busy >> k & 1) || ce.ut[k].done_at) continue;
            if (progress(ce.ut[k], 1 + k)) ce.ut[k].done_at = st.last[1 + k] ? st.last[1 + k] : 1;
            else waiting_microthread = true;
            if (port.faulted()) return;
        }
    }
    // Completions up to cycle t, in cycle order (slot order within a cycle, as cycle mode's step).
    void complete_until(uint64_t t) {
        for (;;) {
            int best = -1;
            for (int k = 0; k < kMicrothreads; ++k)
                if ((ce.ut_busy >> k & 1) && ce.ut[k].done_at && ce.ut[k].done_at <= t && (best < 0 || ce.ut[k].done_at < ce.ut[best].done_at))
                    best = k;
            if (best < 0) return;
            complete(ce.ut[best]);
            ce.ut_busy &= uint8_t(~(1u << best));
            ce.reading = reading_mask();
        }
    }
    uint64_t next_completion() const {
        uint64_t t = kNever;
        for (int k = 0; k < kMicrothreads; ++k)
            if ((ce.ut_busy >> k & 1) && ce.ut[k].done_at) t = std::min(t, ce.ut[k].done_at);
        return t;
    }
    void note_issue(uint8_t ut_before, ThreadState state_before) {
        for (uint8_t fresh = uint8_t(ce.ut_busy & ~ut_before); fresh; fresh &= uint8_t(fresh - 1)) {
            int k = __builtin_ctz(fresh);
            st.next[1 + k] = now + 1;   // cycle mode moves an op's first elements the cycle after its issue
        }
        if (ce.state == ThreadState::Vec && state_before != ThreadState::Vec) st.next[0] = now + 1;
    }

    // The task to start at or after `now`: a pending launch, else among the tasks ready by
    // T = the earliest cycle any is ready, the lowest id. Returns T, or kNever if none.
    uint64_t choose(int* task, int* colour) {
        if (ce.launch_fn >= 0) return *task = -1, *colour = -1, now;
        uint32_t local = ce.tasks_active & ~ce.tasks_blocked;
        uint64_t T = local ? now : kNever;
        uint32_t cols = 0;
        for (int c = 0; c < kColours; ++c) {
            if ((ce.reading >> c & 1) || port.q(c).empty()) continue;
            int t = task_of(c);
            if (t < 0 || (ce.tasks_blocked >> t & 1)) continue;
            cols |= 1u << c;
            T = std::min(T, std::max(now, port.q(c).front_at()));
        }
        if (T == kNever) return kNever;
        int best = local ? __builtin_ctz(local) : kMaxTasks, best_colour = -1;
        for (uint32_t m = cols; m; m &= m - 1) {
            int c = __builtin_ctz(m);
            int t = task_of(c);
            if (port.q(c).front_at() <= T && t < best) best = t, best_colour = c;
        }
        *task = best, *colour = best_colour;
        return T;
    }

    enum class Stop { Blocked, Yield };
    // Runs until the PE blocks (it is woken by a wavelet) or must yield to PEs behind it in time.
    Stop run(FastMode& f, uint64_t end) {
        for (;;) {
            if (port.faulted()) return Stop::Blocked;
            if (ce.ut_busy) {
                progress_microthreads();
                if (port.faulted()) return Stop::Blocked;
            }
            switch (ce.state) {
            case ThreadState::Run:
            case ThreadState::Stalled:
                // The hot loop: plain instructions one after another, until one changes the thread's state.
                for (;;) {
                    now = ce.ready_at;
                    if (ce.ut_busy) complete_until(now);
                    const uint64_t limit = std::min(end, f.run_ahead_limit());
                    if (now >= limit) return yield(now);
                    const uint8_t ut_before = ce.ut_busy;
                    const ThreadState state_before = ce.state;
                    if (run_plain(limit, end)) {   // the hot loop
                        if (port.faulted()) return Stop::Blocked;
                        continue;
                    }
                    if (port.faulted()) return Stop::Blocked;
                    if (waiting_microthread) {
                        // Task control meets microthread completions in cycle order: wait until none can come earlier.
                        const Op op = lp->prog->code[ce.pc < lp->prog->code.size() ? ce.pc : 0].op;
                        if ((op == Op::ACTIVATE || op == Op::BLOCK || op == Op::UNBLOCK) && now >= f.horizon()) return yield(now);
                    }
                    if (!exec()) {
                        if (port.faulted()) return Stop::Blocked;
                        if (ce.why == StallWhy::Slot) {   // wait for the first microthread to finish
                            uint64_t t = next_completion();
                            if (t == kNever) return Stop::Blocked;
                            ce.ready_at = std::max(now, t);
                            complete_until(ce.ready_at);
                            continue;
                        }
                        ce.ready_at = now;
                        return Stop::Blocked;
                    }
                    if (ce.ut_busy != ut_before || ce.state != state_before || ce.state != ThreadState::Run) {
                        note_issue(ut_before, state_before);
                        if (ce.state == ThreadState::Idle) f.end_time_ = std::max(f.end_time_, ce.ready_at);
                        break;
                    }
                }
                break;
            case ThreadState::Vec:
                if (!progress(ce.vop, 0)) {
                    wait_for(ce.vop);
                    return Stop::Blocked;
                }
                finish_vop(st.last[0]);
                break;
            case ThreadState::Idle: {
                now = ce.ready_at;
                if (ce.ut_busy) complete_until(now);
                int task = -1, colour = -1;
                uint64_t T = choose(&task, &colour);
                const uint64_t done = ce.ut_busy ? next_completion() : kNever;
                if (done != kNever && done <= T) {   // a microthread finishes first and may change the choice
                    ce.ready_at = std::max(now, done);
                    complete_until(ce.ready_at);
                    continue;
                }
                if (T == kNever) return Stop::Blocked;
                // Choose only when no other PE can still send a wavelet visible by T (nor a microthread here finish).
                if (T >= end || (task >= 0 && (T >= f.horizon()))) return yield(T);
                now = T;
                if (task < 0 && colour < 0) {
                    const int fn = ce.launch_fn;
                    ce.launch_fn = -1;
                    start(fn, -1, 0);
                } else if (!start_task(task, colour)) {
                    return Stop::Blocked;
                }
                break;
            }
            }
        }
    }
    // A main-thread op that receives (and maybe sends on: a relay), with no microthread running,
    // can do nothing until its colour's queue holds what it still needs: the PE sleeps until then
    // (FastMode::wake). Its cycles come from the wavelets' stamps, not from when it runs, so P
    // senders' blocks into one receive wake it once instead of P times, and a chain of relays
    // passes one block a hop instead of one per PE behind it, with the same result. A relay whose
    // input waits on its own output is flushed at quiescence (flush_starved), and goes on.
    void wait_for(const VecOp& v) {
        st.wait_n = 0;
        if (ce.ut_busy) return;
        const bool two = v.op != Op::FSUMS && two_sources(v.op);
        const int ina = v.a.kind == DsdKind::FabIn ? v.a.colour : -1;
        const int inb = two && v.b.kind == DsdKind::FabIn ? v.b.colour : -1;
        if (ina < 0 || (inb >= 0 && inb != ina)) return;
        st.wait_colour = uint8_t(ina);
        st.wait_n = (v.n - v.i) * (ina == inb ? 2 : 1);
    }
    Stop yield(uint64_t t) {
        ce.ready_at = std::max(ce.ready_at, ce.state == ThreadState::Idle ? ce.ready_at : t);
        key = t;
        return Stop::Yield;
    }
    uint64_t key = 0;
};

void FastMode::run_pe(MachineState& m, int i, uint64_t end) {
    Core& ce = m.cores_[size_t(i)];
    if (ce.prog < 0) return;
    m.core_steps_++;
    FastPort port{*this, m, i, ce};
    FastCore x(port, ce, m.sram_at(i), m.cfg_.sram_bytes, &m.progs_[size_t(ce.prog)],
               m.cfg_.task_pick_cycles, m.cfg_.simd_fp32, pe_[size_t(i)]);
    nest_maps_.prefetch(i);
    running_ = i;
    ran_ = true;
    pe_[size_t(i)].wait_n = 0;
    const FastCore::Stop s = x.run(*this, end);
    running_ = -1;
    end_time_ = std::max(end_time_, ce.ready_at);
    for (int k = 0; k < kMicrothreads; ++k)
        if (ce.ut_busy >> k & 1) end_time_ = std::max(end_time_, ce.ut[k].done_at);
    if (s != FastCore::Stop::Yield) return;
    if (x.key >= remote_at(i)) parked_.push_back({x.key, i});   // past what another band may still send: the next window's (fast_band.cpp)
    else schedule(i, x.key);
}

// [SECTION] the fabric: routes resolved at send

// A route DAG visits each (router, input port) at most once per switch position; more hops than
// that is a ring of routes, where cycle mode's wavelets circle until its watchdog (or fill it and deadlock).
uint64_t FastMode::ring_hops(const MachineState& m) { return uint64_t(m.net_.size()) * kPorts * kMaxSwitchPositions; }

static uint64_t held_key(int pe, int port, int colour) { return (uint64_t(uint32_t(pe)) << 8) | uint64_t(port * kColours + colour); }

size_t FastMode::held(int pe, int port, int colour) const {
    auto it = held_.find(held_key(pe, port, colour));
    return it == held_.end() ? 0 : it->second.size();
}

// A wavelet reaches router i on `port` at cycle w.at: the current switch position forwards it
// (copies for multicast), holds it (another position accepts the port), or it faults.
void FastMode::route(MachineState& m, int i0, int port0, int colour, FastWavelet w0, uint64_t hops0) {
    // A data wavelet on a path of fixed routes goes where the last one from this port went: replay
    // the recorded path (the same hops in the same order, so the same stats and deliveries).
    const uint64_t key = held_key(i0, port0, colour);
    const uint64_t most = ring_hops(m);
    if (hops0 > most) {   // it came round the other bands' part of a ring (recorded there, so no walk counted it)
        looped_ = true;
        return;
    }
    const bool cacheable = !w0.ctrl && held_.empty();
    if (cacheable) {
        auto it = paths_.find(key);
        if (it != paths_.end()) return replay(m, key, it->second, colour, w0, hops0);
    }
    Path* rec = nullptr;
    if (cacheable) {
        rec = &recording_;
        rec->visits.clear();
        rec->ramps.clear();
        rec->drains.clear();
        rec->handoffs.clear();
        rec->ok = true;
    }
    // Depth-first, so a path's hops keep their order. The stack is a member: routing allocates nothing.
    std::vector<Hop>& work = hops_;
    const size_t base = work.size();   // route() nests when a control wavelet releases held ones
    work.push_back({i0, port0, w0});
    const int c = colour;
    uint64_t hops = 0;
    while (work.size() > base && !m.fault_) {
        if (hops0 + ++hops > most) {
            looped_ = true;
            work.resize(base);
            return;
        }
        Hop h = work.back();
        work.pop_back();
        Router& r = m.net_[size_t(h.i)];
        const SwitchPos sp = r.cur_sw[c];
        if (rec) {
            if (r.npos[c] > 1) rec->ok = false;   // a switch can change this path
            rec->visits.push_back({h.i, sp.tx});
        }
        if (!(sp.rx >> h.port & 1) || (!held_.empty() && held_.count(held_key(h.i, h.port, c)))) {
            if (rec) rec->ok = false;
            if (!m.net_.accepts(h.i, h.port, c)) {
                m.refuse(h.i, h.port, c);
                m.fault_.cycle = h.w.at;
                work.resize(base);
                return;
            }
            held_[held_key(h.i, h.port, c)].push(h.w);   // behind any already waiting: FIFO per port
            continue;
        }
        for (uint32_t tx = sp.tx; tx; tx &= tx - 1) {
            const int d = __builtin_ctz(tx);
            r.stats.out[d]++;
            if (d == kRamp) {
                if (!m.reads(h.i, c)) {
                    m.unread(h.i, c);
                    m.fault_.cycle = h.w.at;
                    work.resize(base);
                    return;
                }
                if (rec) rec->ramps.push_back({h.i, uint32_t(h.w.at + 1 - w0.at)});
                deliver(m, h.i, c, FastWavelet{h.w.data, h.w.ctrl, h.w.at + 1});
                continue;
            }
            if (EdgeDrain* e = m.net_.leaves_by(h.i, d, c)) {   // out of the mesh, to the host
                if (rec) rec->drains.push_back({int(e - m.net_.drains().data()), uint32_t(h.w.at - w0.at)});
                leave(m, *e, h.w);
                continue;
            }
            const int j = m.net_.neighbour(h.i, d), op = opposite(Port(d));
            if (!m.net_.accepts(j, op, c)) {
                m.refuse(j, op, c);
                m.fault_.cycle = h.w.at + 1;
                work.resize(base);
                return;
            }
            const FastWavelet next{h.w.data, h.w.ctrl, h.w.at + 1};
            if (!m.owns(j)) {   // another band's router: the walk goes on there (fast_band.cpp)
                if (rings(m, j, op, c, hops0 + hops)) {
                    looped_ = true;
                    work.resize(base);
                    return;
                }
                if (rec) rec->handoffs.push_back({j, op, uint32_t(next.at - w0.at), uint32_t(hops)});
                hand_off(m, j, op, c, next, hops0 + hops);
                continue;
            }
            work.push_back({j, op, next});
        }
        r.stats.out_colour[c]++;
        if (h.w.ctrl && r.npos[c] > 1) {   // a control wavelet advances this colour's switch
            m.net_.advance_switch(h.i, c);
            release_held(m, h.i, c, h.w.at);
        }
    }
    if (rec && rec->ok && !m.fault_ && !looped_ && held_.empty() && work.size() == base) {
        path_entries_ += rec->entries();
        paths_[key] = *rec;
        keys_of_[colour].push_back(key);
    }
}

void FastMode::add_counts(MachineState& m) {
    for (uint64_t key : counting_) {
        auto it = paths_.find(key);
        if (it == paths_.end()) continue;
        Path& p = it->second;
        const int c = int(key & 0xff) % kColours;
        for (const auto& [i, tx] : p.visits) {
            Router& r = m.net_[size_t(i)];
            for (uint32_t t = tx; t; t &= t - 1) r.stats.out[__builtin_ctz(t)] += p.uncounted;
            r.stats.out_colour[c] += p.uncounted;
        }
        p.uncounted = 0;
    }
    counting_.clear();
}

void FastMode::forget_paths(MachineState& m) {
    add_counts(m);
    for (size_t k : ramp_paths_.set) ramp_paths_.at[k] = nullptr;
    ramp_paths_.set.clear();
    paths_.clear();
    for (std::vector<uint64_t>& k : keys_of_) k.clear();
    path_entries_ = 0;
    stale_colours_ = 0;
}

void FastMode::drop_stale_paths(MachineState& m) {
    if (!stale_colours_) return;
    const auto stale = [&](uint64_t key_colour) { return stale_colours_ >> key_colour & 1; };
    add_counts(m);
    size_t kept = 0;
    for (size_t k : ramp_paths_.set) {
        if (stale(k % kColours)) ramp_paths_.at[k] = nullptr;
        else ramp_paths_.set[kept++] = k;
    }
    ramp_paths_.set.resize(kept);
    for (int c = 0; c < kColours; ++c) {
        if (!stale(uint64_t(c))) continue;
        for (uint64_t key : keys_of_[c]) {
            auto it = paths_.find(key);
            if (it == paths_.end()) continue;
            path_entries_ -= it->second.entries();
            paths_.erase(it);
        }
        keys_of_[c].clear();
    }
    stale_colours_ = 0;
}

// The recorded path of PE i's ramp on colour c, or null: paths_'s entry, found once per path and
// then read from ramp_paths_ (a block is a lookup, and the map's nodes are a chain of misses).
FastMode::Path* FastMode::ramp_path(int i, int c, uint64_t key) {
    const size_t k = size_t(i) * kColours + size_t(c);
    if (k < ramp_paths_.at.size() && ramp_paths_.at[k]) return ramp_paths_.at[k];
    auto it = paths_.find(key);
    if (it == paths_.end()) return nullptr;
    if (ramp_paths_.at.size() <= k) ramp_paths_.at.resize(pe_.size() * kColours);
    ramp_paths_.at[k] = &it->second;   // a node's address holds until paths_ is cleared (forget_paths)
    ramp_paths_.set.push_back(k);
    return &it->second;
}

// A recorded path, replayed: its CEs take the colour (a program placed since would have dropped it).
void FastMode::replay(MachineState& m, uint64_t key, Path& p, int c, const FastWavelet& w, uint64_t hops) {
    replayed(key, p, 1);
    for (const auto& [pe, delay] : p.ramps) deliver(m, pe, c, FastWavelet{w.data, 0, w.at + delay});
    for (const auto& [k, delay] : p.drains) leave(m, m.net_.drains()[size_t(k)], FastWavelet{w.data, 0, w.at + delay});
    for (const Path::Handoff& h : p.handoffs) hand_off(m, h.router, h.port, c, FastWavelet{w.data, 0, w.at + h.delay}, hops + h.hops);
}

// The recorded path from router i's `port` (its ramp, or an edge link's) on colour c, for a block
// of n data wavelets about to go along it (counted). Null when there is none, or when a queue on
// it would flood: route() then takes them one by one and raises the fault.
FastMode::Path* FastMode::block_path(int i, int port, int c, size_t n) {
    if (!held_.empty()) return nullptr;
    const uint64_t key = held_key(i, port, c);
    Path* found = nullptr;
    if (port == kRamp) found = ramp_path(i, c, key);
    else if (auto it = paths_.find(key); it != paths_.end()) found = &it->second;
    if (!found) return nullptr;
    if (queued_total_ + n > kMaxQueued)   // some queue may be near the flood mark: look at each
        for (const auto& [pe, delay] : found->ramps)
            if (ceq_[size_t(pe) * kColours + size_t(c)].size() + n > kMaxQueued) return nullptr;
    replayed(key, *found, n);
    return found;
}

// A block of data wavelets into router i from `port`, along the recorded path: the same queues,
// order, stamps and counters as one route() each. A block of kShareFrom or more is written once
// and each queue on the path holds a run of it (fast_queue.h). False (nothing done) as block_path.
bool FastMode::route_block(MachineState& m, int i, int port, int c, const uint32_t* data, const uint64_t* at, size_t n, uint64_t hops) {
    if (hops > ring_hops(m)) return false;   // round a ring: route() says so
    Path* const p = block_path(i, port, c, n);
    if (!p) return false;
    if (n >= kShareFrom && !p->ramps.empty()) {
        FastBlock* const b = FastBlock::make(data, at, uint32_t(n));
        b->hold();
        deliver_run(m, *p, c, b, 0, uint32_t(n), 0, hops);
        b->release();
        return true;
    }
    for (const auto& [pe, delay] : p->ramps) {
        FastQueue& q = ceq_[size_t(pe) * kColours + size_t(c)];
        room_ -= q.room();
        q.push_block(data, at, n, delay);
        room_ += q.room();
        pe_queued_[size_t(pe)] += uint32_t(n);
        queued_total_ += n;
        if (pe != running_) wake(m, pe, c, at[0] + delay);
    }
    for (const auto& [k, delay] : p->drains)
        for (size_t e = 0; e < n; ++e) leave(m, m.net_.drains()[size_t(k)], FastWavelet{data[e], 0, at[e] + delay});
    for (const Path::Handoff& h : p->handoffs) hand_off_block(m, h.router, h.port, c, data, at, n, h.delay, hops + h.hops);
    return true;
}

// b's wavelets [begin, end), stamped b->at()[k] + delay as they enter the path, along it.
void FastMode::deliver_run(MachineState& m, const Path& p, int c, FastBlock* b, uint32_t begin, uint32_t end, uint64_t delay, uint64_t hops0) {
    const uint32_t n = end - begin;
    for (const auto& [pe, hops] : p.ramps) {
        FastQueue& q = ceq_[size_t(pe) * kColours + size_t(c)];
        room_ -= q.room();
        q.push_run(b, begin, end, delay + hops);
        room_ += q.room();
        pe_queued_[size_t(pe)] += n;
        queued_total_ += n;
        if (pe != running_) wake(m, pe, c, b->at()[begin] + delay + hops);
    }
    for (const auto& [k, hops] : p.drains)
        for (uint32_t e = begin; e < end; ++e) leave(m, m.net_.drains()[size_t(k)], FastWavelet{b->data()[e], 0, b->at()[e] + delay + hops});
    for (const Path::Handoff& h : p.handoffs) hand_off_block(m, h.router, h.port, c, b->data() + begin, b->at() + begin, n, delay + h.delay, hops0 + h.hops);
}

// After a switch change at router i: wavelets held on colour c that the new position accepts go on, in order.
void FastMode::release_held(MachineState& m, int i, int c, uint64_t at) {
    for (int p = 0; p < kPorts; ++p) {
        auto it = held_.find(held_key(i, p, c));
        while (it != held_.end() && !it->second.empty() && (m.net_[size_t(i)].cur_sw[c].rx >> p & 1) && !m.fault_) {
            FastWavelet w = it->second.pop();
            w.at = std::max(w.at, at + 1);
            if (it->second.empty()) held_.erase(it);
            route(m, i, p, c, w);
            it = held_.find(held_key(i, p, c));
        }
    }
}

void FastMode::deliver(MachineState& m, int i, int c, FastWavelet w) {
    FastQueue& q = ceq_[size_t(i) * kColours + size_t(c)];
    if (q.size() >= kMaxQueued) {   // nothing takes them: cycle mode's queue would be full
        flooded_ = i;
        return;
    }
    room_ -= q.room();
    q.push(w);
    room_ += q.room();
    ++pe_queued_[size_t(i)];
    ++queued_total_;
    if (i != running_) wake(m, i, c, w.at);
}

void FastMode::wake(MachineState& m, int pe, int colour, uint64_t at) {
    Pe& p = pe_[size_t(pe)];
    if (p.wait_n && ceq_[size_t(pe) * kColours + size_t(p.wait_colour)].size() < p.wait_n) {
        if (!p.starved && colour == p.wait_colour) {
            p.starved = true;
            starved_.push_back(pe);
        }
        return;
    }
    schedule(pe, std::min(m.cores_[size_t(pe)].ready_at, at));
}

bool FastMode::flush_starved(MachineState& m) {
    if (starved_.empty()) return false;
    for (int pe : starved_) {
        Pe& p = pe_[size_t(pe)];
        p.starved = false;
        if (!p.wait_n) continue;   // it ran since
        const FastQueue& q = ceq_[size_t(pe) * kColours + size_t(p.wait_colour)];
        if (q.empty()) continue;   // it ran since, took them and waits again: the next wavelet wakes it
        p.wait_n = 0;
        schedule(pe, std::min(m.cores_[size_t(pe)].ready_at, q.front_at()));
    }
    starved_.clear();
    return true;
}

std::string FastMode::routing_fault(const MachineState& m, bool sent_here) {
    if (flooded_ >= 0) {
        const int j = flooded_;
        flooded_ = -1;
        looped_ = false;
        return "PE (" + std::to_string(j % m.cfg_.w) + "," + std::to_string(j / m.cfg_.w) + ") has " + thousands(kMaxQueued) +
               " wavelets of this colour queued that nothing takes (fast mode's queues grow where cycle mode's fill and deadlock)";
    }
    if (!looped_) return {};
    looped_ = false;
    return std::string(sent_here ? "a wavelet sent from here" : "a wavelet that came into this band here") +
           " goes round a ring of routes and never leaves it (the colour loops; in cycle mode such wavelets circle until the watchdog "
           "stops the run at its cycle budget, or deadlock if they fill the ring)";
}

// A wavelet at an off-mesh port at w.at enters the link when it is free. The run's clock estimate
// covers its crossing, so a long stream out costs its cycles as in cycle mode.
void FastMode::leave(MachineState&, EdgeDrain& d, const FastWavelet& w) {
    d.leave(d.leave_at(w.at), w.data, w.ctrl);
    end_time_ = std::max(end_time_, d.busy_until());
    ran_ = true;
}

// [SECTION] the scheduler

FastMode::FastMode(size_t pes) : ceq_(pes * kColours), pe_queued_(pes), pe_(pes) {}

void FastMode::schedule(int pe, uint64_t key) {
    Pe& p = pe_[size_t(pe)];
    if (!p.touched) {
        p.touched = true;
        touched_.push_back(pe);
    }
    if (p.scheduled && p.key <= key) return;
    p.scheduled = true;
    p.key = key;
    heap_.push_back({key, pe});
    std::push_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
}

uint64_t FastMode::horizon() const {
    // A stale entry (a PE since run or rescheduled) may sit at the front: that only makes choices wait longer.
    return std::min(heap_.empty() ? kNever : heap_.front().key + 2, remote_at(running_));   // a wavelet takes at least 2 cycles to become visible
}

uint64_t FastMode::remote_at(int i) const {
    if (remote_up_ == kNever && remote_down_ == kNever) return kNever;   // one machine, or nothing elsewhere
    const int row = i / int(w_);   // a wavelet crosses a row a cycle at least, from the edge it enters by
    const uint64_t up = remote_up_ == kNever ? kNever : remote_up_ + uint64_t(row - y0_);
    const uint64_t down = remote_down_ == kNever ? kNever : remote_down_ + uint64_t(y1_ - 1 - row);
    return std::min(up, down);
}

uint64_t FastMode::run_ahead_limit() const {
    // The front is the earliest scheduled PE (or a stale entry, earlier still: a shorter leash).
    // Split, a PE alone in its band's schedule is held within kBandLeash of its row's bound
    // (remote_at): what it hands to another band then waits in an outbox for a window, not for the
    // whole run, and meets that band's flood check as in one machine.
    if (heap_.empty()) {
        const uint64_t bound = remote_at(running_);
        return bound == kNever ? kNever : bound + kBandLeash;
    }
    return heap_.front().key + run_ahead_;
}

bool FastMode::empty() const { return heap_.empty() && held_.empty() && queued_total_ == 0; }

FastWavelet FastMode::take(int pe, int c) {
    --pe_queued_[size_t(pe)];
    --queued_total_;
    return ceq_[size_t(pe) * kColours + size_t(c)].pop();
}

void FastMode::absorb(MachineState& m, const std::vector<int>& listed) {
    drop_stale_paths(m);
    const uint64_t now = m.now_;
    // Wavelets in cycle mode's queues: any a run left there when fast mode took over (every router
    // is looked at, once), then a host's inject alone puts one there, and it lists the router.
    const std::vector<int>* routers = &listed;
    if (scan_routers_) {   // this band's (band.h: the other rows here are not the live ones)
        all_routers_.clear();
        for (int i = m.own0_; i < m.own1_; ++i) all_routers_.push_back(i);
        routers = &all_routers_;
        scan_routers_ = false;
    }
    for (int i : *routers) {
        Router& r = m.net_[size_t(i)];
        if (!r.work && !r.nonempty[kCeQ]) continue;   // most routers hold nothing
        for (int c = 0; c < kColours; ++c)
            while (r.ce_count(c)) {
                const bool ctrl = r.ce_head_ctrl(c);
                const uint32_t w = r.ce_pop(c);
                deliver(m, i, c, FastWavelet{w, ctrl ? 1u : 0u, now});
            }
        if (!r.work) continue;
        for (int p = 0; p < kPorts; ++p)
            for (int c = 0; c < kColours; ++c)
                while (r.count(p, c)) {
                    bool ctrl;
                    const uint32_t w = r.pop(p, c, &ctrl);
                    route(m, i, p, c, FastWavelet{w, ctrl ? 1u : 0u, now});
                }
    }
    // Edge links: every word at once, each stamped with the cycle its link brings it in.
    // The first word routes (and records its path); the rest follow it as one block where the path is fixed.
    for (EdgeFeed& f : m.net_.feeds()) {
        m.net_[size_t(f.pe)].stats.in[f.port] += uint32_t(f.words.size() - f.next);   // as cycle mode counts each push
        for (const size_t first = f.next; !f.done(); ++f.next) {
            if (f.next == first + 1) {
                const size_t n = f.words.size() - f.next;
                if (block_at_.size() < n) block_at_.resize(n);
                for (size_t k = 0; k < n; ++k) block_at_[k] = std::max(now, f.due(f.next + k));
                if (route_block(m, f.pe, f.port, f.colour, f.words.data() + f.next, block_at_.data(), n)) {
                    f.next = f.words.size();
                    break;
                }
            }
            route(m, f.pe, f.port, f.colour, FastWavelet{f.words[f.next], 0, std::max(now, f.due(f.next))});
        }
    }
    m.net_.feeds().clear();
}

uint64_t FastMode::front() {
    while (!heap_.empty()) {
        const Entry e = heap_.front();
        const Pe& p = pe_[size_t(e.pe)];
        if (p.scheduled && p.key == e.key) return e.key;
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<Entry>());   // stale: since run or rescheduled
        heap_.pop_back();
    }
    return kNever;
}

void FastMode::run_until(MachineState& m, uint64_t limit, uint64_t end) {
    for (uint64_t key; !m.fault_ && (key = front()) < limit;) {
        const int pe = heap_.front().pe;
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<Entry>());
        heap_.pop_back();
        pe_[size_t(pe)].scheduled = false;
        if (path_entries_ > m.cfg_.fast_path_entries) forget_paths(m);   // no path is in use between two PEs' runs
        run_pe(m, pe, end);
    }
}

FastMode::Ended FastMode::run_whole(MachineState& m, uint64_t end, uint64_t lookahead) {
    const uint64_t stop = lookahead > kNever - end ? kNever : end + lookahead;
    for (;;) {
        run_until(m, end, stop);
        if (m.fault_) return Ended::Fault;
        if (flush_starved(m)) continue;   // the run would stop: every PE left short takes what it has, and goes on
        return front() == kNever ? Ended::Quiet : Ended::Slice;
    }
}

FastMode::Ended FastMode::run(MachineState& m, uint64_t end, uint64_t lookahead) {
    end_time_ = std::max(end_time_, m.now_);
    run_ahead_ = m.cfg_.fast_run_ahead;
    drop_stale_paths(m);
    return m.link_ ? run_bands(m, end) : run_whole(m, end, lookahead);
}

void FastMode::rest() {
    const bool shrink = room_ > kRoomKept;
    for (int pe : touched_) {
        pe_[size_t(pe)].touched = false;
        for (int c = 0; c < kColours && shrink; ++c) {
            FastQueue& q = ceq_[size_t(pe) * kColours + size_t(c)];
            room_ -= q.room();
            q.shrink(kQueueKept);
            room_ += q.room();
        }
    }
    touched_.clear();
    check_all_ = false;
}

}  // namespace wl
