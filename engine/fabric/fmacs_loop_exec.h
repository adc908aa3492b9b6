// fmacs_loop_exec.h: fast mode runs an fmacs loop or nest (fmacs_loop.h) at once. Every
// instruction keeps its interpreter effect and cost, in order, on the live registers and DSDs;
// what is saved is the dispatch, the per-instruction bookkeeping and the fmacs operand decoding.
// An affine loop's iterations, and an affine nest's passes (nest_map.h), run back to back with
// their addresses tested once (the tile kernel: fmacs_tile.h).
//
//   FmacsLoopExec<CoreExec> fx(exec);                // the PE's interpreter (core_exec.h)
//   LoopRun r = fx.run_loop(L, ip, t, count, cost, stop, R);
//   if (L.nest.blt && r.ip == after_inner_blt) r = fx.run_nest(L, r, stop, R);
#pragma once
#include "engine/fabric/core.h"
#include "engine/fabric/fmacs_loop.h"
#include "engine/fabric/fmacs_tile.h"
#include "engine/fabric/nest_map.h"
#include "engine/fabric/vector_ops.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace wl {

// Where the interpreter goes on, with run_plain's time, instruction count and last cost.
struct LoopRun {
    const Instr* ip;
    uint64_t t;
    uint32_t count, cost;
};

// Exec is the PE's interpreter (CoreExec): its core, SRAM, program and port, the effect of one
// straight instruction (straight) and the cost of a vector op's elements (memory_work).
template <class Exec>
class FmacsLoopExec {
public:
    explicit FmacsLoopExec(Exec& exec) : cx(exec), ce(exec.ce), mem(exec.mem), sram_bytes(exec.sram_bytes), lp(exec.lp) {}
    // Runs the fmacs loop whose fmacs is at ip from cycle t, with run_plain's count and last cost,
    // whole iterations while each ends before stop, and returns where the interpreter goes on: the
    // fmacs (its operands not the unit case, or the next iteration would reach stop; the interpreter
    // then decides, and faults, as it would have), the ld when its address is outside SRAM, or the
    // instruction after the loop.
    __attribute__((noinline)) LoopRun run_loop(const FmacsLoop& L, const Instr* const fm, uint64_t t, uint32_t count, uint32_t cost,
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
        if (!Exec::unit_operands(a, dst, b)) return {fm, t, count, cost};
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
    // Runs the nest around fmacs loop L (fmacs_loop.h) from the end of its inner loop (r.ip is the
    // instruction after L's blt): an affine nest's passes that can run at once first
    // (run_affine_passes), then pass by pass while a pass ends before stop: the tail, the outer
    // blt, the lead (and the entry's jmp and test) and the inner loop's ld with their interpreter
    // effects and costs, then the inner loop's iterations through run_loop. Returns where the interpreter goes on: after
    // the outer blt, or where a pass could not go on (stop, an ld outside SRAM, where the inner
    // loop handed back).
    __attribute__((noinline)) LoopRun run_nest(const FmacsLoop& L, LoopRun r, uint64_t stop, uint32_t* const R) {
        const NestCode c(lp->prog->code.data(), L);
        const FmacsNest& N = L.nest;
        const Instr *const after = c.after, *const outer = c.outer, *const lead = c.lead, *const lead_end = c.lead_end, *const ld = c.ld;
        const Instr& br = after[-1];   // the inner blt
        constexpr uint32_t kBranch = op_base_cycles(Op::BLT), kLoad = op_base_cycles(Op::LD), kJump = op_base_cycles(Op::JMP);
        const uint32_t ntail = uint32_t(outer - after), nlead = uint32_t(lead_end - lead);
        if (N.affine) r = run_affine_passes(L, c, r, stop, R);
        while (r.ip == after && r.t + c.cycles < stop) {   // every instruction of the pass ends before stop
            for (const Instr* p = after; p != outer; ++p) cx.straight(*p, R);
            if (!(int32_t(R[outer->a]) < int32_t(R[outer->b])))   // the nest is done
                return {outer + 1, r.t + N.tail_cycles + kBranch, r.count + ntail + 1, kBranch};
            for (const Instr* p = lead; p != lead_end; ++p) cx.straight(*p, R);
            r.t += N.tail_cycles + kBranch + N.lead_cycles, r.count += ntail + 1 + nlead, r.cost = N.last_cost;
            if (N.entry_test) {   // the jmp to the inner blt, and its test (last_cost is the blt's)
                r.t += kJump + kBranch, r.count += 2;
                if (!(int32_t(R[br.a]) < int32_t(R[br.b]))) continue;   // no iteration: the tail next
            }
            if (ld) {
                const uint32_t addr = R[ld->b] + uint32_t(ld->imm);
                if ((addr & 3) || uint64_t(addr) + 4 > sram_bytes) return {ld, r.t, r.count, r.cost};   // the interpreter issues it and faults
                std::memcpy(&R[ld->a], mem + addr, 4);
                r.t += kLoad, r.count += 1, r.cost = kLoad;
            }
            r = run_loop(L, c.fm, r.t, r.count, r.cost, stop, R);
        }
        return r;
    }

private:
    Exec& cx;
    Core& ce;
    uint8_t* const mem;
    const uint32_t sram_bytes;
    const LoadedProgram* const lp;
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
    // One fmacs of unit-stride operands inside SRAM: d = x + y s. Inline, not fmacs_moving_tile's
    // one run: a call per iteration costs SUMMA's entries 12 % more host instructions.
    __attribute__((always_inline)) static void fmacs_tile(float* d, const float* x, const float* y, uint32_t n, float s) {
        if (d == x && n == 16 && Exec::apart(d, y, 16)) fmacs_in_place4(d, y, 16, s);   // C += A s, SUMMA's tile: unrolled
        else if (d == x && (n & 3) == 0 && Exec::apart(d, y, n)) fmacs_in_place4(d, y, n, s);
        else Exec::template unit_memory_loop<Op::FMACS>(d, x, y, n, s);
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

    // A pass of fmacs_tile_passes (fmacs_tile.h) for any tile of n floats, d = a + y s, d and a stepping too.
    __attribute__((noinline)) static uint32_t fmacs_tile_runs(uint8_t* d, const ptrdiff_t dstep, const uint8_t* a, const ptrdiff_t astep,
                                                              const uint8_t* y, const ptrdiff_t ystep, const uint8_t* x, const ptrdiff_t xstep,
                                                              const uint32_t n, const uint64_t runs, const uint64_t loads, uint32_t sbits) {
        if (d == a && dstep == astep && (n & 3) == 0) return fmacs_moving_tile({d, y, x, dstep, ystep, xstep, runs, loads, n}, sbits);   // in place
        for (uint64_t k = 0; k < runs; ++k, y += ystep, a += astep, d += dstep) {
            fmacs_tile(reinterpret_cast<float*>(d), reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(y), n, f32(sbits));
            if (k < loads) std::memcpy(&sbits, x, 4), x += xstep;
        }
        return sbits;
    }

    // run_loop's affine case (fmacs_loop.h), with the loop's state in locals: each register it
    // reads and each fmacs base is a value and a step. Runs up to max_iters iterations as the
    // interpreter would, writes the registers and bases back, and says how far it got in *iters,
    // *part and *at. When the counter counts up to its bound (so the trip count is known) and every
    // address of the iterations to run lies in SRAM, they run with no test at all; when the tile
    // stays put (C += A s, SUMMA's), is held in registers (register_tile) and nothing else the loop
    // reads overlaps it, it stays in registers across them. Otherwise each iteration tests its
    // addresses and its counter as the interpreter would, and stops where it would fault.
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
            if (register_tile(n) && ab == db && sa == 0 && sd == 0 && outside_tile(lowest(bb, sb, runs), highest(bb, sb, runs) + tile) &&
                (!loads || outside_tile(lowest(first_load, cp, loads), highest(first_load, cp, loads) + 4)))
                sbits = fmacs_tile_passes({mem + db, y, x, 0, 0, 0, ystep, xstep, 1, runs, loads, false, n}, sbits);
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
        const uint32_t f_cost = uint32_t(op_base_cycles(Op::FMACS) + cx.memory_work(Op::FMACS, n));
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
    // A nest's instructions (fmacs_loop.h) in the code, and the cycles and instructions of a pass's
    // straight part: its tail, outer blt, lead, the entry's jmp and test, and head ld.
    struct NestCode {
        const Instr *after, *outer, *lead, *lead_end, *fm, *ld;
        uint32_t cycles, instrs;
        NestCode(const Instr* code, const FmacsLoop& L)
            : after(code + L.blt + 1), outer(code + L.nest.blt), lead(code + L.nest.lead), lead_end(code + L.lead_end()), fm(code + L.fmacs),
              ld(L.ld >= 0 ? code + L.ld : nullptr),
              cycles(L.nest.tail_cycles + op_base_cycles(Op::BLT) + L.nest.lead_cycles +
                     (L.nest.entry_test ? op_base_cycles(Op::JMP) + op_base_cycles(Op::BLT) : 0) + (ld ? op_base_cycles(Op::LD) : 0)),
              instrs(uint32_t(outer - after) + 1 + uint32_t(lead_end - lead) + (L.nest.entry_test ? 2 : 0) + (ld ? 1 : 0)) {}
    };

    void snap(NestPoint& P, const FmacsNest& W, const uint32_t* R) const {
        for (uint32_t k = 0; k < W.nreg; ++k) P.w[k] = R[W.reg[k]];
        for (uint32_t k = 0; k < W.ndsd; ++k) std::memcpy(P.w + W.nreg + 3 * k, static_cast<const void*>(&ce.dsd[W.dsd[k]]), 12);
    }
    void restore(const NestPoint& P, const FmacsNest& W, uint32_t* R) {
        for (uint32_t k = 0; k < W.nreg; ++k) R[W.reg[k]] = P.w[k];
        for (uint32_t k = 0; k < W.ndsd; ++k) std::memcpy(static_cast<void*>(&ce.dsd[W.dsd[k]]), P.w + W.nreg + 3 * k, 12);
    }

    // The live state a map of loop L depends on, packed as NestMap::state keeps it; returns its words.
    uint32_t pack_state(const FmacsLoop& L, const uint32_t* R, uint32_t* w) const {
        uint32_t k = 0;
        for (uint64_t m = state_regs(L.nest); m; m &= m - 1) w[k++] = R[__builtin_ctzll(m)];
        for (uint32_t m = L.nest.state_dsds; m; m &= m - 1, k += 3) std::memcpy(w + k, static_cast<const void*>(&ce.dsd[__builtin_ctz(m)]), 12);
        return k;
    }
    // A hash of a packed state and its loop: a lookup compares it first, so most maps it passes
    // over are not read at all (nest_map.h).
    static uint64_t state_key(const FmacsLoop& L, const uint32_t* w, uint32_t nw) {
        uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(&L));
        for (uint32_t k = 0; k < nw; ++k) h = (h ^ w[k]) * 0x9E3779B97F4A7C15ull;
        return h;
    }
    uint64_t state_regs(const FmacsNest& N) const {   // no instruction names one past the frame (validate_program)
        const uint32_t nregs = lp->prog->functions[ce.fn].nregs;
        return N.state_regs & (nregs < 64 ? (1ull << nregs) - 1 : ~0ull);
    }
    // An affine nest's map from the live state (r.ip after the inner loop; nest_map.h): two passes'
    // effect on the registers and DSDs worked out without their fmacs (the map needs no memory: the
    // ld's scalar is dead when a pass starts), on the live registers and DSDs, put back after. If
    // they change x by the same d, start their inner loops alike and count the outer loop up to a
    // fixed bound, every pass after them does too (M.alike).
    void work_out(NestMap& M, const FmacsLoop& L, const NestCode& c, uint32_t* const R) {
        const Instr *const after = c.after, *const outer = c.outer, *const lead = c.lead, *const lead_end = c.lead_end, *const fm = c.fm,
                           *const ld = c.ld;
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
            for (const Instr* q = after; q != outer; ++q) cx.straight(*q, R);
            E.outer_a = R[outer->a], E.outer_b = R[outer->b];
            if (int32_t(E.outer_a) >= int32_t(E.outer_b)) {   // the outer blt falls through: no pass left to run at once
                restore(x[0], W, R);
                return;
            }
            for (const Instr* q = lead; q != lead_end; ++q) cx.straight(*q, R);
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
            const uint64_t t = entry_trips(L, E);
            if (!t) {
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
        if (!entries_alike(e[0], e[1])) return;
        for (uint32_t k = 0; k < nw; ++k) M.d.w[k] = x[1].w[k] - x[0].w[k];
        M.e0 = e[0], M.e1 = e[1], M.trips = trips;
        M.alike = true;
    }
    // A pass's inner trip count from its entry (its counter's start and bound), or 0 where the pass
    // cannot run at once (its operands not unit-stride memory, no iteration, or the counter wraps).
    uint64_t entry_trips(const FmacsLoop& L, const NestEntry& E) const {
        const uint32_t ci = L.counter_step;
        const int64_t left = int64_t(int32_t(E.vn)) - int32_t(E.vi);
        const uint64_t t = int32_t(ci) <= 0 ? 0 : left <= 0 ? (L.nest.entry_test ? 0 : 1) : uint64_t((left + int32_t(ci) - 1) / int32_t(ci));
        if (!Exec::unit_operands(E.a, E.d, E.b) || !t || int64_t(int32_t(E.vi)) + int64_t(t) * int32_t(ci) > INT32_MAX) return 0;
        return t;
    }
    // Whether every pass is alike when the first two are (and change the words by the same d): the
    // operands' kinds, strides and lengths, the steps, and the counter's start and bound (so the trip
    // count); and the outer blt is taken while its counter counts up to a fixed bound.
    static bool entries_alike(const NestEntry& e0, const NestEntry& e1) {
        auto same_shape = [](const Dsd& u, const Dsd& v) { return u.kind == v.kind && u.stride == v.stride && u.length == v.length; };
        if (!same_shape(e0.a, e1.a) || !same_shape(e0.d, e1.d) || !same_shape(e0.b, e1.b) || e0.vi != e1.vi || e0.vn != e1.vn ||
            e0.sa != e1.sa || e0.sd != e1.sd || e0.sb != e1.sb)
            return false;
        const int64_t da = int32_t(e1.outer_a - e0.outer_a), a0v = int32_t(e0.outer_a);
        return e1.outer_b == e0.outer_b && da > 0 && a0v + da == int32_t(e1.outer_a) && a0v < int32_t(e0.outer_b);
    }
    // The map m k > 0 passes on, when the state w is where k of m's passes lead (a nest a slice's end
    // stopped part-way, entered again where it stopped): every word a pass writes k times its d on
    // from m's state, every other word the same. The passes being alike, the entries move k steps
    // of e1 - e0 and d stays. Returns false where w is not on m's orbit.
    bool orbit(NestMap& out, const NestMap& m, const FmacsLoop& L, const uint32_t* w, uint32_t nw) const {
        if (m.loop != &L || m.nstate != nw || !m.alike) return false;
        const FmacsNest& W = L.nest;
        const uint64_t regs = state_regs(W);
        const uint32_t nregs = uint32_t(__builtin_popcountll(regs));
        uint32_t ds[kMaxNestState] = {};   // what a pass adds to each state word
        for (uint32_t j = 0; j < W.nreg; ++j)
            if (regs >> W.reg[j] & 1) ds[__builtin_popcountll(regs & ((1ull << W.reg[j]) - 1))] = m.d.w[j];
        for (uint32_t j = 0; j < W.ndsd; ++j)
            if (W.state_dsds >> W.dsd[j] & 1)
                for (uint32_t t = 0; t < 3; ++t)
                    ds[nregs + 3 * uint32_t(__builtin_popcount(W.state_dsds & ((1u << W.dsd[j]) - 1))) + t] = m.d.w[W.nreg + 3 * j + t];
        int64_t k = 0;
        for (uint32_t i = 0; i < nw && !k; ++i)
            if (const int32_t step = int32_t(ds[i])) {
                const int32_t moved = int32_t(w[i] - m.state[i]);
                if (moved % step) return false;
                k = moved / step;
            }
        if (k <= 0) return false;
        for (uint32_t i = 0; i < nw; ++i)
            if (w[i] != m.state[i] + uint32_t(k) * ds[i]) return false;
        const NestEntry &A = m.e0, &B = m.e1;
        NestEntry e[2];   // entries k and k + 1 of m's passes: only the bases, the ld's address and the outer counter move
        for (int p = 0; p < 2; ++p) {
            NestEntry& E = e[p];
            const uint32_t q = uint32_t(k + p);
            auto at = [&](uint32_t a, uint32_t b) { return a + q * (b - a); };
            E = B;
            E.a.base = at(A.a.base, B.a.base), E.d.base = at(A.d.base, B.d.base), E.b.base = at(A.b.base, B.b.base);
            E.vp = at(A.vp, B.vp), E.outer_a = at(A.outer_a, B.outer_a);
        }
        if (entry_trips(L, e[0]) != m.trips || !entries_alike(e[0], e[1])) return false;
        out.e0 = e[0], out.e1 = e[1], out.trips = m.trips, out.d = m.d;
        out.alike = true;
        return true;
    }
    // The map at the state w that continues the line of two maps' states, s1 - s0 on from s1 (a
    // matmul's rounds, each entering its nest one block on), where the map is affine along it: a pass
    // is an affine map of the words mod 2^32 (the nest is affine), so while the inner loop's trip
    // count stays (its counter's start and bound move together), every word of the entries and of d
    // is an affine function of the state too, and the map at w is 2 M1 - M0, word by word. The words
    // that pack a DSD's kind, colour and stride must not move; the rest (registers, bases, lengths)
    // are plain words mod 2^32. What an extrapolated map must still satisfy (the trip count, the
    // passes alike) is checked on it as work_out checks it. Returns false (out untouched but for
    // its fields being worked out next) where it does not apply.
    bool extrapolate(NestMap& out, const NestMap& m0, const NestMap& m1, const FmacsLoop& L, const uint32_t* w, uint32_t nw) const {
        if (m0.loop != &L || m1.loop != &L || m0.nstate != nw || m1.nstate != nw || !m0.alike || !m1.alike || m0.trips != m1.trips ||
            m0.e0.vn - m0.e0.vi != m1.e0.vn - m1.e0.vi)   // the counter's start and bound move together: the trip count stays
            return false;
        const uint32_t nregs = uint32_t(__builtin_popcountll(state_regs(L.nest)));
        for (uint32_t k = 0; k < nw; ++k)
            if (w[k] != 2 * m1.state[k] - m0.state[k] || (k >= nregs && (k - nregs) % 3 == 0 && m1.state[k] != m0.state[k])) return false;
        auto lin = [](uint32_t a, uint32_t b) { return 2 * b - a; };
        auto dsd = [&](const Dsd& a, const Dsd& b, Dsd* o) {
            if (a.kind != b.kind || a.colour != b.colour || a.stride != b.stride) return false;
            *o = b, o->base = lin(a.base, b.base), o->length = lin(a.length, b.length);
            return true;
        };
        NestEntry e[2];
        for (int p = 0; p < 2; ++p) {
            const NestEntry &A = p ? m0.e1 : m0.e0, &B = p ? m1.e1 : m1.e0;
            NestEntry& E = e[p];
            if (!dsd(A.a, B.a, &E.a) || !dsd(A.d, B.d, &E.d) || !dsd(A.b, B.b, &E.b)) return false;
            E.sa = lin(A.sa, B.sa), E.sd = lin(A.sd, B.sd), E.sb = lin(A.sb, B.sb);
            E.vi = lin(A.vi, B.vi), E.vn = lin(A.vn, B.vn), E.vp = lin(A.vp, B.vp);
            E.outer_a = lin(A.outer_a, B.outer_a), E.outer_b = lin(A.outer_b, B.outer_b);
            if (entry_trips(L, E) != m1.trips) return false;
        }
        if (!entries_alike(e[0], e[1])) return false;
        const FmacsNest& W = L.nest;
        NestPoint d;
        for (uint32_t k = 0; k < W.nreg + 3u * W.ndsd; ++k) {
            if (k >= W.nreg && (k - W.nreg) % 3 == 0 && m0.d.w[k] != m1.d.w[k]) return false;   // a DSD's packed word
            d.w[k] = lin(m0.d.w[k], m1.d.w[k]);
        }
        out.e0 = e[0], out.e1 = e[1], out.trips = m1.trips, out.d = d;
        out.alike = true;
        return true;
    }

    // An affine nest's passes from here (r.ip is after the inner loop), as many as run at once
    // (fmacs_loop.h), from the nest's map at the live state (work_out, or the PE's map kept from an
    // entry at the same state, nest_map.h): the passes the outer loop has left before its last, that end before
    // stop, and whose every address lies in SRAM run their fmacs back to back, and the registers,
    // DSDs, time, count and statistics move that many passes on. Else nothing changes.
    __attribute__((noinline)) LoopRun run_affine_passes(const FmacsLoop& L, const NestCode& c, LoopRun r, uint64_t stop, uint32_t* const R) {
        if (c.fm->e | ce.ut_busy) return r;
        bool fresh = false;
        uint32_t w[kRegs + 3 * kDsdRegs];
        const uint32_t nw = pack_state(L, R, w);
        if (nw > kMaxNestState) {   // too much state to keep: worked out for this entry alone
            NestMap once;
            work_out(once, L, c, R);
            return once.alike ? run_passes(once, L, c, r, stop, R) : r;
        }
        auto same = [&](const NestMap& m) {   // a loop, not memcmp's call: the states are a few words
            if (m.loop != &L || m.nstate != nw) return false;
            uint32_t diff = 0;
            for (uint32_t k = 0; k < nw; ++k) diff |= m.state[k] ^ w[k];
            return diff == 0;
        };
        NestMap& M = cx.port.nest_map(&L, state_key(L, w, nw), same, &fresh);
        if (fresh) {   // from the map before it, continuing its line with the one before or on its orbit, else worked out
            const NestMap* m1 = cx.port.nest_map_at(M.prev);
            const NestMap* m0 = m1 ? cx.port.nest_map_at(m1->prev) : nullptr;
            if (!m1 || m1 == &M || ((!m0 || m0 == &M || !extrapolate(M, *m0, *m1, L, w, nw)) && !orbit(M, *m1, L, w, nw))) work_out(M, L, c, R);
            M.loop = &L, M.nstate = nw;
            std::memcpy(M.state, w, 4 * nw);
        }
        return M.alike ? run_passes(M, L, c, r, stop, R) : r;
    }
    // The passes of run_affine_passes from map M (M.alike).
    LoopRun run_passes(const NestMap& M, const FmacsLoop& L, const NestCode& c, LoopRun r, uint64_t stop, uint32_t* const R) {
        const Instr *const fm = c.fm, *const ld = c.ld;
        const FmacsNest& W = L.nest;
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
        // The tile held in registers, as affine_loop holds it, when nothing else a pass reads meets any pass's tile,
        // and the passes' tiles, if they overlap, are whole vectors (the kernel takes a tile's last n % 4 floats after
        // all the passes' vectors).
        auto apart_from_tiles = [&](int64_t lo, int64_t hi) { return hi <= dlo || lo >= dhi + tile; };
        const uint32_t pd_bytes = uint32_t(std::abs(int64_t(int32_t(d1.base - d0.base))));
        const bool in_registers = register_tile(n) && a0.base == d0.base && a1.base == d1.base && sa == 0 && sd == 0 &&
                                  (n % 4 == 0 || passes == 1 || pd_bytes >= tile) && apart_from_tiles(blo, bhi + tile) &&
                                  (!ld || apart_from_tiles(llo, lhi + 4));
        const uint32_t pa = a1.base - a0.base, pd = d1.base - d0.base, pb = b1.base - b0.base, pv = v1 - v0;
        const uint64_t loads = ld ? trips - 1 : 0;
        uint32_t sbits = R[fm->d];
        // The tile moves within a pass and every pass takes the same tiles (a GPT matmul's rounds: row j's
        // sum, kk after kk): apart, each tile's fmacs run in the same order with the loops swapped, a
        // tile in registers across the passes (its scalars pv apart, a tile's first cp from the one before).
        const bool swapped = register_tile(n) && a0.base == d0.base && a1.base == d1.base && sa == sd && d0.base == d1.base &&
                             uint32_t(std::abs(int64_t(int32_t(sd)))) >= tile && apart_from_tiles(blo, bhi + tile) &&
                             (!ld || apart_from_tiles(llo, lhi + 4));
        if (in_registers) {   // every pass's addresses lie in SRAM: they step by a signed pass step
            sbits = fmacs_tile_passes({mem + d0.base, mem + b0.base, ld ? mem + v0 : nullptr, int32_t(pd), int32_t(pb), int32_t(pv), int32_t(sb),
                                       int32_t(cp), passes, trips, loads, ld != nullptr, n},
                                      sbits);
        } else if (swapped) {
            sbits = fmacs_tile_passes({mem + d0.base, mem + b0.base, ld ? mem + v0 : nullptr, int32_t(sd), int32_t(sb), int32_t(cp), int32_t(pb),
                                       int32_t(pv), trips, passes, ld ? passes - 1 : 0, ld != nullptr, n},
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
};

}  // namespace wl
