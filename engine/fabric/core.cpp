// core.cpp: cycle mode's compute engine — one call advances one CE by one
// cycle. The instructions themselves are core_exec.h's, shared with fast mode;
// here are the parts that are about cycles: the port onto this PE's router
// (its CE queues and RAMP queue, visible a cycle after a push), the task
// picker, fabric vector ops a chunk per cycle, and the step.
#include "engine/fabric/core_exec.h"
#include "engine/fabric/machine.h"

namespace wl {

// What a CE sees of the cycle machine: its router's CE queues and RAMP queue, the
// machine's timers, fault, trace and active lists. Times are now or never.
struct CyclePort {
    Machine& m;
    const int i;
    Router& rt;
    Core& ce;
    const uint64_t now;

    uint64_t recv_at(int c) const { return rt.ce_visible(c) > 0 ? now : kNever; }
    bool head_ctrl(int c) const { return rt.ce_head_ctrl(c); }
    uint32_t pop(int c) { return rt.ce_pop(c); }
    uint64_t ramp_at(int c) const { return ce.ramp_cycle != now + 1 && rt.space(kRamp, c, m.cfg_.router_queue_depth) ? now : kNever; }
    bool routed(int c) const { return rt.rx_any[c] & kR; }
    void send(int c, uint32_t w, bool ctrl, uint64_t) {
        rt.push(kRamp, c, w, ctrl);
        rt.stats.in[kRamp]++;
        ce.ramp_cycle = now + 1;   // stored +1 so cycle 0 differs from "never"
        m.wake_router(i, now + 1);
        if (m.trace_.on()) trace(now, TraceKind::Send, uint8_t(c), ce.task, w);
    }
    void timer(uint64_t at) { m.add_timer(at, i); }
    void fault(FaultKind k, int colour, int task, int32_t pc, std::string msg) { m.raise(k, i, colour, task, pc, std::move(msg)); }
    bool faulted() const { return bool(m.fault_); }
    bool tracing() const { return m.trace_.on(); }
    void trace(uint64_t t, TraceKind k, uint8_t colour, int16_t task, uint32_t data) {
        m.trace_.add({t, uint16_t(i % m.cfg_.w), uint16_t(i / m.cfg_.w), k, colour, 0, 0, task, data});
    }
};

struct CycleCore : CoreExec<CyclePort> {
    using CoreExec::CoreExec;

    // Fabric ops: take what is queued (and what the ramp accepts: one a cycle) in one loop; 0 = must wait.
    uint32_t run_fabric(VecOp& v) {
        Router& rt = port.rt;
        uint32_t n = v.n - v.i;
        const bool two = v.op != Op::FSUMS && two_sources(v.op);
        int ina = v.a.kind == DsdKind::FabIn ? v.a.colour : -1;
        int inb = two && v.b.kind == DsdKind::FabIn ? v.b.colour : -1;
        if (ina >= 0) {
            int vis = rt.ce_visible(ina);
            if (ina == inb) vis /= 2;
            if (uint32_t(vis) < n) n = uint32_t(vis < 0 ? 0 : vis);
        }
        if (inb >= 0 && inb != ina) {
            int vis = rt.ce_visible(inb);
            if (uint32_t(vis) < n) n = uint32_t(vis < 0 ? 0 : vis);
        }
        const bool out = v.op != Op::FSUMS && v.dst.kind == DsdKind::FabOut;
        if (out) {
            if (port.ramp_at(v.dst.colour) == kNever) n = 0;
            else if (n > 1) n = 1;   // the ramp carries one wavelet per cycle
        }
        if (n == 0) return 0;
        if (!mem_ok(v.a, v.i, n, v.pc) || (two && !mem_ok(v.b, v.i, n, v.pc)) || (v.op != Op::FSUMS && !mem_ok(v.dst, v.i, n, v.pc)))
            return 0;
        if (out && !ramp_route_ok(v.dst.colour, v.pc)) return 0;
        auto get = [&](const Dsd& d, uint32_t k) -> float {
            if (d.kind == DsdKind::FabIn) {
                ce.stats.received++;
                return f32(port.pop(d.colour));
            }
            return load(d, k);
        };
        for (uint32_t k = v.i; k < v.i + n; ++k) {
            float x = get(v.a, k);
            if (v.op == Op::FSUMS) {
                v.scalar = u32(f32(v.scalar) + x);
                continue;
            }
            float y = two ? get(v.b, k) : 0.0f;
            float r = elem(v, x, y);
            if (out) {
                port.send(v.dst.colour, u32(r), false, now);
                ce.stats.sent++;
            } else {
                store(v.dst, k, r);
            }
        }
        v.i += n;
        count_elems(v, n);
        return n;
    }

    // Host launch first, then the lowest ready task id: local tasks activated and unblocked,
    // data/control tasks whose colour has a wavelet no fabin op is reading.
    bool pick() {
        if (!lp) return false;
        if (ce.launch_fn >= 0) {
            int fn = ce.launch_fn;
            ce.launch_fn = -1;
            start(fn, -1, 0);
            return true;
        }
        int best = kMaxTasks, best_colour = -1;
        uint32_t local = ce.tasks_active & ~ce.tasks_blocked;
        if (local) best = __builtin_ctz(local);
        uint32_t cols = port.rt.nonempty[kCeQ] & ~ce.reading;
        while (cols) {
            int c = __builtin_ctz(cols);
            cols &= cols - 1;
            if (port.rt.ce_visible(c) <= 0) continue;
            int t = task_of(c);
            if (t < 0 || (ce.tasks_blocked >> t & 1) || t >= best) continue;
            best = t, best_colour = c;
        }
        if (best == kMaxTasks) return false;
        return start_task(best, best_colour);
    }

    void step() {
        Machine& m = port.m;
        m.core_steps_++;
        port.rt.refresh(now);
        if (!lp) return;
        bool moved = false;
        // Microthreads first: they hold the ramp and the queues they read.
        if (ce.ut_busy) {
            for (int k = 0; k < kMicrothreads; ++k) {
                if (!(ce.ut_busy >> k & 1)) continue;
                VecOp& v = ce.ut[k];
                if (v.done_at) {
                    if (v.done_at > now) continue;
                } else {
                    if (run_fabric(v)) moved = true;
                    if (m.fault_) return;
                    if (v.i < v.n) continue;
                }
                complete(v);
                ce.ut_busy &= uint8_t(~(1u << k));
                ce.reading = reading_mask();
                moved = true;
            }
        }
        if (ce.ready_at <= now) {
            switch (ce.state) {
            case ThreadState::Idle: moved |= pick(); break;
            case ThreadState::Run:
            case ThreadState::Stalled: moved |= exec(); break;
            case ThreadState::Vec:
                if (run_fabric(ce.vop)) moved = true;
                if (m.fault_) return;
                if (ce.vop.i == ce.vop.n) {
                    finish_vop(now);
                    moved = true;
                }
                break;
            }
        }
        if (moved) {
            m.progress_++;
            m.wake_core(port.i, now + 1);
        } else if (ce.state == ThreadState::Run && ce.ready_at == now + 1) {
            m.wake_core(port.i, now + 1);
        }
    }
};

void Machine::core_step(int i) {
    Core& ce = cores_[i];
    CyclePort port{*this, i, net_[size_t(i)], ce, now_};
    CycleCore(port, ce, sram_at(i), cfg_.sram_bytes, ce.prog >= 0 ? &progs_[ce.prog] : nullptr,
              cfg_.task_pick_cycles, cfg_.simd_fp32, now_)
        .step();
}

}  // namespace wl
