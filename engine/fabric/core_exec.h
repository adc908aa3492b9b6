// core_exec.h: the compute engine's interpreter, shared by cycle mode and
// fast mode. It reads and writes one PE's Core and SRAM, and reaches the rest
// of the world only through a Port, which each mode implements:
//
//   port.recv_at(c)        when the head of colour c's CE input queue is visible (kNever: empty)
//   port.head_ctrl(c)      the head is a control wavelet
//   port.pop(c)            take the head
//   port.ramp_at(c)        when the ramp next takes a wavelet (kNever: full for now)
//   port.routed(c)         the router has a route for c that accepts RAMP
//   port.send(c, w, ctrl, t)   a wavelet up the ramp at cycle t
//   port.timer(t)          wake this CE at cycle t
//   port.fault(kind, colour, task, pc, message)     port.faulted()
//   port.tracing()  port.trace(kind, colour, task, data)
//
// Cycle mode's port answers only "now" or kNever; fast mode's port answers
// future times, and the interpreter waits for them (a stall that ends).
// What differs between the modes (one instruction per cycle, or a PE run until
// it blocks; fabric vector ops a chunk per cycle, or whole) is in core.cpp and
// fast_mode.cpp; what an instruction means is here, once.
#pragma once
#include "engine/fabric/core.h"
#include "engine/fabric/fault.h"
#include "engine/fabric/fmacs_loop.h"
#include "engine/fabric/fmacs_tile16.h"
#include "engine/fabric/nest_map.h"
#include "engine/fabric/trace.h"
#include "engine/fabric/vector_ops.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cmath>
#include <cstring>
#include <string>

namespace wl {

inline float f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t u32(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

template <class Port>
struct CoreExec {
    Port& port;
    Core& ce;
    uint8_t* const mem;
    const uint32_t sram_bytes;
    const LoadedProgram* const lp;
    const int pick_cycles, simd;
    uint64_t now;

    CoreExec(Port& p, Core& c, uint8_t* m, uint32_t sram, const LoadedProgram* l, int pick, int simd_fp32, uint64_t t)
        : port(p), ce(c), mem(m), sram_bytes(sram), lp(l), pick_cycles(pick), simd(simd_fp32), now(t) {}

    void fault(FaultKind k, int colour, int32_t pc, std::string msg) { port.fault(k, colour, ce.task, pc, std::move(msg)); }

    // [SECTION] operands

    // Elements [from, from+n) of a mem1d DSD must lie in SRAM, word-aligned.
    // Inline: it runs on every chunk of a fabric vector op; the fault report is out of line.
    __attribute__((always_inline)) bool mem_ok(const Dsd& d, uint32_t from, uint32_t n, uint32_t pc) {
        int64_t lo, hi;
        return in_sram(d, from, n, &lo, &hi) || mem_fault(d, from, n, pc, lo, hi);
    }
    // The same test without the fault: [lo, hi] is the span's first and last word's byte address.
    __attribute__((always_inline)) bool in_sram(const Dsd& d, uint32_t from, uint32_t n, int64_t* lo, int64_t* hi) {
        if (d.kind != DsdKind::Mem1d || n == 0) return true;
        int64_t a0 = int64_t(d.base) + int64_t(from) * d.stride * 4;
        int64_t a1 = a0 + int64_t(n - 1) * d.stride * 4;
        *lo = a0 < a1 ? a0 : a1, *hi = a0 < a1 ? a1 : a0;
        if ((d.base & 3) == 0 && *lo >= 0 && *hi + 4 <= int64_t(sram_bytes)) {
            if (uint32_t(*hi + 4) > ce.sram_used) ce.sram_used = uint32_t(*hi + 4);   // reads too: a cheap upper bound
            return true;
        }
        return false;
    }
    __attribute__((noinline)) bool mem_fault(const Dsd& d, uint32_t from, uint32_t n, uint32_t pc, int64_t lo, int64_t hi) {
        fault(FaultKind::OutOfBounds, -1, int32_t(pc),
              "vector operand outside SRAM: mem1d base " + std::to_string(d.base) + ", stride " + std::to_string(d.stride) +
                  ", elements " + std::to_string(from) + ".." + std::to_string(from + n - 1) + " touch bytes " +
                  std::to_string(lo) + ".." + std::to_string(hi + 3) + " of " + std::to_string(sram_bytes));
        return false;
    }
    float load(const Dsd& d, uint32_t k) const { return f32(*reinterpret_cast<const uint32_t*>(mem + d.base + int64_t(k) * d.stride * 4)); }
    void store(const Dsd& d, uint32_t k, float v) { *reinterpret_cast<uint32_t*>(mem + d.base + int64_t(k) * d.stride * 4) = u32(v); }

    bool ramp_route_ok(int c, uint32_t pc) {
        if (port.routed(c)) return true;
        fault(FaultKind::NoRoute, c, int32_t(pc), "CE sends on colour " + std::to_string(c) + " but its router has no route accepting RAMP");
        return false;
    }

    // [SECTION] vector ops

    static bool two_sources(Op op) { return fmt_two_sources(op_fmt(op)); }
    static bool is_fabric(const VecOp& v) {
        return v.a.kind == DsdKind::FabIn || v.b.kind == DsdKind::FabIn || v.dst.kind == DsdKind::FabOut;
    }

    // Counts n elements of v into the CE's stats: elements, FP operations and SRAM bytes (fabric operands
    // touch no SRAM). Every mode calls it once per chunk it moves, so the totals never depend on the mode.
    void count_elems(const VecOp& v, uint32_t n) {
        const Fmt f = op_fmt(v.op);
        const uint32_t mem_operands = (v.a.kind == DsdKind::Mem1d) + (fmt_two_sources(f) && v.b.kind == DsdKind::Mem1d) +
                                      (f != Fmt::VecR && v.dst.kind == DsdKind::Mem1d);
        ce.stats.elems += n;
        ce.stats.flops += uint64_t(n) * vec_flops_per_elem(v.op);
        ce.stats.sram_bytes += uint64_t(n) * 4 * mem_operands;
    }

    // Memory-only ops: the hot path. Unit strides get plain pointer loops the compiler vectorises:
    // operands that cannot overlap are marked so, and the in-place form (dst is the first source,
    // as in fmacs C, C, A, s) has its own loop; element k depends only on element k, so vector
    // lanes give the same bits. Overlapping operands keep the loop in element order.
    template <Op O>
    static void unit_loop(float* __restrict d, const float* __restrict a, const float* __restrict b, uint32_t n, float s) {
        for (uint32_t k = 0; k < n; ++k) d[k] = vec_elem<O>(a[k], b[k], s);
    }
    template <Op O>
    static void unit_loop_in_place(float* __restrict d, const float* __restrict b, uint32_t n, float s) {
        for (uint32_t k = 0; k < n; ++k) d[k] = vec_elem<O>(d[k], b[k], s);
    }
    static bool apart(const float* x, const float* y, uint32_t n) { return x + n <= y || y + n <= x; }
    template <Op O>
    __attribute__((always_inline)) static void unit_memory_loop(float* d, const float* a, const float* b, uint32_t n, float s) {
        constexpr bool two = fmt_two_sources(op_fmt(O));
        const bool b_apart = !two || apart(d, b, n);
        if (d == a && b_apart) unit_loop_in_place<O>(d, b, n, s);
        else if (b_apart && apart(d, a, n)) unit_loop<O>(d, a, b, n, s);
        else for (uint32_t k = 0; k < n; ++k) d[k] = vec_elem<O>(a[k], two ? b[k] : 0.0f, s);
    }
    template <Op O>
    void memory_loop(const Dsd& dst, const Dsd& da, const Dsd& db, uint32_t n, float s) {
        float* d = reinterpret_cast<float*>(mem + dst.base);
        const float* a = reinterpret_cast<const float*>(mem + da.base);
        constexpr bool two = fmt_two_sources(op_fmt(O));
        const float* b = two ? reinterpret_cast<const float*>(mem + db.base) : a;   // one source: y is unused
        if (dst.stride == 1 && da.stride == 1 && (!two || db.stride == 1)) {
            unit_memory_loop<O>(d, a, b, n, s);
        } else {
            const int64_t sd = dst.stride, sa = da.stride, sb = db.stride;
            for (int64_t k = 0; k < int64_t(n); ++k) d[k * sd] = vec_elem<O>(a[k * sa], two ? b[k * sb] : 0.0f, s);
        }
    }
    // fsums: left to right from acc.
    float memory_sum(const Dsd& da, uint32_t n, float acc) {
        const float* a = reinterpret_cast<const float*>(mem + da.base);
        for (int64_t k = 0; k < int64_t(n); ++k) acc = acc + a[k * da.stride];
        return acc;
    }
    void run_memory(VecOp& v) {
        if (v.op == Op::FSUMS) v.scalar = u32(memory_sum(v.a, v.n, f32(v.scalar)));
        else vec_dispatch(v.op, [&](auto O) { memory_loop<O()>(v.dst, v.a, v.b, v.n, f32(v.scalar)); });
        v.i = v.n;
    }

    // One element of a fabric op: its sources x (and y) in, the result out (to memory, or returned for the ramp).
    float elem(const VecOp& v, float x, float y) {
        float r = 0.0f;
        vec_dispatch(v.op, [&](auto O) { r = vec_elem<O()>(x, y, f32(v.scalar)); });
        return r;
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
    // A main-thread fabric op finished at cycle `at`: the thread runs again at at + 1.
    void finish_vop(uint64_t at) {
        complete(ce.vop);
        uint64_t took = at + 1 - ce.stall_since;
        ce.stats.busy += ce.vop.n;
        ce.stats.stall += took > ce.vop.n ? took - ce.vop.n : 0;
        ce.state = ThreadState::Run;
        ce.ready_at = at + 1;
        ce.reading = reading_mask();
    }

    // [SECTION] tasks

    void start(int fn, int task, uint32_t payload) {
        const Function& f = lp->prog->functions[fn];
        ce.fn = uint16_t(fn);
        ce.pc = f.entry;
        ce.base = 0;
        ce.depth = 0;
        ce.reg[0] = payload;
        ce.task = int8_t(task);
        ce.state = ThreadState::Run;
        ce.ready_at = now + uint64_t(pick_cycles);
        ce.stats.tasks++;
        ce.stats.busy += uint64_t(pick_cycles);
        if (port.tracing()) port.trace(now, TraceKind::TaskStart, 0, int16_t(task), f.entry);
    }

    // The task bound to id t, or a NoTask fault (an id activated with no function bound).
    const TaskBinding* binding(int t, int colour) {
        for (const TaskBinding& b : lp->prog->tasks)
            if (b.id == t) return &b;
        ce.tasks_active &= ~(1u << t);
        fault(FaultKind::NoTask, colour, int32_t(ce.pc), "task " + std::to_string(t) + " was activated but has no function bound");
        return nullptr;
    }
    // The task a wavelet at the head of colour c starts: its control task for a control wavelet, if bound.
    int task_of(int c) { return port.head_ctrl(c) && lp->ctrl_task_of_colour[c] >= 0 ? lp->ctrl_task_of_colour[c] : lp->task_of_colour[c]; }

    // Start task t (from colour c's head wavelet, or a local task when c < 0).
    bool start_task(int t, int c) {
        const TaskBinding* tb = binding(t, c);
        if (!tb) return false;
        uint32_t payload = 0;
        if (c >= 0) {
            payload = port.pop(c);
            ce.stats.received++;
        } else {
            ce.tasks_active &= ~(1u << t);
        }
        start(tb->function, t, payload);
        return true;
    }

    // [SECTION] interpreter

    void stall(StallWhy why, int colour) {
        if (ce.state != ThreadState::Stalled) {
            ce.stall_since = now;
            if (port.tracing()) port.trace(now, TraceKind::Stall, uint8_t(colour < 0 ? 0 : colour), ce.task, ce.pc);
        }
        ce.state = ThreadState::Stalled;
        ce.why = why;
        ce.wait_colour = uint8_t(colour < 0 ? 0 : colour);
    }
    // Fast mode: the fabric answered with a time ahead of now. Stall until then.
    void wait_until(uint64_t at, StallWhy why, int colour) {
        stall(why, colour);
        now = at;
    }

    // [SECTION] plain instructions: registers, SRAM, DSD registers and branches

    // Plain instructions touch only this PE's registers, SRAM and DSD registers, and the pc: the
    // CE's time and the fabric cannot change what they do, so a run of them needs no checks between.
    static constexpr bool plain_op(Op op) {
        switch (op) {
        case Op::CALL: case Op::RET: case Op::SEND: case Op::SENDC: case Op::RECV:
        case Op::ACTIVATE: case Op::BLOCK: case Op::UNBLOCK: return false;
        default: return !op_is_vector_fmt(op_fmt(op));
        }
    }
    // Per op byte: its cost in cycles when it is plain, 0 when not, so one lookup decides both.
    struct PlainCost {
        uint8_t v[256];
        constexpr PlainCost() : v() {
            for (size_t k = 0; k < size_t(Op::kCount); ++k) {
                v[k] = plain_op(Op(k)) ? op_base_cycles(Op(k)) : 0;
                if (plain_op(Op(k)) && v[k] == 0) throw "a plain op must take at least one cycle";   // not constexpr: a compile error
            }
        }
    };
    static constexpr PlainCost kPlainCost{};
    static_assert(sizeof(Op) == 1, "kPlainCost covers every byte");
    static bool plain(Op op) { return kPlainCost.v[size_t(op)] != 0; }

    // What each plain instruction does, once: X(name, effect). The effect reads its instruction `in`,
    // the frame's registers R, the core C, the SRAM M of `sram` bytes; a branch sets the next
    // instruction `nx` (a pointer into `code`); a load or store outside SRAM goes to `bad_addr`.
    // Fast mode's threaded loop (run_plain) and cycle mode's one-instruction step (step_plain)
    // expand it. Operands as floats or signed ints are read where an effect needs them.
#define fb f32(R[in.b])
#define fc f32(R[in.c])
#define ib int32_t(R[in.b])
#define ic int32_t(R[in.c])
#define F3(v) (R[in.a] = u32(v))
#define WL_PLAIN_OPS(X)                                                                                                   \
    X(NOP, )                                                                                                              \
    X(LI, R[in.a] = uint32_t(in.imm);)                                                                                    \
    X(LDP, R[in.a] = C.konst[in.imm];) /* imm < nconsts: checked on load */                                              \
    X(MOV, R[in.a] = R[in.b];)                                                                                            \
    X(IADD, R[in.a] = R[in.b] + R[in.c];)                                                                                 \
    X(ISUB, R[in.a] = R[in.b] - R[in.c];)                                                                                 \
    X(IMUL, R[in.a] = R[in.b] * R[in.c];)                                                                                 \
    X(IDIV, R[in.a] = ic == 0 ? 0u : (ib == INT_MIN && ic == -1) ? uint32_t(INT_MIN) : uint32_t(ib / ic);)                \
    X(IREM, R[in.a] = ic == 0 ? uint32_t(ib) : (ib == INT_MIN && ic == -1) ? 0u : uint32_t(ib % ic);)                     \
    X(IAND, R[in.a] = R[in.b] & R[in.c];)                                                                                 \
    X(IOR, R[in.a] = R[in.b] | R[in.c];)                                                                                  \
    X(IXOR, R[in.a] = R[in.b] ^ R[in.c];)                                                                                 \
    X(ISHL, R[in.a] = R[in.b] << (R[in.c] & 31);)                                                                         \
    X(ISHR, R[in.a] = uint32_t(ib >> (R[in.c] & 31));)                                                                    \
    X(IADDI, R[in.a] = R[in.b] + uint32_t(in.imm);)                                                                       \
    X(ISHLI, R[in.a] = R[in.b] << (uint32_t(in.imm) & 31);)                                                               \
    X(IMULI, R[in.a] = R[in.b] * uint32_t(in.imm);)                                                                       \
    X(ILT, R[in.a] = ib < ic;)                                                                                            \
    X(ILE, R[in.a] = ib <= ic;)                                                                                           \
    X(IEQ, R[in.a] = R[in.b] == R[in.c];)                                                                                 \
    X(INE, R[in.a] = R[in.b] != R[in.c];)                                                                                 \
    X(FADD, F3(fb + fc);)                                                                                                 \
    X(FSUB, F3(fb - fc);)                                                                                                 \
    X(FMUL, F3(fb * fc);)                                                                                                 \
    X(FDIV, F3(fb / fc);)                                                                                                 \
    X(FMIN, F3((fb < fc || fc != fc) ? fb : fc);)                                                                         \
    X(FMAX, F3(vec_elem<Op::FMAXS>(fb, fc, 0));)                                                                          \
    X(FLT, R[in.a] = fb < fc;)                                                                                            \
    X(FLE, R[in.a] = fb <= fc;)                                                                                           \
    X(FEQ, R[in.a] = fb == fc;)                                                                                           \
    X(FNEG, R[in.a] = R[in.b] ^ 0x80000000u;)                                                                             \
    X(FABS, R[in.a] = R[in.b] & 0x7fffffffu;)                                                                             \
    X(FSQRT, F3(float(std::sqrt(double(fb))));)                                                                           \
    X(FEXP, F3(math::expf(fb));)                                                                                          \
    X(FRSQRT, F3(math::rsqrtf(fb));)                                                                                      \
    X(FTANH, F3(math::tanhf(fb));)                                                                                        \
    X(FLOG, F3(math::logf(fb));)                                                                                          \
    X(ITOF, F3(float(ib));)                                                                                               \
    X(FTOI, R[in.a] = fb != fb ? 0u : fb >= 2147483648.0f ? uint32_t(INT_MAX) : fb < -2147483648.0f ? uint32_t(INT_MIN)   \
                                                                                      : uint32_t(int32_t(fb));)           \
    X(LD, {                                                                                                               \
        const uint32_t addr = R[in.b] + uint32_t(in.imm);                                                                 \
        if ((addr & 3) || uint64_t(addr) + 4 > sram) goto bad_addr;                                                       \
        std::memcpy(&R[in.a], M + addr, 4);                                                                               \
    })                                                                                                                    \
    X(ST, {                                                                                                               \
        const uint32_t addr = R[in.b] + uint32_t(in.imm);                                                                 \
        if ((addr & 3) || uint64_t(addr) + 4 > sram) goto bad_addr;                                                       \
        std::memcpy(M + addr, &R[in.a], 4);                                                                               \
        if (addr + 4 > C.sram_used) C.sram_used = addr + 4;                                                               \
    })                                                                                                                    \
    X(JMP, nx = code + in.imm;)                                                                                           \
    X(BNZ, if (R[in.a]) nx = code + in.imm;)                                                                              \
    X(BZ, if (!R[in.a]) nx = code + in.imm;)                                                                              \
    X(BLT, if (int32_t(R[in.a]) < int32_t(R[in.b])) nx = code + in.imm;)                                                  \
    X(PEID, R[in.a] = in.imm == 0 ? C.rx : in.imm == 1 ? C.ry : in.imm == 2 ? C.rw : C.rh;)                               \
    X(DMEM, C.dsd[in.a] = Dsd{DsdKind::Mem1d, 0, int16_t(in.imm), R[in.b], R[in.c]};)                                     \
    X(DFABIN, C.dsd[in.a] = Dsd{DsdKind::FabIn, uint8_t(in.imm), 1, 0, R[in.b]};)                                         \
    X(DFABOUT, C.dsd[in.a] = Dsd{DsdKind::FabOut, uint8_t(in.imm), 1, 0, R[in.b]};)                                       \
    X(DSETLEN, C.dsd[in.a].length = R[in.b];)                                                                             \
    X(DADDR, C.dsd[in.a].base += R[in.b];)

    // Cycle mode's step issues one plain instruction here, at `now`, as run_plain(now + 1) would,
    // through a switch over the same effects (a call into the threaded loop per instruction cost
    // cycle mode 6-8%). exec() has checked the pc. True if it issued; false on a fault.
    __attribute__((always_inline)) bool step_plain(const Instr& in) {
        Core& C = ce;
        const Instr* const code = lp->prog->code.data();
        const Instr* nx = &in + 1;
        uint32_t* const R = C.reg + C.base;
        uint8_t* const M = mem;
        const uint32_t sram = sram_bytes;
        uint32_t cost;
        switch (in.op) {
#define WL_X(name, ...)                   \
    case Op::name:                        \
        cost = op_base_cycles(Op::name);  \
        __VA_ARGS__                       \
        break;
            WL_PLAIN_OPS(WL_X)
#undef WL_X
        default: return unknown_op(uint32_t(&in - code));
        }
        C.pc = uint32_t(nx - code);
        C.ready_at = now + cost;
        C.stats.instrs++;
        C.stats.busy += cost;
        if (cost > 1) port.timer(C.ready_at);   // wake when its cost has passed
        return true;
    bad_addr:
        bad_address(in.op, R[in.b] + uint32_t(in.imm), uint32_t(&in - code));
        return false;
    }

    // [SECTION] fast mode's fmacs loop (fmacs_loop.h)

    typedef float F4 __attribute__((vector_size(16)));
    // d[k] = d[k] + y[k] * s for n a multiple of 4, four lanes at a time (fmacs_elem on vectors),
    // so the bits are the scalar loop's. d and y do not overlap.
    __attribute__((always_inline)) static void fmacs_in_place4(float* __restrict d, const float* __restrict y, uint32_t n, float s) {
        const F4 sv = {s, s, s, s};
        for (uint32_t k = 0; k < n; k += 4) {
            F4 dv, yv;
            std::memcpy(&dv, d + k, 16);
            std::memcpy(&yv, y + k, 16);
            dv = fmacs_elem(dv, yv, sv);
            std::memcpy(d + k, &dv, 16);
        }
    }
    // One fmacs of unit-stride operands inside SRAM: d = x + y s.
    __attribute__((always_inline)) static void fmacs_tile(float* d, const float* x, const float* y, uint32_t n, float s) {
        if (d == x && n == 16 && apart(d, y, 16)) fmacs_in_place4(d, y, 16, s);   // C += A s, SUMMA's tile: unrolled
        else if (d == x && (n & 3) == 0 && apart(d, y, n)) fmacs_in_place4(d, y, n, s);
        else unit_memory_loop<Op::FMACS>(d, x, y, n, s);
    }
    // Whether base + k step for every k < runs (runs > 0; uint32 steps, as the interpreter adds them)
    // is word-aligned with `bytes` inside SRAM. Such addresses never wrap, so they are base + k step
    // in plain integers, and the first and the last bound them all.
    bool runs_in_sram(uint32_t base, uint32_t step, uint64_t runs, uint32_t bytes) const {
        const int64_t last = int64_t(base) + int64_t(runs - 1) * int32_t(step);
        return !((base | step) & 3) && last >= 0 && uint64_t(std::max<int64_t>(base, last)) + bytes <= sram_bytes;
    }
    // The lowest and highest of base + k step for k < runs (runs > 0, all inside SRAM).
    static int64_t lowest(uint32_t base, uint32_t step, uint64_t runs) { return std::min<int64_t>(base, base + int64_t(runs - 1) * int32_t(step)); }
    static int64_t highest(uint32_t base, uint32_t step, uint64_t runs) { return std::max<int64_t>(base, base + int64_t(runs - 1) * int32_t(step)); }

    // A pass of fmacs_tile16_passes (fmacs_tile16.h) for any tile of n floats, d = a + y s, d and a stepping too.
    __attribute__((noinline)) static uint32_t fmacs_tile_runs(uint8_t* d, const ptrdiff_t dstep, const uint8_t* a, const ptrdiff_t astep,
                                                              const uint8_t* y, const ptrdiff_t ystep, const uint8_t* x, const ptrdiff_t xstep,
                                                              const uint32_t n, const uint64_t runs, const uint64_t loads, uint32_t sbits) {
        for (uint64_t k = 0; k < runs; ++k, y += ystep, a += astep, d += dstep) {
            fmacs_tile(reinterpret_cast<float*>(d), reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(y), n, f32(sbits));
            if (k < loads) std::memcpy(&sbits, x, 4), x += xstep;
        }
        return sbits;
    }

    // run_fmacs_loop's affine case (fmacs_loop.h), with the loop's state in locals: each register it
    // reads and each fmacs base is a value and a step. Runs up to max_iters iterations as the
    // interpreter would, writes the registers and bases back, and says how far it got in *iters,
    // *part and *at. When the counter counts up to its bound (so the trip count is known) and every
    // address of the iterations to run lies in SRAM, they run with no test at all; when the tile is
    // 16 floats that stay put (C += A s, SUMMA's) and nothing else the loop reads overlaps it, the
    // tile stays in registers across them. Otherwise each iteration tests its addresses and its
    // counter as the interpreter would, and stops where it would fault.
    __attribute__((always_inline)) void affine_loop(const FmacsLoop& L, const Instr* fm, const Instr& br, const Instr* ld, uint32_t n,
                                                    uint64_t max_iters, uint32_t* const R, uint64_t* iters_out, bool* part_out,
                                                    const Instr** at_out) {
        Core& C = ce;
        uint32_t sa = 0, sd = 0, sb = 0;   // the fmacs bases' steps
        for (int k = 0; k < L.nstep; ++k) {
            const uint32_t s = R[L.step[k].b];
            sa += L.step[k].a == fm->b ? s : 0;
            sd += L.step[k].a == fm->a ? s : 0;
            sb += L.step[k].a == fm->c ? s : 0;
        }
        uint32_t ab = C.dsd[fm->b].base, db = C.dsd[fm->a].base, bb = C.dsd[fm->c].base;
        uint32_t vi = R[br.a], vp = ld ? R[ld->b] : 0, sbits = R[fm->d];
        const uint32_t ci = L.counter_step, cp = L.address_step, vn = R[br.b], limm = ld ? uint32_t(ld->imm) : 0;
        const uint32_t tile = n * 4;
        uint64_t iters = 0;
        bool part = false;
        const Instr* at = fm;
        // The trip count: the counter goes up by ci > 0 from vi until it reaches vn, without passing
        // INT32_MAX on the way (the interpreter's signed compare would see it wrap).
        const int64_t left = int64_t(int32_t(vn)) - int32_t(vi);
        const uint64_t trips = int32_t(ci) <= 0 ? 0 : left <= 0 ? 1 : uint64_t((left + int32_t(ci) - 1) / int32_t(ci));
        const bool counted = trips && int64_t(int32_t(vi)) + int64_t(trips) * int32_t(ci) <= INT32_MAX;
        const uint64_t runs = counted ? std::min(trips, max_iters) : 0;   // fmacs to run at once
        const bool exits = counted && runs == trips;                       // and the last one leaves the loop
        const uint64_t loads = ld ? runs - exits : 0;                      // the ld of iteration k reads vp + (k + 1) cp + imm
        const uint32_t first_load = vp + cp + limm;
        if (runs && runs_in_sram(ab, sa, runs, tile) && runs_in_sram(db, sd, runs, tile) && runs_in_sram(bb, sb, runs, tile) &&
            (!loads || runs_in_sram(first_load, cp, loads, 4))) {
            const int64_t top = std::max({highest(ab, sa, runs), highest(db, sd, runs), highest(bb, sb, runs)}) + tile;
            if (top > int64_t(C.sram_used)) C.sram_used = uint32_t(top);   // as in_sram keeps it: the highest operand's end
            auto outside_tile = [&](int64_t lo, int64_t hi) { return hi <= int64_t(db) || lo >= int64_t(db) + tile; };
            const uint8_t* y = mem + bb;
            const uint8_t* x = loads ? mem + first_load : nullptr;
            const ptrdiff_t ystep = int32_t(sb), xstep = int32_t(cp);
            if (n == 16 && ab == db && sa == 0 && sd == 0 && outside_tile(lowest(bb, sb, runs), highest(bb, sb, runs) + tile) &&
                (!loads || outside_tile(lowest(first_load, cp, loads), highest(first_load, cp, loads) + 4)))
                sbits = fmacs_tile16_passes({mem + db, y, x, 0, 0, 0, ystep, xstep, 1, runs, loads, false}, sbits);
            else
                sbits = fmacs_tile_runs(mem + db, int32_t(sd), mem + ab, int32_t(sa), y, ystep, x, xstep, n, runs, loads, sbits);
            iters = runs - exits, part = exits, at = exits ? &br + 1 : fm;
        } else {
            for (; iters < max_iters; ++iters) {   // each address tested
                const uint32_t top = std::max(std::max(ab, db), bb);
                if (((ab | db | bb) & 3) || uint64_t(top) + tile > sram_bytes) break;   // the interpreter faults
                if (top + tile > C.sram_used) C.sram_used = top + tile;
                fmacs_tile(reinterpret_cast<float*>(mem + db), reinterpret_cast<const float*>(mem + ab), reinterpret_cast<const float*>(mem + bb), n,
                           f32(sbits));
                ab += sa, db += sd, bb += sb, vi += ci, vp += cp;
                if (!(int32_t(vi) < int32_t(vn))) {
                    at = &br + 1, part = true;
                    break;
                }
                if (ld) {
                    const uint32_t addr = vp + limm;   // vp is vi when the ld's register is the counter: the same start and step
                    if ((addr & 3) || uint64_t(addr) + 4 > sram_bytes) {   // the interpreter issues it and faults
                        at = ld, part = true;
                        break;
                    }
                    std::memcpy(&sbits, mem + addr, 4);
                }
            }
        }
        // Write back what the iterations did: every iaddi and daddr ran once per fmacs (mod 2^32, as
        // the additions one by one), and the last ld's value.
        const uint32_t done = uint32_t(iters + part);
        for (int k = 0; k < L.nadd; ++k) R[L.add[k].a] += L.add[k].imm * done;
        for (int k = 0; k < L.nstep; ++k) C.dsd[L.step[k].a].base += R[L.step[k].b] * done;
        if (ld && iters) R[fm->d] = sbits;
        *iters_out = iters, *part_out = part, *at_out = at;
    }
    // An fmacs loop's iteration from its fmacs (operands of n elements): its cycles and
    // instructions, and those of the last one, which stops after the blt.
    struct IterationCost {
        uint32_t cycles, instrs, part_cycles, part_instrs;
    };
    IterationCost iteration_cost(const FmacsLoop& L, uint32_t n) const {
        const uint32_t f_cost = uint32_t(op_base_cycles(Op::FMACS) + memory_work(Op::FMACS, n));
        const uint32_t part_cycles = f_cost + L.post_cycles + op_base_cycles(Op::BLT), part_instrs = uint32_t(L.nadd + L.nstep) + 2;
        const bool ld = L.ld >= 0;
        return {part_cycles + (ld ? op_base_cycles(Op::LD) : 0u), part_instrs + (ld ? 1u : 0u), part_cycles, part_instrs};
    }
    // The statistics of `done` fmacs of n elements on memory.
    void count_fmacs(uint64_t done, uint32_t n) {
        ce.stats.elems += done * n;
        ce.stats.flops += done * n * vec_flops_per_elem(Op::FMACS);
        ce.stats.sram_bytes += done * n * 4 * 3;
    }
    struct LoopRun {
        const Instr* ip;
        uint64_t t;
        uint32_t count, cost;
    };
    // Runs the fmacs loop whose fmacs is at ip from cycle t, with run_plain's count and last cost,
    // whole iterations while each ends before stop, and returns where the interpreter goes on: the
    // fmacs (its operands not the unit case, or the next iteration would reach stop; the interpreter
    // then decides, and faults, as it would have), the ld when its address is outside SRAM, or the
    // instruction after the loop. Each instruction has its interpreter effect and cost, in order, on
    // the live registers and DSDs; what is saved is the dispatch, the per-instruction bookkeeping and
    // the fmacs operand decoding.
    __attribute__((noinline)) LoopRun run_fmacs_loop(const FmacsLoop& L, const Instr* const fm, uint64_t t, uint32_t count, uint32_t cost,
                                                     uint64_t stop, uint32_t* const R) {
        const Instr* const code = lp->prog->code.data();
        const Instr& br = code[L.blt];
        const Instr* const ld = L.ld >= 0 ? code + L.ld : nullptr;
        Core& C = ce;
        // The operands: unit-stride mem1d DSDs of one length n > 0, as memory_vec_unit wants. The loop's own
        // instructions (iaddi, daddr, ld) cannot change a DSD's kind, stride or length, only its base.
        if (fm->e | C.ut_busy) return {fm, t, count, cost};
        const Dsd& a = C.dsd[fm->b];
        const Dsd& dst = C.dsd[fm->a];
        const Dsd& b = C.dsd[fm->c];
        if (!unit_operands(a, dst, b)) return {fm, t, count, cost};
        const uint32_t n = a.length;
        constexpr uint32_t kBranch = op_base_cycles(Op::BLT), kLoad = op_base_cycles(Op::LD);
        const IterationCost per = iteration_cost(L, n);
        const uint32_t part_cycles = per.part_cycles, part_instrs = per.part_instrs, iter_cycles = per.cycles, iter_instrs = per.instrs;
        // Iteration i runs whole only if it ends before stop, as the interpreter's test after each
        // instruction would have it: t + (i + 1) * iter_cycles < stop (t < stop here).
        const uint64_t max_iters = (stop - t - 1) / iter_cycles;
        uint64_t iters = 0;      // whole iterations
        bool part = false;       // and then one that stopped after its blt
        const Instr* at = fm;    // where the interpreter goes on
        if (L.affine) {
            affine_loop(L, fm, br, ld, n, max_iters, R, &iters, &part, &at);
        } else {   // each instruction on the live registers and DSDs
            for (; iters < max_iters; ++iters) {
                const uint32_t ab = a.base, db = dst.base, bb = b.base;
                const uint32_t top = std::max(std::max(ab, db), bb);
                if (((ab | db | bb) & 3) || uint64_t(top) + uint64_t(n) * 4 > sram_bytes) break;   // the interpreter faults
                if (top + n * 4 > C.sram_used) C.sram_used = top + n * 4;
                fmacs_tile(reinterpret_cast<float*>(mem + db), reinterpret_cast<const float*>(mem + ab), reinterpret_cast<const float*>(mem + bb),
                           n, f32(R[fm->d]));
                for (int k = 0; k < L.nadd; ++k) R[L.add[k].a] = R[L.add[k].b] + L.add[k].imm;
                for (int k = 0; k < L.nstep; ++k) C.dsd[L.step[k].a].base += R[L.step[k].b];
                if (!(int32_t(R[br.a]) < int32_t(R[br.b]))) {
                    at = &br + 1, part = true;
                    break;
                }
                if (ld) {
                    const uint32_t addr = R[ld->b] + uint32_t(ld->imm);
                    if ((addr & 3) || uint64_t(addr) + 4 > sram_bytes) {   // the interpreter issues it and faults
                        at = ld, part = true;
                        break;
                    }
                    std::memcpy(&R[ld->a], mem + addr, 4);
                }
            }
        }
        const uint64_t fmacs_done = iters + part;
        if (fmacs_done == 0) return {fm, t, count, cost};
        t += iters * iter_cycles + (part ? part_cycles : 0);
        count += uint32_t(iters * iter_instrs + (part ? part_instrs : 0));
        cost = part || !ld ? kBranch : kLoad;
        count_fmacs(fmacs_done, n);
        return {at, t, count, cost};
    }

    // One straight instruction's effect (fmacs_loop.h), from the interpreter's table: no branch, no
    // memory, no fault, so `code`, `nx`, `M`, `sram` and bad_addr are there only for the other ops.
    __attribute__((always_inline)) void straight(const Instr& in, uint32_t* const R) {
        [[maybe_unused]] Core& C = ce;
        [[maybe_unused]] const Instr* const code = nullptr;
        [[maybe_unused]] const Instr* nx = nullptr;
        [[maybe_unused]] uint8_t* const M = mem;
        [[maybe_unused]] const uint32_t sram = sram_bytes;
        switch (in.op) {
#define WL_X(name, ...)          \
    case Op::name:               \
        if constexpr (straight_op(Op::name)) { __VA_ARGS__ } \
        break;
            WL_PLAIN_OPS(WL_X)
#undef WL_X
        default: break;
        }
        return;
    [[maybe_unused]] bad_addr:;
    }
    // Runs the nest around fmacs loop L (fmacs_loop.h) from the end of its inner loop (r.ip is the
    // instruction after L's blt): an affine nest's passes that can run at once first
    // (run_affine_passes), then pass by pass while a pass ends before stop: the tail, the outer
    // blt, the lead and the inner loop's ld with their interpreter effects and costs, then the
    // inner loop's iterations through run_fmacs_loop. Returns where the interpreter goes on: after
    // the outer blt, or where a pass could not go on (stop, an ld outside SRAM, where the inner
    // loop handed back).
    __attribute__((noinline)) LoopRun run_fmacs_nest(const FmacsLoop& L, LoopRun r, uint64_t stop, uint32_t* const R) {
        const NestCode c(lp->prog->code.data(), L);
        const FmacsNest& N = L.nest;
        const Instr *const after = c.after, *const outer = c.outer, *const lead = c.lead, *const head = c.head, *const ld = c.ld;
        constexpr uint32_t kBranch = op_base_cycles(Op::BLT), kLoad = op_base_cycles(Op::LD);
        const uint32_t ntail = uint32_t(outer - after), nlead = uint32_t(head - lead);
        if (N.affine) r = run_affine_passes(L, c, r, stop, R);
        while (r.ip == after && r.t + c.cycles < stop) {   // every instruction of the pass ends before stop
            for (const Instr* p = after; p != outer; ++p) straight(*p, R);
            if (!(int32_t(R[outer->a]) < int32_t(R[outer->b])))   // the nest is done
                return {outer + 1, r.t + N.tail_cycles + kBranch, r.count + ntail + 1, kBranch};
            for (const Instr* p = lead; p != head; ++p) straight(*p, R);
            r.t += N.tail_cycles + kBranch + N.lead_cycles, r.count += ntail + 1 + nlead, r.cost = N.last_cost;
            if (ld) {
                const uint32_t addr = R[ld->b] + uint32_t(ld->imm);
                if ((addr & 3) || uint64_t(addr) + 4 > sram_bytes) return {ld, r.t, r.count, r.cost};   // the interpreter issues it and faults
                std::memcpy(&R[ld->a], mem + addr, 4);
                r.t += kLoad, r.count += 1, r.cost = kLoad;
            }
            r = run_fmacs_loop(L, c.fm, r.t, r.count, r.cost, stop, R);
        }
        return r;
    }
    // A nest's instructions (fmacs_loop.h) in the code, and the cycles and instructions of a pass's
    // straight part: its tail, outer blt, lead and head ld.
    struct NestCode {
        const Instr *after, *outer, *lead, *head, *fm, *ld;
        uint32_t cycles, instrs;
        NestCode(const Instr* code, const FmacsLoop& L)
            : after(code + L.blt + 1), outer(code + L.nest.blt), lead(code + L.nest.lead), head(code + L.head()), fm(code + L.fmacs),
              ld(L.ld >= 0 ? code + L.ld : nullptr),
              cycles(L.nest.tail_cycles + op_base_cycles(Op::BLT) + L.nest.lead_cycles + (ld ? op_base_cycles(Op::LD) : 0)),
              instrs(uint32_t(outer - after) + 1 + uint32_t(head - lead) + (ld ? 1 : 0)) {}
    };

    void snap(NestPoint& P, const FmacsNest& W, const uint32_t* R) const {
        for (uint32_t k = 0; k < W.nreg; ++k) P.w[k] = R[W.reg[k]];
        for (uint32_t k = 0; k < W.ndsd; ++k) std::memcpy(P.w + W.nreg + 3 * k, static_cast<const void*>(&ce.dsd[W.dsd[k]]), 12);
    }
    void restore(const NestPoint& P, const FmacsNest& W, uint32_t* R) {
        for (uint32_t k = 0; k < W.nreg; ++k) R[W.reg[k]] = P.w[k];
        for (uint32_t k = 0; k < W.ndsd; ++k) std::memcpy(static_cast<void*>(&ce.dsd[W.dsd[k]]), P.w + W.nreg + 3 * k, 12);
    }

    // Whether M was worked out for loop L from the live state (nest_map.h), and if not, makes it
    // M's state.
    bool same_state(NestMap& M, const FmacsLoop& L, const uint32_t* R) const {
        const FmacsNest& N = L.nest;
        const uint32_t nregs = lp->prog->functions[ce.fn].nregs;   // no instruction names one past the frame (validate_program)
        bool same = M.loop == &L;
        for (uint64_t m = N.state_regs & (nregs < 64 ? (1ull << nregs) - 1 : ~0ull); m; m &= m - 1) {
            const int k = __builtin_ctzll(m);
            same = same && M.regs[k] == R[k];
            M.regs[k] = R[k];
        }
        for (uint32_t m = N.state_dsds; m; m &= m - 1) {
            const int k = __builtin_ctz(m);
            same = same && !std::memcmp(static_cast<const void*>(&M.dsd[k]), static_cast<const void*>(&ce.dsd[k]), sizeof(Dsd));
            M.dsd[k] = ce.dsd[k];
        }
        M.loop = &L;
        return same;
    }
    // An affine nest's map from the live state (r.ip after the inner loop; nest_map.h): two passes'
    // effect on the registers and DSDs worked out without their fmacs (the map needs no memory: the
    // ld's scalar is dead when a pass starts), on the live registers and DSDs, put back after. If
    // they change x by the same d, start their inner loops alike and count the outer loop up to a
    // fixed bound, every pass after them does too (M.alike).
    void work_out(NestMap& M, const FmacsLoop& L, const NestCode& c, uint32_t* const R) {
        const Instr *const after = c.after, *const outer = c.outer, *const lead = c.lead, *const head = c.head, *const fm = c.fm, *const ld = c.ld;
        const Instr& br = c.after[-1];   // the inner blt
        const FmacsNest& W = L.nest;
        M.alike = false;
        // x[p] as pass p starts, e[p] as its inner loop starts, and the inner loop's trip count.
        NestPoint x[3];
        NestEntry e[2];
        uint64_t trips = 0;
        snap(x[0], W, R);
        for (int p = 0; p < 2; ++p) {
            NestEntry& E = e[p];
            for (const Instr* q = after; q != outer; ++q) straight(*q, R);
            E.outer_a = R[outer->a], E.outer_b = R[outer->b];
            for (const Instr* q = lead; q != head; ++q) straight(*q, R);
            if (ld) R[ld->a] = 0;   // the scalar: data, read by nothing but the fmacs
            E.a = ce.dsd[fm->b], E.d = ce.dsd[fm->a], E.b = ce.dsd[fm->c];
            E.sa = E.sd = E.sb = 0;
            for (int k = 0; k < L.nstep; ++k) {
                const uint32_t st = R[L.step[k].b];
                E.sa += L.step[k].a == fm->b ? st : 0;
                E.sd += L.step[k].a == fm->a ? st : 0;
                E.sb += L.step[k].a == fm->c ? st : 0;
            }
            E.vi = R[br.a], E.vn = R[br.b], E.vp = ld ? R[ld->b] : 0;
            const uint32_t ci = L.counter_step;
            const int64_t left = int64_t(int32_t(E.vn)) - int32_t(E.vi);
            const uint64_t t = int32_t(ci) <= 0 ? 0 : left <= 0 ? 1 : uint64_t((left + int32_t(ci) - 1) / int32_t(ci));
            if (!unit_operands(E.a, E.d, E.b) || !t || int64_t(int32_t(E.vi)) + int64_t(t) * int32_t(ci) > INT32_MAX) {
                restore(x[0], W, R);
                return;
            }
            trips = t;
            for (int k = 0; k < L.nadd; ++k) R[L.add[k].a] += L.add[k].imm * uint32_t(t);
            for (int k = 0; k < L.nstep; ++k) ce.dsd[L.step[k].a].base += R[L.step[k].b] * uint32_t(t);
            snap(x[p + 1], W, R);
        }
        restore(x[0], W, R);
        const uint32_t nw = W.nreg + 3u * W.ndsd;
        for (uint32_t k = 0; k < nw; ++k)
            if (x[1].w[k] - x[0].w[k] != x[2].w[k] - x[1].w[k] && !(ld && k < W.nreg && W.reg[k] == fm->d)) return;
        // Then every pass is alike if the first two are: the operands' kinds, strides and lengths, the
        // steps, and the counter's start and bound (so the trip count); and the outer blt is taken
        // while its counter counts up to a fixed bound.
        const NestEntry &e0 = e[0], &e1 = e[1];
        auto same_shape = [](const Dsd& u, const Dsd& v) { return u.kind == v.kind && u.stride == v.stride && u.length == v.length; };
        if (!same_shape(e0.a, e1.a) || !same_shape(e0.d, e1.d) || !same_shape(e0.b, e1.b) || e0.vi != e1.vi || e0.vn != e1.vn ||
            e0.sa != e1.sa || e0.sd != e1.sd || e0.sb != e1.sb)
            return;
        const int64_t da = int32_t(e1.outer_a - e0.outer_a), a0v = int32_t(e0.outer_a);
        if (e1.outer_b != e0.outer_b || da <= 0 || a0v + da != int32_t(e1.outer_a) || a0v >= int32_t(e0.outer_b)) return;
        for (uint32_t k = 0; k < nw; ++k) M.d.w[k] = x[1].w[k] - x[0].w[k];
        M.e0 = e0, M.e1 = e1, M.trips = trips;
        M.alike = true;
    }

    // An affine nest's passes from here (r.ip is after the inner loop), as many as run at once
    // (fmacs_loop.h), from the nest's map at the live state (work_out, or the PE's map kept from an
    // entry at the same state): the passes the outer loop has left before its last, that end before
    // stop, and whose every address lies in SRAM run their fmacs back to back, and the registers,
    // DSDs, time, count and statistics move that many passes on. Else nothing changes.
    __attribute__((noinline)) LoopRun run_affine_passes(const FmacsLoop& L, const NestCode& c, LoopRun r, uint64_t stop, uint32_t* const R) {
        const Instr *const fm = c.fm, *const ld = c.ld;
        if (fm->e | ce.ut_busy) return r;
        const FmacsNest& W = L.nest;
        NestMap& M = port.nest_map();
        if (!same_state(M, L, R)) work_out(M, L, c, R);
        if (!M.alike) return r;
        const NestEntry &e0 = M.e0, &e1 = M.e1;
        const uint64_t trips = M.trips;
        const Dsd &a0 = e0.a, &d0 = e0.d, &b0 = e0.b, &a1 = e1.a, &d1 = e1.d, &b1 = e1.b;
        const uint32_t sa = e0.sa, sd = e0.sd, sb = e0.sb;
        // The passes to run: the outer blt taken (its counter counts up to a fixed bound), each ending before stop.
        const uint32_t n = a0.length, tile = n * 4, cp = L.address_step;
        const int64_t da = int32_t(e1.outer_a - e0.outer_a), bound = int32_t(e0.outer_b), a0v = int32_t(e0.outer_a);
        const IterationCost per = iteration_cost(L, n);
        const uint32_t pass_instrs = c.instrs + uint32_t(trips - 1) * per.instrs + per.part_instrs;
        const uint64_t pass_cycles = c.cycles + (trips - 1) * per.cycles + per.part_cycles;
        if (r.t + pass_cycles >= stop) return r;
        const uint64_t passes = std::min<uint64_t>(uint64_t((bound - a0v + da - 1) / da), (stop - r.t - 1) / pass_cycles);
        // Every address of those passes: base + q step_pass + k step_iteration for q < passes, k < trips.
        auto spans = [&](uint32_t base0, uint32_t base1, uint32_t step, uint32_t bytes, int64_t* lo, int64_t* hi) {
            const int64_t pstep = int32_t(base1 - base0), first = base0;
            const int64_t c1 = first + int64_t(passes - 1) * pstep, c2 = int64_t(trips - 1) * int32_t(step);
            *lo = std::min(first, c1) + std::min<int64_t>(0, c2);
            *hi = std::max(first, c1) + std::max<int64_t>(0, c2);
            return !((base0 | base1 | step) & 3) && *lo >= 0 && *hi + bytes <= int64_t(sram_bytes);
        };
        int64_t alo, ahi, dlo, dhi, blo, bhi, llo = 0, lhi = 0;
        const uint32_t limm = ld ? uint32_t(ld->imm) : 0;
        const uint32_t v0 = e0.vp + limm, v1 = e1.vp + limm;   // the head ld's address
        if (!spans(a0.base, a1.base, sa, tile, &alo, &ahi) || !spans(d0.base, d1.base, sd, tile, &dlo, &dhi) ||
            !spans(b0.base, b1.base, sb, tile, &blo, &bhi) || (ld && !spans(v0, v1, cp, 4, &llo, &lhi)))
            return r;
        const int64_t top = std::max({ahi, dhi, bhi}) + tile;   // as in_sram keeps it: the highest operand's end
        if (top > int64_t(ce.sram_used)) ce.sram_used = uint32_t(top);
        // The tile held in registers, as affine_loop holds it, when nothing else a pass reads meets any pass's tile.
        auto apart_from_tiles = [&](int64_t lo, int64_t hi) { return hi <= dlo || lo >= dhi + tile; };
        const bool in_registers = n == 16 && a0.base == d0.base && a1.base == d1.base && sa == 0 && sd == 0 &&
                                  apart_from_tiles(blo, bhi + tile) && (!ld || apart_from_tiles(llo, lhi + 4));
        const uint32_t pa = a1.base - a0.base, pd = d1.base - d0.base, pb = b1.base - b0.base, pv = v1 - v0;
        const uint64_t loads = ld ? trips - 1 : 0;
        uint32_t sbits = R[fm->d];
        if (in_registers) {   // every pass's addresses lie in SRAM: they step by a signed pass step
            sbits = fmacs_tile16_passes({mem + d0.base, mem + b0.base, ld ? mem + v0 : nullptr, int32_t(pd), int32_t(pb), int32_t(pv), int32_t(sb),
                                         int32_t(cp), passes, trips, loads, ld != nullptr},
                                        sbits);
        } else {
            for (uint32_t q = 0; q < uint32_t(passes); ++q) {
                const uint8_t* x_ = nullptr;
                if (ld) {
                    const uint32_t v = v0 + q * pv;
                    std::memcpy(&sbits, mem + v, 4);
                    x_ = mem + v + cp;
                }
                sbits = fmacs_tile_runs(mem + (d0.base + q * pd), int32_t(sd), mem + (a0.base + q * pa), int32_t(sa), mem + (b0.base + q * pb),
                                        int32_t(sb), x_, int32_t(cp), n, trips, loads, sbits);
            }
        }
        // Where they leave the registers and DSDs: x(passes) = x(0) + passes d, and the last scalar.
        NestPoint x;
        snap(x, W, R);
        for (uint32_t k = 0, nw = W.nreg + 3u * W.ndsd; k < nw; ++k) x.w[k] += uint32_t(passes) * M.d.w[k];
        restore(x, W, R);
        if (ld) R[fm->d] = sbits;
        count_fmacs(passes * trips, n);
        return {r.ip, r.t + passes * pass_cycles, r.count + uint32_t(passes) * pass_instrs, op_base_cycles(Op::BLT)};
    }

    // Issues plain instructions from pc, starting at cycle `now`, while they are plain and the next
    // would issue before `stop` (fast mode: the run-ahead limit). An fmacs loop or nest runs its
    // iterations while they end before `loop_stop` (>= stop): the leash bounds what a PE sends
    // ahead of its receivers, and a loop sends nothing, so only the slice's end cuts it. Returns how
    // many issued; a fault stops it.
    //
    // Fast mode runs whole loops here, so it is a threaded interpreter: one label per op (the
    // table is WL_ISA's order, so an op without a label here is a compile error), and each handler
    // ends with its own bookkeeping and jump to the next handler (no return to a central switch,
    // no range test). The pc, the time and the memory live in locals meanwhile (a store through R
    // could alias a member, so members would be reloaded each instruction). The pc is checked
    // against its function once, on entry: validate_program guarantees that every branch target
    // lies in the branch's function and that every function ends with ret or jmp, so plain
    // instructions cannot leave it (ret is not plain; the last jmp goes back in). Out of line:
    // GCC does not inline a function with computed gotos.
    __attribute__((noinline)) uint32_t run_plain(uint64_t stop, uint64_t loop_stop) {
        const uint64_t t0 = now;
        if (t0 >= stop) return 0;
        const Program& P = *lp->prog;
        {
            const Function& F = P.functions[ce.fn];
            if (ce.pc - F.entry >= F.end - F.entry) return ran_off(F);
        }
        // One label per op byte, so the dispatch needs no range test: WL_ISA's ops in order, then 256
        // more that stop the run (a byte that is no op: validate_program rejects it, exec() reports it).
#define WL_STOP4 &&L_stop, &&L_stop, &&L_stop, &&L_stop,
#define WL_STOP64 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 \
    WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4 WL_STOP4
        static const void* const kLabels[] = {
#define WL_X(name, mn, fmt, base, per, doc) &&L_##name,
            WL_ISA(WL_X)
#undef WL_X
            WL_STOP64 WL_STOP64 WL_STOP64 WL_STOP64
        };
        static_assert(sizeof kLabels / sizeof kLabels[0] >= 256, "every op byte has a label");
#undef WL_STOP4
#undef WL_STOP64
        Core& C = ce;
        const Instr* const code = P.code.data();
        const Instr* ip = code + C.pc;
        uint32_t* const R = C.reg + C.base;
        uint8_t* const M = mem;
        const uint32_t sram = sram_bytes;
        uint32_t count = 0, cost = 1;   // cost: the last issued instruction's
        const FmacsLoops& loops = lp->fmacs_loops;   // fmacs_loop.h
        uint64_t t = t0;
        // WL_OP(name) opens op name's handler, with its instruction `in`, the next pc `nx` and its cost;
        // WL_NEXT issues it and goes on to the next.
#define WL_DISPATCH goto* kLabels[size_t(ip->op)]
#define WL_OP(name)                                  \
    L_##name : {                                     \
        [[maybe_unused]] const Instr& in = *ip;      \
        [[maybe_unused]] const Instr* nx = ip + 1;   \
        constexpr uint32_t kCost = op_base_cycles(Op::name);
#define WL_ISSUE(c)         \
    cost = (c);             \
    t += cost;              \
    ip = nx;                \
    ++count;                \
    if (t >= stop) goto done; \
    WL_DISPATCH;
#define WL_NEXT WL_ISSUE(kCost) }
        WL_DISPATCH;
#define WL_X(name, ...) WL_OP(name) __VA_ARGS__ WL_NEXT
        WL_PLAIN_OPS(WL_X)
#undef WL_X
        // A synchronous vector op on memory alone touches only this PE too: it runs here, not through
        // exec() (fast mode's inner loops are mostly these; fmacs most of all, so it has its own case).
        // One that cannot run here (0) stops the run, and exec() takes it.
        L_FMACS : {
            if (const FmacsLoop* L = loops.find(uint32_t(ip - code))) {   // an fmacs loop: whole iterations at once
                LoopRun r = run_fmacs_loop(*L, ip, t, count, cost, loop_stop, R);
                if (L->nest.blt && r.ip == code + L->blt + 1) r = run_fmacs_nest(*L, r, loop_stop, R);
                t = r.t, count = r.count, cost = r.cost;
                if (r.ip != ip) {   // it ran: go on from where it left
                    ip = r.ip;
                    if (t >= stop) goto done;
                    WL_DISPATCH;
                }
            }
            const Instr* nx = ip + 1;
            const uint32_t k = memory_vec_unit<Op::FMACS>(*ip, R);
            if (!k) goto done;
            WL_ISSUE(k)
        }
        L_FADDS: L_FSUBS: L_FMULS: L_FMAXS: L_FMOVS: L_FNEGS: L_FSCALES: L_FSHIFTS: L_FEXPS: L_FRSQRTS: L_FTANHS: L_FLOGS: L_FSUMS: {
            const Instr* nx = ip + 1;
            const uint32_t k = (this->*kMemoryVec.v[size_t(ip->op)])(*ip, R);
            if (!k) goto done;
            WL_ISSUE(k)
        }
        // Calls, task control and the fabric: exec() takes them.
        L_CALL: L_RET: L_ACTIVATE: L_BLOCK: L_UNBLOCK: L_SEND: L_SENDC: L_RECV: L_stop:
            goto done;
#undef WL_DISPATCH
#undef WL_OP
#undef WL_ISSUE
#undef WL_NEXT
#undef WL_PLAIN_OPS
#undef fb
#undef fc
#undef ib
#undef ic
#undef F3
    bad_addr:
        now = t;   // a fault's cycle is its instruction's
        bad_address(ip->op, R[ip->b] + uint32_t(ip->imm), uint32_t(ip - code));
    done:
        if (count) {
            C.pc = uint32_t(ip - code);
            C.ready_at = t;
            C.stats.instrs += count;
            C.stats.busy += t - t0;
            if (cost > 1) port.timer(t);   // cycle mode: wake when the last one's cost has passed
        }
        return count;
    }

    // [SECTION] the other instructions: calls, task control, the fabric, vector ops

    // Issue the instruction at pc. Returns true if it issued (progress), false on a stall or fault.
    bool exec() {
        const Program& P = *lp->prog;
        const Function& F = P.functions[ce.fn];
        const uint32_t pc = ce.pc;
        if (pc >= F.end || pc < F.entry) return ran_off(F);
        const Instr& in = P.code[pc];
        if (plain(in.op)) return step_plain(in);
        uint32_t* R = ce.reg + ce.base;
        uint32_t next = pc + 1;
        uint64_t cost = op_base_cycles(in.op);
        switch (in.op) {
        case Op::CALL: {
            const Function& G = P.functions[in.imm];
            if (ce.depth + 1 >= kMaxDepth || ce.base + F.nregs + G.nregs > kRegs) return call_overflow(G, pc);
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
                if (port.tracing()) port.trace(now, TraceKind::TaskEnd, 0, ce.task, pc);
                ce.state = ThreadState::Idle;
                ce.task = -1;
                ce.stats.instrs++;
                ce.stats.busy += cost;
                ce.ready_at = now + cost;
                if (cost > 1) port.timer(ce.ready_at);
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
        case Op::SEND:
        case Op::SENDC: {
            const uint64_t at = port.ramp_at(in.imm);
            if (at == kNever) { stall(StallWhy::Send, in.imm); return false; }
            if (!ramp_route_ok(in.imm, pc)) return false;
            if (at > now) wait_until(at, StallWhy::Send, in.imm);
            port.send(in.imm, R[in.a], in.op == Op::SENDC, now);
            ce.stats.sent++;
            break;
        }
        case Op::RECV: {
            const uint64_t at = (ce.reading >> in.imm & 1) ? kNever : port.recv_at(in.imm);
            if (at == kNever) { stall(StallWhy::Recv, in.imm); return false; }
            if (at > now) wait_until(at, StallWhy::Recv, in.imm);
            R[in.a] = port.pop(in.imm);
            ce.stats.received++;
            break;
        }
        default:
            if (op_is_vector_fmt(op_fmt(in.op))) {
                int r = issue_vec(in, pc, R, &cost);
                if (r <= 0) return false;   // stalled (0) or faulted (-1)
                break;
            }
            return unknown_op(pc);
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
        if (cost > 1) port.timer(ce.ready_at);
        return true;
    }

    // Faults, out of the interpreter's hot loop.
    __attribute__((noinline, cold)) bool ran_off(const Function& F) {
        fault(FaultKind::BadProgram, -1, int32_t(F.end ? F.end - 1 : 0), "execution ran past the end of function " + F.name);
        return false;
    }
    __attribute__((noinline, cold)) bool bad_address(Op op, uint32_t addr, uint32_t pc) {
        fault(FaultKind::OutOfBounds, -1, int32_t(pc),
              std::string(op == Op::LD ? "load" : "store") + " at byte address " + std::to_string(addr) + ((addr & 3) ? " (not 4-aligned)" : "") +
                  " outside SRAM of " + std::to_string(sram_bytes) + " bytes");
        return false;
    }
    __attribute__((noinline, cold)) bool call_overflow(const Function& G, uint32_t pc) {
        fault(FaultKind::BadProgram, -1, int32_t(pc), "call stack overflow calling " + G.name + " (depth " + std::to_string(ce.depth + 1) + ")");
        return false;
    }
    __attribute__((noinline, cold)) bool unknown_op(uint32_t pc) {
        fault(FaultKind::BadProgram, -1, int32_t(pc), "unknown opcode");
        return false;
    }

    // The free microthread slot, or -1.
    int free_slot() const {
        for (int k = 0; k < kMicrothreads; ++k)
            if (!(ce.ut_busy >> k & 1)) return k;
        return -1;
    }

    // A synchronous vector op whose operands are all in memory, issued as issue_vec() issues it: its
    // cost in cycles. 0 (nothing done) for anything else, or one that would fault: issue_vec() then
    // takes it. Not while a microthread runs: its completions come between instructions.
    // One op's case, its format known at compile time: no VecOp is built, and the counters are
    // count_elems' for all-memory operands.
    template <Op O>
    __attribute__((noinline)) uint32_t memory_vec(const Instr& in, uint32_t* R) {
        constexpr Fmt f = op_fmt(O);
        constexpr bool vecr = f == Fmt::VecR, two = fmt_two_sources(f);
        if (in.e != 0 || ce.ut_busy) return 0;
        const Dsd& a = ce.dsd[in.b];
        const Dsd& dst = ce.dsd[vecr ? in.b : in.a];
        const Dsd& b = ce.dsd[two ? in.c : in.b];
        const uint32_t n = a.length;
        if (a.kind != DsdKind::Mem1d || dst.kind != DsdKind::Mem1d || dst.length != n || b.kind != DsdKind::Mem1d || b.length != n) return 0;
        int64_t lo, hi;
        if (!in_sram(a, 0, n, &lo, &hi) || (!vecr && !in_sram(dst, 0, n, &lo, &hi)) || (two && !in_sram(b, 0, n, &lo, &hi))) return 0;
        if constexpr (vecr) R[in.d] = u32(memory_sum(a, n, 0.0f));   // fsums: the sum
        else memory_loop<O>(dst, a, b, n, f == Fmt::Vec2S || f == Fmt::Vec1S ? f32(R[in.d]) : 0.0f);
        ce.stats.elems += n;
        ce.stats.flops += uint64_t(n) * vec_flops_per_elem(O);
        ce.stats.sram_bytes += uint64_t(n) * 4 * (1 + two + !vecr);
        return uint32_t(op_base_cycles(O) + memory_work(O, n));
    }
    // memory_vec's common case, first: a synchronous element-wise op with unit-stride mem1d operands
    // of one length n > 0, word-aligned and inside SRAM, tested once per operand (not per element,
    // nor through the general span arithmetic), with few branches. Anything else goes to
    // memory_vec, which decides. The same loops, counters and cost as memory_vec.
    static uint32_t dsd_head(const Dsd& d) {   // kind, colour and stride as one word
        static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && offsetof(Dsd, kind) == 0 && offsetof(Dsd, stride) == 2,
                      "dsd_head reads kind and stride as one word");
        uint32_t h;
        std::memcpy(&h, &d, 4);
        return h;
    }
    static constexpr uint32_t kHeadMask = 0xffff00ffu, kUnitMem1d = uint32_t(DsdKind::Mem1d) | 1u << 16;   // colour ignored
    // Unit-stride mem1d operands of one length n > 0 (their bases not tested).
    __attribute__((always_inline)) static bool unit_operands(const Dsd& a, const Dsd& dst, const Dsd& b) {
        if (((dsd_head(a) & kHeadMask) ^ kUnitMem1d) | ((dsd_head(dst) & kHeadMask) ^ kUnitMem1d) | ((dsd_head(b) & kHeadMask) ^ kUnitMem1d))
            return false;
        return !((dst.length ^ a.length) | (b.length ^ a.length)) && a.length != 0;
    }
    template <Op O>
    __attribute__((noinline)) uint32_t memory_vec_unit(const Instr& in, uint32_t* R) {
        constexpr Fmt f = op_fmt(O);
        static_assert(fmt_elementwise(f), "the unit case is for element-wise ops");
        constexpr bool two = fmt_two_sources(f);
        if (in.e | ce.ut_busy) return memory_vec<O>(in, R);
        const Dsd& a = ce.dsd[in.b];
        const Dsd& dst = ce.dsd[in.a];
        const Dsd& b = ce.dsd[two ? in.c : in.b];
        if (!unit_operands(a, dst, b)) return memory_vec<O>(in, R);
        const uint32_t n = a.length;
        const uint32_t ab = a.base, db = dst.base, bb = b.base;
        const uint32_t top = std::max(std::max(ab, db), bb);
        if (((ab | db | bb) & 3) || uint64_t(top) + uint64_t(n) * 4 > sram_bytes) return memory_vec<O>(in, R);
        if (top + n * 4 > ce.sram_used) ce.sram_used = top + n * 4;   // as in_sram: the highest operand's end
        unit_memory_loop<O>(reinterpret_cast<float*>(mem + db), reinterpret_cast<const float*>(mem + ab),
                            reinterpret_cast<const float*>(mem + bb), n, f == Fmt::Vec2S || f == Fmt::Vec1S ? f32(R[in.d]) : 0.0f);
        ce.stats.elems += n;
        ce.stats.flops += uint64_t(n) * vec_flops_per_elem(O);
        ce.stats.sram_bytes += uint64_t(n) * 4 * (2 + two);
        return uint32_t(op_base_cycles(O) + memory_work(O, n));
    }
    // Per op byte: its memory_vec case, or none (not a vector op).
    using MemoryVec = uint32_t (CoreExec::*)(const Instr&, uint32_t*);
    template <Op O>
    static constexpr MemoryVec memory_vec_case() {
        if constexpr (op_is_vector_fmt(op_fmt(O))) return &CoreExec::memory_vec<O>;
        else return nullptr;
    }
    struct MemoryVecTable {
        MemoryVec v[256] = {};
        constexpr MemoryVecTable() {
#define WL_X(name, mn, fmt, base, per, doc) v[size_t(Op::name)] = memory_vec_case<Op::name>();
            WL_ISA(WL_X)
#undef WL_X
        }
    };
    static const MemoryVecTable kMemoryVec;   // defined below the class, where CoreExec is complete
    // A memory-only vector op's cycles after its issue: ceil(n * per_elem / simd) (docs/cost-model.md).
    uint64_t memory_work(Op op, uint32_t n) const {
        const uint64_t work = uint64_t(n) * op_per_elem(op);
        return simd == 1 ? work : (work + uint64_t(simd) - 1) / uint64_t(simd);
    }

    // 1 = issued, 0 = stalled (no free microthread), -1 = fault. Out of line: the scalar loop stays small.
    __attribute__((noinline)) int issue_vec(const Instr& in, uint32_t pc, const uint32_t* R, uint64_t* cost) {
        const OpInfo& info = op_info(in.op);
        VecOp v;
        v.op = in.op;
        v.flags = in.e;
        v.task = uint8_t(in.imm);
        v.pc = pc;
        v.a = ce.dsd[in.b];
        const bool vecr = info.fmt == Fmt::VecR;
        const bool two = two_sources(in.op);
        if (!vecr) v.dst = ce.dsd[in.a];
        if (two) v.b = ce.dsd[in.c];
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
        if (two) {
            if (v.b.kind != DsdKind::Mem1d && v.b.kind != DsdKind::FabIn) return bad("second source must be a mem1d or fabin DSD");
            if (v.b.length != v.n) return bad("source lengths differ");
        }
        const bool async = in.e & kVecAsync;
        int slot = -1;
        if (async) {
            slot = free_slot();
            if (slot < 0) { stall(StallWhy::Slot, -1); return 0; }
        }
        if (!is_fabric(v)) {
            if (!mem_ok(v.dst, 0, vecr ? 0 : v.n, pc) || !mem_ok(v.a, 0, v.n, pc) || (two && !mem_ok(v.b, 0, v.n, pc))) return -1;
            run_memory(v);
            count_elems(v, v.n);
            const uint64_t work = memory_work(v.op, v.n);
            if (async) {   // results are in memory now; completion (and its task) fires after the modelled time
                v.done_at = now + info.base_cycles + (work ? work : 1);
                ce.ut[slot] = v;
                ce.ut_busy |= uint8_t(1u << slot);
                port.timer(v.done_at);
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
};

template <class Port>
constexpr typename CoreExec<Port>::MemoryVecTable CoreExec<Port>::kMemoryVec{};

}  // namespace wl
