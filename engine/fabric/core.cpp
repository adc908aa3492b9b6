// core.cpp: the compute engine's step — task picker, interpreter, vector ops
// and microthreads. One call advances one CE by one cycle. It reads and
// writes only that PE's state: its Core, its SRAM, its CE input queues and its
// router's RAMP input queue (so a fast mode can run a PE on its own).
//
// Index of this file:
//   [SECTION] helpers: bits, SRAM bounds
//   [SECTION] vector ops: one host loop per op (per fabric chunk)
//   [SECTION] task picker
//   [SECTION] interpreter
//   [SECTION] the step
#include "engine/core/wl_math.h"
#include "engine/fabric/machine.h"

#include <climits>
#include <cstring>

namespace wl {

// [SECTION] helpers: bits, SRAM bounds

static inline float f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline uint32_t u32(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

struct CoreExec {
    Machine& m;
    const int i;
    Core& ce;
    Router& rt;
    uint8_t* mem;
    const uint64_t now;
    const LoadedProgram* lp;

    CoreExec(Machine& mm, int pe)
        : m(mm), i(pe), ce(mm.cores_[pe]), rt(mm.routers_[pe]), mem(mm.sram_.get() + size_t(pe) * mm.cfg_.sram_bytes),
          now(mm.now_), lp(ce.prog >= 0 ? &mm.progs_[ce.prog] : nullptr) {}

    void fault(FaultKind k, int colour, int32_t pc, std::string msg) { m.raise(k, i, colour, ce.task, pc, std::move(msg)); }

    // Elements [from, from+n) of a mem1d DSD must lie in SRAM, word-aligned.
    // Inline: it runs on every chunk of a fabric vector op; the fault report is out of line.
    __attribute__((always_inline)) bool mem_ok(const Dsd& d, uint32_t from, uint32_t n, uint32_t pc) {
        if (d.kind != DsdKind::Mem1d || n == 0) return true;
        int64_t a0 = int64_t(d.base) + int64_t(from) * d.stride * 4;
        int64_t a1 = a0 + int64_t(n - 1) * d.stride * 4;
        int64_t lo = a0 < a1 ? a0 : a1, hi = a0 < a1 ? a1 : a0;
        if ((d.base & 3) == 0 && lo >= 0 && hi + 4 <= int64_t(m.cfg_.sram_bytes)) {
            if (uint32_t(hi + 4) > ce.sram_used) ce.sram_used = uint32_t(hi + 4);   // reads too: a cheap upper bound
            return true;
        }
        return mem_fault(d, from, n, pc, lo, hi);
    }
    __attribute__((noinline)) bool mem_fault(const Dsd& d, uint32_t from, uint32_t n, uint32_t pc, int64_t lo, int64_t hi) {
        fault(FaultKind::OutOfBounds, -1, int32_t(pc),
              "vector operand outside SRAM: mem1d base " + std::to_string(d.base) + ", stride " + std::to_string(d.stride) +
                  ", elements " + std::to_string(from) + ".." + std::to_string(from + n - 1) + " touch bytes " +
                  std::to_string(lo) + ".." + std::to_string(hi + 3) + " of " + std::to_string(m.cfg_.sram_bytes));
        return false;
    }

    bool ramp_ready(int c) const { return ce.ramp_cycle != now + 1 && rt.space(kRamp, c, m.cfg_.router_queue_depth); }
    void ramp_send(int c, uint32_t w, bool ctrl) {
        rt.push(kRamp, c, w, ctrl);
        rt.stats.in[kRamp]++;
        ce.ramp_cycle = now + 1;   // stored +1 so cycle 0 differs from "never"
        ce.stats.sent++;
        m.wake_router(i, now + 1);
        if (m.trace_.on()) m.trace_.add({now, uint16_t(i % m.cfg_.w), uint16_t(i / m.cfg_.w), TraceKind::Send, uint8_t(c), 0, 0, ce.task, w});
    }
    bool ramp_route_ok(int c, uint32_t pc) {
        if (rt.rx_any[c] & kR) return true;
        fault(FaultKind::NoRoute, c, int32_t(pc), "CE sends on colour " + std::to_string(c) + " but its router has no route accepting RAMP");
        return false;
    }

    // [SECTION] vector ops: one host loop per op (per fabric chunk)

    static int arity(Op op) {
        switch (op_info(op).fmt) {
        case Fmt::Vec2: case Fmt::Vec2S: return 2;
        default: return 1;
        }
    }
    static float apply(Op op, float x, float y, float s) {
        switch (op) {
        case Op::FMACS: return x + y * s;
        case Op::FADDS: return x + y;
        case Op::FSUBS: return x - y;
        case Op::FMULS: return x * y;
        case Op::FMAXS: return (x > y || y != y) ? x : y;   // a NaN operand loses (IEEE maxNum)
        case Op::FMOVS: return x;
        case Op::FNEGS: return -x;
        case Op::FSCALES: return x * s;
        case Op::FSHIFTS: return x + s;
        case Op::FEXPS: return math::expf(x);
        case Op::FRSQRTS: return math::rsqrtf(x);
        case Op::FTANHS: return math::tanhf(x);
        default: return 0.0f;
        }
    }

    // Memory-only loops: the hot path. Unit strides get a plain pointer loop the compiler vectorises.
    template <class F>
    void loop2(const VecOp& v, uint32_t n, F f) {
        float* d = reinterpret_cast<float*>(mem + v.dst.base);
        const float* a = reinterpret_cast<const float*>(mem + v.a.base);
        const float* b = reinterpret_cast<const float*>(mem + v.b.base);
        if (v.dst.stride == 1 && v.a.stride == 1 && v.b.stride == 1) {
            for (uint32_t k = 0; k < n; ++k) d[k] = f(a[k], b[k]);
        } else {
            const int64_t sd = v.dst.stride, sa = v.a.stride, sb = v.b.stride;
            for (int64_t k = 0; k < int64_t(n); ++k) d[k * sd] = f(a[k * sa], b[k * sb]);
        }
    }
    template <class F>
    void loop1(const VecOp& v, uint32_t n, F f) {
        float* d = reinterpret_cast<float*>(mem + v.dst.base);
        const float* a = reinterpret_cast<const float*>(mem + v.a.base);
        if (v.dst.stride == 1 && v.a.stride == 1) {
            for (uint32_t k = 0; k < n; ++k) d[k] = f(a[k]);
        } else {
            const int64_t sd = v.dst.stride, sa = v.a.stride;
            for (int64_t k = 0; k < int64_t(n); ++k) d[k * sd] = f(a[k * sa]);
        }
    }
    void run_memory(VecOp& v) {
        const uint32_t n = v.n;
        const float s = f32(v.scalar);
        switch (v.op) {
        case Op::FMACS: loop2(v, n, [s](float x, float y) { return x + y * s; }); break;
        case Op::FADDS: loop2(v, n, [](float x, float y) { return x + y; }); break;
        case Op::FSUBS: loop2(v, n, [](float x, float y) { return x - y; }); break;
        case Op::FMULS: loop2(v, n, [](float x, float y) { return x * y; }); break;
        case Op::FMAXS: loop2(v, n, [](float x, float y) { return apply(Op::FMAXS, x, y, 0); }); break;
        case Op::FMOVS: loop1(v, n, [](float x) { return x; }); break;
        case Op::FNEGS: loop1(v, n, [](float x) { return -x; }); break;
        case Op::FSCALES: loop1(v, n, [s](float x) { return x * s; }); break;
        case Op::FSHIFTS: loop1(v, n, [s](float x) { return x + s; }); break;
        case Op::FEXPS: loop1(v, n, [](float x) { return math::expf(x); }); break;
        case Op::FRSQRTS: loop1(v, n, [](float x) { return math::rsqrtf(x); }); break;
        case Op::FTANHS: loop1(v, n, [](float x) { return math::tanhf(x); }); break;
        case Op::FSUMS: {
            const float* a = reinterpret_cast<const float*>(mem + v.a.base);
            float acc = f32(v.scalar);
            for (int64_t k = 0; k < int64_t(n); ++k) acc = acc + a[k * v.a.stride];
            v.scalar = u32(acc);
            break;
        }
        default: break;
        }
        v.i = n;
    }

    // Fabric ops: take what is queued (and what the ramp accepts) in one loop; 0 = must wait.
    uint32_t run_fabric(VecOp& v) {
        uint32_t n = v.n - v.i;
        const int ar = v.op == Op::FSUMS ? 1 : arity(v.op);
        int ina = v.a.kind == DsdKind::FabIn ? v.a.colour : -1;
        int inb = ar == 2 && v.b.kind == DsdKind::FabIn ? v.b.colour : -1;
        if (ina >= 0) {
            int vis = rt.ce_visible(ina);
            if (ina == inb) vis /= 2;
            if (uint32_t(vis) < n) n = uint32_t(vis < 0 ? 0 : vis);
        }
        if (inb >= 0 && inb != ina) {
            int vis = rt.ce_visible(inb);
            if (uint32_t(vis) < n) n = uint32_t(vis < 0 ? 0 : vis);
        }
        if (v.op != Op::FSUMS && v.dst.kind == DsdKind::FabOut) {
            if (!ramp_ready(v.dst.colour)) n = 0;
            else if (n > 1) n = 1;   // the ramp carries one wavelet per cycle
        }
        if (n == 0) return 0;
        if (!mem_ok(v.a, v.i, n, v.pc) || (ar == 2 && !mem_ok(v.b, v.i, n, v.pc)) || (v.op != Op::FSUMS && !mem_ok(v.dst, v.i, n, v.pc)))
            return 0;
        if (v.dst.kind == DsdKind::FabOut && !ramp_route_ok(v.dst.colour, v.pc)) return 0;
        const float s = f32(v.scalar);
        auto get = [&](const Dsd& d, uint32_t k) -> float {
            if (d.kind == DsdKind::FabIn) {
                ce.stats.received++;
                return f32(rt.ce_pop(d.colour));
            }
            return f32(*reinterpret_cast<const uint32_t*>(mem + d.base + int64_t(k) * d.stride * 4));
        };
        for (uint32_t k = v.i; k < v.i + n; ++k) {
            float x = get(v.a, k);
            if (v.op == Op::FSUMS) {
                v.scalar = u32(f32(v.scalar) + x);
                continue;
            }
            float y = ar == 2 ? get(v.b, k) : 0.0f;
            float r = apply(v.op, x, y, s);
            if (v.dst.kind == DsdKind::FabOut) ramp_send(v.dst.colour, u32(r), false);
            else *reinterpret_cast<uint32_t*>(mem + v.dst.base + int64_t(k) * v.dst.stride * 4) = u32(r);
        }
        v.i += n;
        ce.stats.elems += n;
        return n;
    }

    static bool is_fabric(const VecOp& v) {
        return v.a.kind == DsdKind::FabIn || v.b.kind == DsdKind::FabIn || v.dst.kind == DsdKind::FabOut;
    }
    uint32_t reading_mask() const {
        uint32_t r = 0;
        auto add = [&](const VecOp& v) {
            if (v.a.kind == DsdKind::FabIn) r |= 1u << v.a.colour;
            if (v.b.kind == DsdKind::FabIn) r |= 1u << v.b.colour;
        };
        if (ce.state == ThreadState::Vec) add(ce.vop);
        for (int k = 0; k < kMicrothreads; ++k)
            if (ce.ut_busy >> k & 1) add(ce.ut[k]);
        return r;
    }
    void complete(const VecOp& v) {
        if (v.op == Op::FSUMS && v.dreg != kNoReg) ce.reg[v.dreg] = v.scalar;
        if (v.flags & kVecActivate) ce.tasks_active |= 1u << v.task;
        if (v.flags & kVecUnblock) ce.tasks_blocked &= ~(1u << v.task);
    }

    // [SECTION] task picker

    void start(int fn, int task, uint32_t payload) {
        const Function& f = lp->prog->functions[fn];
        ce.fn = uint16_t(fn);
        ce.pc = f.entry;
        ce.base = 0;
        ce.depth = 0;
        ce.reg[0] = payload;
        ce.task = int8_t(task);
        ce.state = ThreadState::Run;
        ce.ready_at = now + uint64_t(m.cfg_.task_pick_cycles);
        ce.stats.tasks++;
        ce.stats.busy += uint64_t(m.cfg_.task_pick_cycles);
        if (m.trace_.on()) m.trace_.add({now, uint16_t(i % m.cfg_.w), uint16_t(i / m.cfg_.w), TraceKind::TaskStart, 0, 0, 0, int16_t(task), f.entry});
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
        uint32_t cols = rt.nonempty[kCeQ] & ~ce.reading;
        while (cols) {
            int c = __builtin_ctz(cols);
            cols &= cols - 1;
            if (rt.ce_visible(c) <= 0) continue;
            int t = rt.ce_head_ctrl(c) && lp->ctrl_task_of_colour[c] >= 0 ? lp->ctrl_task_of_colour[c] : lp->task_of_colour[c];
            if (t < 0 || (ce.tasks_blocked >> t & 1) || t >= best) continue;
            best = t, best_colour = c;
        }
        if (best == kMaxTasks) return false;
        const TaskBinding* tb = nullptr;
        for (const TaskBinding& b : lp->prog->tasks)
            if (b.id == best) tb = &b;
        if (!tb) {   // activated an id with no binding
            ce.tasks_active &= ~(1u << best);
            fault(FaultKind::NoTask, best_colour, int32_t(ce.pc), "task " + std::to_string(best) + " was activated but has no function bound");
            return false;
        }
        uint32_t payload = 0;
        if (best_colour >= 0) {
            payload = rt.ce_pop(best_colour);
            ce.stats.received++;
        } else {
            ce.tasks_active &= ~(1u << best);
        }
        start(tb->function, best, payload);
        return true;
    }

    // [SECTION] interpreter

    void stall(StallWhy why, int colour) {
        if (ce.state != ThreadState::Stalled) {
            ce.stall_since = now;
            if (m.trace_.on()) m.trace_.add({now, uint16_t(i % m.cfg_.w), uint16_t(i / m.cfg_.w), TraceKind::Stall, uint8_t(colour < 0 ? 0 : colour), 0, 0, ce.task, ce.pc});
        }
        ce.state = ThreadState::Stalled;
        ce.why = why;
        ce.wait_colour = uint8_t(colour < 0 ? 0 : colour);
    }

    // Issue the instruction at pc. Returns true if it issued (progress), false on a stall or fault.
    bool exec() {
        const Program& P = *lp->prog;
        const Function& F = P.functions[ce.fn];
        const uint32_t pc = ce.pc;
        if (pc >= F.end || pc < F.entry) {
            fault(FaultKind::BadProgram, -1, int32_t(F.end ? F.end - 1 : 0), "execution ran past the end of function " + F.name);
            return false;
        }
        const Instr& in = P.code[pc];
        uint32_t* R = ce.reg + ce.base;
        uint32_t next = pc + 1;
        uint64_t cost = op_info(in.op).base_cycles;
        auto F3 = [&](float r) { R[in.a] = u32(r); };
        const float fb = f32(R[in.b]), fc = f32(R[in.c]);
        const int32_t ib = int32_t(R[in.b]), ic = int32_t(R[in.c]);
        switch (in.op) {
        case Op::NOP: break;
        case Op::LI: R[in.a] = uint32_t(in.imm); break;
        case Op::MOV: R[in.a] = R[in.b]; break;
        case Op::IADD: R[in.a] = R[in.b] + R[in.c]; break;
        case Op::ISUB: R[in.a] = R[in.b] - R[in.c]; break;
        case Op::IMUL: R[in.a] = R[in.b] * R[in.c]; break;
        case Op::IDIV: R[in.a] = ic == 0 ? 0u : (ib == INT_MIN && ic == -1) ? uint32_t(INT_MIN) : uint32_t(ib / ic); break;
        case Op::IREM: R[in.a] = ic == 0 ? uint32_t(ib) : (ib == INT_MIN && ic == -1) ? 0u : uint32_t(ib % ic); break;
        case Op::IAND: R[in.a] = R[in.b] & R[in.c]; break;
        case Op::IOR: R[in.a] = R[in.b] | R[in.c]; break;
        case Op::IXOR: R[in.a] = R[in.b] ^ R[in.c]; break;
        case Op::ISHL: R[in.a] = R[in.b] << (R[in.c] & 31); break;
        case Op::ISHR: R[in.a] = uint32_t(ib >> (R[in.c] & 31)); break;
        case Op::IADDI: R[in.a] = R[in.b] + uint32_t(in.imm); break;
        case Op::ILT: R[in.a] = ib < ic; break;
        case Op::ILE: R[in.a] = ib <= ic; break;
        case Op::IEQ: R[in.a] = R[in.b] == R[in.c]; break;
        case Op::INE: R[in.a] = R[in.b] != R[in.c]; break;
        case Op::FADD: F3(fb + fc); break;
        case Op::FSUB: F3(fb - fc); break;
        case Op::FMUL: F3(fb * fc); break;
        case Op::FDIV: F3(fb / fc); break;
        case Op::FMIN: F3((fb < fc || fc != fc) ? fb : fc); break;
        case Op::FMAX: F3(apply(Op::FMAXS, fb, fc, 0)); break;
        case Op::FLT: R[in.a] = fb < fc; break;
        case Op::FLE: R[in.a] = fb <= fc; break;
        case Op::FEQ: R[in.a] = fb == fc; break;
        case Op::FNEG: R[in.a] = R[in.b] ^ 0x80000000u; break;
        case Op::FABS: R[in.a] = R[in.b] & 0x7fffffffu; break;
        case Op::FSQRT: F3(float(std::sqrt(double(fb)))); break;
        case Op::FEXP: F3(math::expf(fb)); break;
        case Op::FRSQRT: F3(math::rsqrtf(fb)); break;
        case Op::FTANH: F3(math::tanhf(fb)); break;
        case Op::ITOF: F3(float(ib)); break;
        case Op::FTOI:
            R[in.a] = fb != fb ? 0u : fb >= 2147483648.0f ? uint32_t(INT_MAX) : fb < -2147483648.0f ? uint32_t(INT_MIN) : uint32_t(int32_t(fb));
            break;
        case Op::LD:
        case Op::ST: {
            uint32_t addr = R[in.b] + uint32_t(in.imm);
            if ((addr & 3) || uint64_t(addr) + 4 > m.cfg_.sram_bytes) {
                fault(FaultKind::OutOfBounds, -1, int32_t(pc),
                      std::string(in.op == Op::LD ? "load" : "store") + " at byte address " + std::to_string(addr) +
                          ((addr & 3) ? " (not 4-aligned)" : "") + " outside SRAM of " + std::to_string(m.cfg_.sram_bytes) + " bytes");
                return false;
            }
            if (in.op == Op::LD) std::memcpy(&R[in.a], mem + addr, 4);
            else {
                std::memcpy(mem + addr, &R[in.a], 4);
                if (addr + 4 > ce.sram_used) ce.sram_used = addr + 4;
            }
            break;
        }
        case Op::JMP: next = uint32_t(in.imm); break;
        case Op::BNZ: if (R[in.a]) next = uint32_t(in.imm); break;
        case Op::BZ: if (!R[in.a]) next = uint32_t(in.imm); break;
        case Op::CALL: {
            const Function& G = P.functions[in.imm];
            if (ce.depth + 1 >= kMaxDepth || ce.base + F.nregs + G.nregs > kRegs) {
                fault(FaultKind::BadProgram, -1, int32_t(pc), "call stack overflow calling " + G.name + " (depth " + std::to_string(ce.depth + 1) + ")");
                return false;
            }
            ce.frame[ce.depth] = Frame{pc + 1, ce.base, in.a, ce.fn};
            uint8_t nb = uint8_t(ce.base + F.nregs);
            for (int k = 0; k < in.c; ++k) ce.reg[nb + k] = R[in.b + k];
            ce.depth++;
            ce.base = nb;
            ce.fn = uint16_t(in.imm);
            next = G.entry;
            break;
        }
        case Op::RET: {
            uint32_t val = in.a != kNoReg ? R[in.a] : 0u;
            if (ce.depth == 0) {   // the task ends
                if (m.trace_.on()) m.trace_.add({now, uint16_t(i % m.cfg_.w), uint16_t(i / m.cfg_.w), TraceKind::TaskEnd, 0, 0, 0, ce.task, pc});
                ce.state = ThreadState::Idle;
                ce.task = -1;
                ce.stats.instrs++;
                ce.stats.busy += cost;
                ce.ready_at = now + cost;
                if (cost > 1) m.add_timer(ce.ready_at, i);
                return true;
            }
            ce.depth--;
            const Frame fr = ce.frame[ce.depth];
            ce.base = fr.base;
            ce.fn = fr.fn;
            if (fr.dest != kNoReg) ce.reg[ce.base + fr.dest] = val;
            next = fr.ret_pc;
            break;
        }
        case Op::ACTIVATE: ce.tasks_active |= 1u << in.imm; break;
        case Op::BLOCK: ce.tasks_blocked |= 1u << in.imm; break;
        case Op::UNBLOCK: ce.tasks_blocked &= ~(1u << in.imm); break;
        case Op::PEID: R[in.a] = in.imm == 0 ? ce.rx : in.imm == 1 ? ce.ry : in.imm == 2 ? ce.rw : ce.rh; break;
        case Op::SEND:
        case Op::SENDC:
            if (!ramp_ready(in.imm)) { stall(StallWhy::Send, in.imm); return false; }
            if (!ramp_route_ok(in.imm, pc)) return false;
            ramp_send(in.imm, R[in.a], in.op == Op::SENDC);
            break;
        case Op::RECV:
            if ((ce.reading >> in.imm & 1) || rt.ce_visible(in.imm) <= 0) { stall(StallWhy::Recv, in.imm); return false; }
            R[in.a] = rt.ce_pop(in.imm);
            ce.stats.received++;
            break;
        case Op::DMEM: ce.dsd[in.a] = Dsd{DsdKind::Mem1d, 0, int16_t(in.imm), R[in.b], R[in.c]}; break;
        case Op::DFABIN: ce.dsd[in.a] = Dsd{DsdKind::FabIn, uint8_t(in.imm), 1, 0, R[in.b]}; break;
        case Op::DFABOUT: ce.dsd[in.a] = Dsd{DsdKind::FabOut, uint8_t(in.imm), 1, 0, R[in.b]}; break;
        case Op::DSETLEN: ce.dsd[in.a].length = R[in.b]; break;
        case Op::DADDR: ce.dsd[in.a].base += R[in.b]; break;
        default:
            if (op_is_vector(in.op)) {
                int r = issue_vec(in, pc, R, &cost);
                if (r <= 0) return false;   // stalled (0) or faulted (-1)
                break;
            }
            fault(FaultKind::BadProgram, -1, int32_t(pc), "unknown opcode");
            return false;
        }
        if (ce.state == ThreadState::Stalled) {
            ce.stats.stall += now - ce.stall_since;
            ce.state = ThreadState::Run;
        }
        ce.pc = next;
        ce.stats.instrs++;
        if (ce.state == ThreadState::Vec) return true;   // a fabric op took over the main thread
        ce.stats.busy += cost;
        ce.ready_at = now + cost;
        if (cost > 1) m.add_timer(ce.ready_at, i);
        return true;
    }

    // 1 = issued, 0 = stalled (no free microthread), -1 = fault.
    int issue_vec(const Instr& in, uint32_t pc, const uint32_t* R, uint64_t* cost) {
        const OpInfo& info = op_info(in.op);
        VecOp v;
        v.op = in.op;
        v.flags = in.e;
        v.task = uint8_t(in.imm);
        v.pc = pc;
        v.a = ce.dsd[in.b];
        const bool vecr = info.fmt == Fmt::VecR;
        if (!vecr) v.dst = ce.dsd[in.a];
        if (arity(in.op) == 2) v.b = ce.dsd[in.c];
        if (info.fmt == Fmt::Vec2S || info.fmt == Fmt::Vec1S) v.scalar = R[in.d];
        if (vecr) v.dreg = uint8_t(ce.base + in.d), v.scalar = 0;
        v.n = vecr ? v.a.length : v.dst.length;
        auto bad = [&](const char* what) {
            fault(FaultKind::BadProgram, -1, int32_t(pc), std::string(info.mnemonic) + ": " + what);
            return -1;
        };
        if (!vecr && v.dst.kind != DsdKind::Mem1d && v.dst.kind != DsdKind::FabOut) return bad("destination must be a mem1d or fabout DSD");
        if (v.a.kind != DsdKind::Mem1d && v.a.kind != DsdKind::FabIn) return bad("source must be a mem1d or fabin DSD");
        if (v.a.length != v.n) return bad("source and destination lengths differ");
        if (arity(in.op) == 2) {
            if (v.b.kind != DsdKind::Mem1d && v.b.kind != DsdKind::FabIn) return bad("second source must be a mem1d or fabin DSD");
            if (v.b.length != v.n) return bad("source lengths differ");
        }
        const bool async = in.e & kVecAsync;
        int slot = -1;
        if (async) {
            for (int k = 0; k < kMicrothreads; ++k)
                if (!(ce.ut_busy >> k & 1)) { slot = k; break; }
            if (slot < 0) { stall(StallWhy::Slot, -1); return 0; }
        }
        if (!is_fabric(v)) {
            if (!mem_ok(v.dst, 0, vecr ? 0 : v.n, pc) || !mem_ok(v.a, 0, v.n, pc) || (arity(in.op) == 2 && !mem_ok(v.b, 0, v.n, pc))) return -1;
            run_memory(v);
            ce.stats.elems += v.n;
            uint64_t work = (uint64_t(v.n) * info.per_elem + uint64_t(m.cfg_.simd_fp32) - 1) / uint64_t(m.cfg_.simd_fp32);
            if (async) {   // results are in memory now; completion (and its task) fires after the modelled time
                v.done_at = now + info.base_cycles + (work ? work : 1);
                ce.ut[slot] = v;
                ce.ut_busy |= uint8_t(1u << slot);
                m.add_timer(v.done_at, i);
            } else {
                complete(v);
                *cost = info.base_cycles + work;
            }
            return 1;
        }
        if (v.dst.kind == DsdKind::FabOut && !ramp_route_ok(v.dst.colour, pc)) return -1;
        v.done_at = 0;
        if (async) {
            ce.ut[slot] = v;
            ce.ut_busy |= uint8_t(1u << slot);
        } else {
            ce.vop = v;
            ce.state = ThreadState::Vec;
            ce.stall_since = now;
        }
        ce.reading = reading_mask();
        return 1;
    }

    // [SECTION] the step

    void step() {
        m.core_steps_++;
        rt.refresh(now);
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
                    complete(ce.vop);
                    uint64_t took = now + 1 - ce.stall_since;
                    ce.stats.busy += ce.vop.n;
                    ce.stats.stall += took > ce.vop.n ? took - ce.vop.n : 0;
                    ce.state = ThreadState::Run;
                    ce.ready_at = now + 1;
                    ce.reading = reading_mask();
                    moved = true;
                }
                break;
            }
        }
        if (moved) {
            m.progress_++;
            m.wake_core(i, now + 1);
        } else if (ce.state == ThreadState::Run && ce.ready_at == now + 1) {
            m.wake_core(i, now + 1);
        }
    }
};

void Machine::core_step(int i) { CoreExec(*this, i).step(); }

}  // namespace wl
