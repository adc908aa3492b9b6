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
#include "engine/core/vecmath.h"
#include "engine/fabric/core.h"
#include "engine/fabric/dot_loop_exec.h"
#include "engine/fabric/fault.h"
#include "engine/fabric/fmacs_loop_exec.h"
#include "engine/fabric/map_nest_exec.h"
#include "engine/fabric/trace.h"
#include "engine/fabric/vector_ops.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cmath>
#include <cstring>
#include <string>

namespace wl {

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
        if constexpr (O == Op::FEXPS || O == Op::FTANHS) {   // the same function, 8 lanes at a time (vecmath.h)
            if (d == a || apart(d, a, n)) return (O == Op::FEXPS ? math::exp_array : math::tanh_array)(d, a, int(n));
        }
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

    // Per op byte: its cost in cycles when it is plain, 0 when not, so one lookup decides both.
    struct PlainCost {
        uint8_t v[256];
        constexpr PlainCost() : v() {
            for (size_t k = 0; k < size_t(Op::kCount); ++k) {
                v[k] = op_is_plain(Op(k)) ? op_base_cycles(Op(k)) : 0;
                if (op_is_plain(Op(k)) && v[k] == 0) throw "a plain op must take at least one cycle";   // not constexpr: a compile error
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
    X(DADDR, C.dsd[in.a].base += R[in.b];)                                                                               \
    X(DSTEP, C.dstep[in.a] = R[in.b];)

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
    // One instruction's effect from the interpreter's table, for fast mode's loops: a straight one
    // (kStraight; fmacs_loop_exec.h), which cannot branch, touch SRAM or fault, so `code`, `nx`, `M`,
    // `sram` and bad_addr are there only for the other ops; or any plain one but a branch
    // (dot_loop_exec.h), false and no effect where an ld or st would fault.
    template <bool kStraight>
    __attribute__((always_inline)) bool effect(const Instr& in, uint32_t* const R) {
        [[maybe_unused]] Core& C = ce;
        [[maybe_unused]] const Instr* const code = nullptr;
        [[maybe_unused]] const Instr* nx = nullptr;
        [[maybe_unused]] uint8_t* const M = mem;
        [[maybe_unused]] const uint32_t sram = sram_bytes;
        switch (in.op) {
#define WL_X(name, ...)                                                                          \
    case Op::name:                                                                               \
        if constexpr (kStraight ? op_is_straight(Op::name) : !op_is_branch(Op::name)) { __VA_ARGS__ } \
        break;
            WL_PLAIN_OPS(WL_X)
#undef WL_X
        default: break;
        }
        return true;
    [[maybe_unused]] bad_addr:
        return false;
    }
    __attribute__((always_inline)) void straight(const Instr& in, uint32_t* const R) { effect<true>(in, R); }

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
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) &&L_##name,
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
                FmacsLoopExec<CoreExec> fx(*this);
                LoopRun r = fx.run_loop(*L, ip, t, count, cost, loop_stop, R);
                if (L->nest.blt && r.ip == code + L->blt + 1) r = fx.run_nest(*L, r, loop_stop, R);
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
        L_FMULS: {
            if (const DotLoop* L = lp->dot_loops.find(uint32_t(ip - code))) {   // a loop of dot products: a batch of rows at once
                const LoopRun r = DotLoopExec<CoreExec>(*this).run(*L, ip, t, count, cost, loop_stop, R);
                if (r.count != count) {   // it ran: go on from where it left (after the loop, at the fmuls, or where it would fault)
                    ip = r.ip, t = r.t, count = r.count, cost = r.cost;
                    if (t >= stop) goto done;
                    WL_DISPATCH;
                }
            }
            const Instr* nx = ip + 1;
            const uint32_t k = memory_vec<Op::FMULS>(*ip, R);
            if (!k) goto done;
            WL_ISSUE(k)
        }
        L_FADDS: L_FSUBS: L_FMAXS: L_FMOVS: L_FNEGS: L_FSCALES: L_FSHIFTS: L_FEXPS: L_FRSQRTS: L_FTANHS: L_FLOGS: L_FSQRTS: L_FDIVS: L_FSUMS: {
            const Instr* nx = ip + 1;
            const uint32_t k = (this->*kMemoryVec.v[size_t(ip->op)])(*ip, R);
            if (!k) goto done;
            WL_ISSUE(k)
        }
        // A map's passes touch only this PE too (not while a microthread runs: exec() takes it then).
        L_MAP: {
            if (ce.ut_busy) goto done;
            if (const MapNest* N = lp->map_nests.find(uint32_t(ip - code))) {   // a loop around it: its passes at once
                const LoopRun r = MapNestExec<CoreExec>(*this).run(*N, ip, t, count, cost, loop_stop, R);
                if (r.ip != ip || r.count != count) {   // it ran: go on from where it left (after the loop, or at this map)
                    ip = r.ip, t = r.t, count = r.count, cost = r.cost;
                    if (t >= stop) goto done;
                    WL_DISPATCH;
                }
            }
            now = t;   // a fault's cycle is the map's
            uint64_t k = 0;
            if (!run_map(*ip, uint32_t(ip - code), R, &k)) goto done;
            cost = uint32_t(std::min<uint64_t>(k, UINT32_MAX));   // (only compared with 1 below)
            t += k;
            ip += 2;   // past its op
            ++count;
            if (t >= stop) goto done;
            WL_DISPATCH;
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
        case Op::MAP:
            if (!run_map(in, pc, R, &cost)) return false;
            next = pc + 2;   // past its op
            break;
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

    // A map (isa.h) and its op, the next instruction (validate_program): the op issued R[m.b] times
    // at once, each pass one cycle beside its own cost, its scalar the next word from R[m.c]'s
    // address, its DSDs stepped by their dstep after each pass, the steps then set to 0. The op runs
    // as issue_vec() runs it, so the same results, counters and faults. False on a fault.
    bool run_map(const Instr& m, uint32_t pc, uint32_t* R, uint64_t* cost) {
        const Instr& op = lp->prog->code[pc + 1];
        const Fmt f = op_fmt(op.op);
        uint8_t ds[3];   // the op's DSD registers, each once (fmacs d3, d3, d4 steps d3 once)
        int nd = 0;
        auto add = [&](uint8_t d) {
            for (int k = 0; k < nd; ++k)
                if (ds[k] == d) return;
            ds[nd++] = d;
        };
        add(op.a);   // an element-wise op (validate_program): a destination, one or two sources
        add(op.b);
        if (fmt_two_sources(f)) add(op.c);
        const int32_t passes = int32_t(R[m.b]);
        uint64_t total = op_base_cycles(Op::MAP);
        if (passes > 0 && (this->*kMapUnit.v[size_t(op.op)])(m, op, R, passes, &total)) {
            ce.stats.instrs += uint64_t(passes);
        } else if (passes > 0) {
            for (int k = 0; k < nd; ++k)
                if (ce.dsd[ds[k]].kind != DsdKind::Mem1d) {
                    fault(FaultKind::BadProgram, -1, int32_t(pc), "map: d" + std::to_string(ds[k]) +
                                                                      " is not a mem1d DSD: a map issues its op on memory only");
                    return false;
                }
            uint32_t addr = m.a != kNoReg ? R[m.c] : 0;
            for (int32_t p = 0; p < passes; ++p) {
                if (m.a != kNoReg) {
                    if ((addr & 3) || uint64_t(addr) + 4 > sram_bytes) {
                        fault(FaultKind::OutOfBounds, -1, int32_t(pc), "map: pass " + std::to_string(p) + "'s scalar at byte address " +
                                                                           std::to_string(addr) + ((addr & 3) ? " (not 4-aligned)" : "") +
                                                                           " outside SRAM of " + std::to_string(sram_bytes) + " bytes");
                        return false;
                    }
                    std::memcpy(&R[m.a], mem + addr, 4);
                    addr += uint32_t(m.imm);
                }
                uint64_t k = (this->*kMemoryVec.v[size_t(op.op)])(op, R);
                if (!k && issue_vec(op, pc + 1, R, &k) <= 0) return false;   // it faults there (a synchronous op never stalls)
                total += 1 + k;
                for (int j = 0; j < nd; ++j) ce.dsd[ds[j]].base += ce.dstep[ds[j]];
            }
            ce.stats.instrs += uint64_t(passes);   // each pass issues the op
        }
        for (int j = 0; j < nd; ++j) ce.dstep[ds[j]] = 0;
        *cost = total;
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
    // The bytes [lo, hi) a map's operand covers over its passes: `bytes` from base, stepping `step`.
    struct PassSpan {
        int64_t lo, hi;
        PassSpan(uint32_t base, uint32_t step, int32_t passes, uint32_t bytes) {
            const int64_t last = int64_t(base) + int64_t(int32_t(step)) * (passes - 1);
            lo = std::min<int64_t>(base, last), hi = std::max<int64_t>(base, last) + bytes;
        }
        bool overlaps(const PassSpan& o) const { return lo < o.hi && o.lo < hi; }
    };
    // run_map's common case, first: an element-wise op on unit-stride mem1d operands of one length,
    // every pass's operands and scalar inside SRAM (the first and the last pass's: the steps are
    // constant). The passes then run back to back, tested once: the same loops, results, counters and
    // cost as memory_vec's a pass. False (nothing done) for anything else.
    template <Op O>
    __attribute__((noinline)) bool map_unit(const Instr& m, const Instr& op, uint32_t* R, int32_t passes, uint64_t* total) {
        constexpr Fmt f = op_fmt(O);
        if constexpr (!fmt_elementwise(f)) {
            return false;
        } else {
            constexpr bool two = fmt_two_sources(f), scalar = f == Fmt::Vec1S || f == Fmt::Vec2S;
            if (op.e | ce.ut_busy) return false;
            Dsd& a = ce.dsd[op.b];
            Dsd& dst = ce.dsd[op.a];
            Dsd& b = ce.dsd[two ? op.c : op.b];
            if (!unit_operands(a, dst, b)) return false;
            const uint32_t n = a.length;
            const bool loads = m.a != kNoReg;
            const uint32_t sa = ce.dstep[op.b], sd = ce.dstep[op.a], sb = ce.dstep[two ? op.c : op.b], addr = loads ? R[m.c] : 0;
            const PassSpan as(a.base, sa, passes, n * 4), ds(dst.base, sd, passes, n * 4), bs(b.base, sb, passes, n * 4),
                xs(addr, uint32_t(m.imm), passes, 4);
            const auto inside = [&](const PassSpan& sp, uint32_t base, uint32_t step) {
                return !((base | step) & 3) && sp.lo >= 0 && uint64_t(sp.hi) <= sram_bytes;
            };
            if (!inside(as, a.base, sa) || !inside(ds, dst.base, sd) || !inside(bs, b.base, sb) || (loads && !inside(xs, addr, uint32_t(m.imm))))
                return false;
            bool tiled = false;
            if constexpr (O == Op::FMACS)   // y += b s a pass: the tile kernels
                tiled = op.a == op.b && map_tile(m, op, R, passes, dst.base, sd, b.base, sb, n, ds, bs, xs);
            if (!tiled) {
                uint32_t ab = a.base, db = dst.base, bb = b.base, x = addr;
                for (int32_t p = 0; p < passes; ++p, ab += sa, db += sd, bb += sb) {
                    if (loads) std::memcpy(&R[m.a], mem + x, 4), x += uint32_t(m.imm);
                    unit_memory_loop<O>(reinterpret_cast<float*>(mem + db), reinterpret_cast<const float*>(mem + ab),
                                        reinterpret_cast<const float*>(mem + bb), n, scalar ? f32(R[op.d]) : 0.0f);
                }
            }
            const uint32_t P = uint32_t(passes);   // the DSDs end stepped past the passes; a register two share gets one value
            const uint32_t na = a.base + sa * P, nd = dst.base + sd * P, nb = b.base + sb * P;
            a.base = na, dst.base = nd, b.base = nb;
            const uint32_t end = uint32_t(std::max({as.hi, ds.hi, bs.hi}));   // as in_sram: the highest operand's end
            if (end > ce.sram_used) ce.sram_used = end;
            const uint64_t elems = uint64_t(n) * P;
            ce.stats.elems += elems;
            ce.stats.flops += elems * vec_flops_per_elem(O);
            ce.stats.sram_bytes += elems * 4 * (2 + two);
            *total += uint64_t(P) * (1 + op_base_cycles(O) + memory_work(O, n));
            return true;
        }
    }
    // An fmacs map whose destination is its first source, y += b s a pass (map_unit has checked every
    // window: ds, bs, xs), in fast mode's tile kernels (fmacs_tile.h), which keep the interpreter's
    // rounding and order: a tile that stays put (y does not step) held in registers across the passes,
    // unless b's windows or the scalars touch it; a tile that moves, a pass after the other. False:
    // map_unit's loop takes it.
    bool map_tile(const Instr& m, const Instr& op, uint32_t* R, int32_t passes, uint32_t db, uint32_t sd, uint32_t bb, uint32_t sb,
                  uint32_t n, const PassSpan& ds, const PassSpan& bs, const PassSpan& xs) {
        const bool loads = m.a != kNoReg;
        const uint32_t addr = loads ? R[m.c] : 0;
        if (sd == 0 && register_tile(n)) {
            if (ds.overlaps(bs) || (loads && ds.overlaps(xs))) return false;
            TilePasses t{mem + db, mem + bb, mem + addr, 0, 0, 0, ptrdiff_t(int32_t(sb)), ptrdiff_t(m.imm),
                         1, uint64_t(passes), loads ? uint64_t(passes - 1) : 0, loads, n};
            const uint32_t last = fmacs_tile_passes(t, R[op.d]);
            if (loads) R[m.a] = last;
            return true;
        }
        if (n % 4) return false;
        uint32_t first = R[op.d];
        if (loads) std::memcpy(&first, mem + addr, 4);
        MovingTile t{mem + db, mem + bb, mem + addr + (passes > 1 ? uint32_t(m.imm) : 0), ptrdiff_t(int32_t(sd)), ptrdiff_t(int32_t(sb)),
                     ptrdiff_t(m.imm), uint64_t(passes), loads ? uint64_t(passes - 1) : 0, n};
        const uint32_t last = fmacs_moving_tile(t, first);
        if (loads) R[m.a] = last;
        return true;
    }
    using MapUnit = bool (CoreExec::*)(const Instr&, const Instr&, uint32_t*, int32_t, uint64_t*);
    struct MapUnitTable {
        MapUnit v[256] = {};
        constexpr MapUnitTable() {
            for (MapUnit& f : v) f = &CoreExec::map_unit<Op::NOP>;
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) v[size_t(Op::name)] = &CoreExec::map_unit<Op::name>;
            WL_ISA(WL_X)
#undef WL_X
        }
    };
    static const MapUnitTable kMapUnit;   // defined below the class, as kMemoryVec

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
#define WL_X(name, mn, fmt, base, per, kind, rd, wr, doc) v[size_t(Op::name)] = memory_vec_case<Op::name>();
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
template <class Port>
constexpr typename CoreExec<Port>::MapUnitTable CoreExec<Port>::kMapUnit{};

}  // namespace wl
