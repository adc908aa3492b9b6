// map_nest_exec.h: fast mode runs an affine nest of fmacs maps (map_nest.h) at once. Each pass
// keeps its interpreter effect and cost: the map (its passes, their scalars, the DSD steps), the
// tail, the outer blt and the lead, in order; what is saved is the dispatch, a map's set-up and,
// where the tiles allow, the stores and loads of the tiles between passes.
//
//   MapNestExec<CoreExec> mx(exec);                 // the PE's interpreter (core_exec.h)
//   LoopRun r = mx.run(N, ip, t, count, cost, stop, R);   // ip: the nest's map, about to issue
#pragma once
#include "engine/fabric/core.h"
#include "engine/fabric/dsd.h"
#include "engine/fabric/fmacs_loop_exec.h"
#include "engine/fabric/fmacs_tile.h"
#include "engine/fabric/map_nest.h"
#include "engine/fabric/vector_ops.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace wl {

// A pass's state as its map is about to issue: the registers and DSDs the nest writes (three
// words each), then every DSD's map step.
struct MapNestPoint {
    uint32_t w[sizeof MapNest::reg + 3 * sizeof MapNest::dsd + sizeof MapNest::dsd];
};

// What a pass's map starts from: the fmacs operands (its destination is its first source), their
// steps, its passes and first scalar's address; and the outer blt's operands after it.
struct MapNestEntry {
    Dsd d, b;
    uint32_t sd, sb, passes, v, outer_a, outer_b;
};

// A nest's map from one state (work_out, below).
struct MapNestMap {
    bool alike = false;     // two passes from it change the state by one d (else none run at once)
    MapNestEntry e[2];      // the first two passes' entries
    MapNestPoint d;
};

constexpr int64_t kMinNestPasses = 4;

template <class Exec>
class MapNestExec {
public:
    explicit MapNestExec(Exec& exec) : cx(exec), ce(exec.ce), mem(exec.mem), sram_bytes(exec.sram_bytes), code(exec.lp->prog->code.data()) {}

    // From the nest's map at ip (the registers and DSDs as it is about to issue), its passes (each
    // a map, the tail, the outer blt and, while the blt is taken, the lead) that end before stop,
    // when two passes worked out without their fmacs change the state by the same d and every
    // address of those passes lies in SRAM: their fmacs at once, the state moved that many passes
    // on, and the interpreter goes on after the outer blt, or at the map where stop cut. Otherwise
    // nothing changes.
    __attribute__((noinline)) LoopRun run(const MapNest& N, const Instr* ip, uint64_t t, uint32_t count, uint32_t cost, uint64_t stop,
                                          uint32_t* const R) {
        const LoopRun none{ip, t, count, cost};
        if (ce.ut_busy) return none;
        // Working out two passes costs about what interpreting them does, so a nest with fewer
        // passes left than kMinNestPasses (its outer blt's bound less its counter: a GPT-small
        // matmul's NC = 3 rows) runs a map at a time. Either way gives the same state and cycles.
        const Instr& outer = code[N.blt];
        if (int64_t(int32_t(R[outer.b])) - int64_t(int32_t(R[outer.a])) < kMinNestPasses) return none;
        MapNestMap M;
        work_out(N, R, &M);
        return M.alike ? run_passes(N, M, ip, t, count, cost, stop, R) : none;
    }

private:
    Exec& cx;
    Core& ce;
    uint8_t* const mem;
    const uint32_t sram_bytes;
    const Instr* const code;

    // The passes of run() from map M (M.alike).
    LoopRun run_passes(const MapNest& N, const MapNestMap& M, const Instr* ip, uint64_t t, uint32_t count, uint32_t cost, uint64_t stop,
                       uint32_t* const R) {
        const LoopRun none{ip, t, count, cost};
        const Instr& m = *ip;
        const MapNestPoint& d = M.d;
        const MapNestEntry &e0 = M.e[0], &e1 = M.e[1];
        // The passes to run: the outer blt taken (its counter counts up to a fixed bound), each ending before stop.
        const uint32_t n = e0.d.length, tile = n * 4, P = e0.passes;
        const uint64_t map_cycles = op_base_cycles(Op::MAP) + uint64_t(P) * (1 + op_base_cycles(Op::FMACS) + cx.memory_work(Op::FMACS, n));
        const uint64_t pass_cycles = map_cycles + N.tail_cycles + op_base_cycles(Op::BLT) + N.lead_cycles;
        const uint32_t pass_instrs = 1 + (N.blt - N.map - 2) + 1 + (N.map - N.lead);   // the map, the tail, the blt, the lead
        const uint64_t last_cycles = map_cycles + N.tail_cycles + op_base_cycles(Op::BLT);   // the last pass's: its blt falls through
        const int64_t da = int32_t(e1.outer_a - e0.outer_a), bound = int32_t(e0.outer_b), a0v = int32_t(e0.outer_a);
        const uint64_t taken = uint64_t((bound - a0v + da - 1) / da);   // the passes whose blt is taken; one more ends the nest
        const bool ends = t + taken * pass_cycles + last_cycles < stop;
        const uint64_t passes = ends ? taken + 1 : std::min<uint64_t>(taken, (stop - t - 1) / pass_cycles);   // maps to run
        if (passes == 0) return none;
        // Every address: base + q (pass step) + j (map step) for q < passes, j < P.
        const uint32_t pd = e1.d.base - e0.d.base, pb = e1.b.base - e0.b.base, pv = e1.v - e0.v;
        Span ds, bs, xs;
        if (!span(e0.d.base, pd, passes, e0.sd, P, tile, &ds) || !span(e0.b.base, pb, passes, e0.sb, P, tile, &bs) ||
            !span(e0.v, pv, passes, uint32_t(m.imm), P, 4, &xs))
            return none;
        const int64_t top = std::max(ds.hi, bs.hi);   // as in_sram keeps it: the highest operand's end
        if (top > int64_t(ce.sram_used)) ce.sram_used = uint32_t(top);
        const auto apart = [&](const Span& s) { return s.hi <= ds.lo || s.lo >= ds.hi; };
        uint32_t sbits = R[m.a];
        if (register_tile(n) && pd == 0 && (P == 1 || uint32_t(std::abs(int64_t(int32_t(e0.sd)))) >= tile) && apart(bs) && apart(xs)) {
            // Every pass takes the same tiles (a GPT matmul's rows): the loops swapped, each tile in
            // registers across the passes, its sums in the same order.
            sbits = fmacs_tile_passes({mem + e0.d.base, mem + e0.b.base, mem + e0.v, int32_t(e0.sd), int32_t(e0.sb), m.imm, int32_t(pb),
                                       int32_t(pv), P, passes, passes - 1, true, n},
                                      sbits);
        } else if (register_tile(n) && e0.sd == 0 && (passes == 1 || uint32_t(std::abs(int64_t(int32_t(pd)))) >= tile) && apart(bs) && apart(xs)) {
            // Each pass's tile stays put across its map, in registers.
            sbits = fmacs_tile_passes({mem + e0.d.base, mem + e0.b.base, mem + e0.v, int32_t(pd), int32_t(pb), int32_t(pv), int32_t(e0.sb),
                                       m.imm, passes, P, P - 1, true, n},
                                      sbits);
        } else {   // pass by pass, as map_unit runs a map
            for (uint64_t q = 0; q < passes; ++q) {
                const uint32_t db = e0.d.base + uint32_t(q) * pd, bb = e0.b.base + uint32_t(q) * pb, v = e0.v + uint32_t(q) * pv;
                std::memcpy(&sbits, mem + v, 4);
                if (n % 4 == 0) {
                    sbits = fmacs_moving_tile({mem + db, mem + bb, mem + v + (P > 1 ? uint32_t(m.imm) : 0), int32_t(e0.sd), int32_t(e0.sb), m.imm,
                                               P, P - 1, n},
                                              sbits);
                } else {
                    for (uint32_t j = 0; j < P; ++j) {
                        if (j) std::memcpy(&sbits, mem + v + j * uint32_t(m.imm), 4);
                        float* y = reinterpret_cast<float*>(mem + db + j * e0.sd);
                        Exec::template unit_memory_loop<Op::FMACS>(y, y, reinterpret_cast<const float*>(mem + bb + j * e0.sb), n, f32(sbits));
                    }
                }
            }
        }
        const uint64_t fmacs = passes * P;
        ce.stats.instrs += fmacs;   // each map pass issues the fmacs (count has the map itself)
        ce.stats.elems += fmacs * n;
        ce.stats.flops += fmacs * n * vec_flops_per_elem(Op::FMACS);
        ce.stats.sram_bytes += fmacs * n * 4 * 3;
        // Where they leave the registers, DSDs and steps: x(q) = x(0) + q d at pass q's map, the last scalar.
        const uint64_t whole = ends ? passes - 1 : passes;
        MapNestPoint x;
        snap(N, R, &x);
        for (uint32_t k = 0; k < words(N); ++k) x.w[k] += uint32_t(whole) * d.w[k];
        restore(N, x, R);
        if (!ends) {
            if (!N.scalar_set) R[m.a] = sbits;
            return {ip, t + whole * pass_cycles, count + uint32_t(whole) * pass_instrs, N.last_cost};
        }
        // The last pass: its map's effect, the tail, and the outer blt, which falls through.
        const Instr& fm = ip[1];
        ce.dsd[fm.a].base += e0.sd * P, ce.dsd[fm.c].base += e0.sb * P;
        ce.dstep[fm.a] = ce.dstep[fm.c] = 0;
        R[m.a] = sbits;
        const Instr* const outer = code + N.blt;
        for (const Instr* q = ip + 2; q != outer; ++q) cx.straight(*q, R);
        return {outer + 1, t + whole * pass_cycles + last_cycles, count + uint32_t(whole) * pass_instrs + uint32_t(outer - ip), op_base_cycles(Op::BLT)};
    }

    static uint32_t words(const MapNest& N) { return N.nreg + 3u * N.ndsd + kDsdRegs; }
    void snap(const MapNest& N, const uint32_t* R, MapNestPoint* P) const {
        uint32_t k = 0;
        for (uint32_t j = 0; j < N.nreg; ++j) P->w[k++] = R[N.reg[j]];
        for (uint32_t j = 0; j < N.ndsd; ++j, k += 3) std::memcpy(P->w + k, static_cast<const void*>(&ce.dsd[N.dsd[j]]), 12);
        std::memcpy(P->w + k, ce.dstep, 4 * kDsdRegs);
    }
    void restore(const MapNest& N, const MapNestPoint& P, uint32_t* R) {
        uint32_t k = 0;
        for (uint32_t j = 0; j < N.nreg; ++j) R[N.reg[j]] = P.w[k++];
        for (uint32_t j = 0; j < N.ndsd; ++j, k += 3) std::memcpy(static_cast<void*>(&ce.dsd[N.dsd[j]]), P.w + k, 12);
        std::memcpy(ce.dstep, P.w + k, 4 * kDsdRegs);
    }

    // M's map: two passes from the live state without their fmacs (the map's effect on the DSDs
    // and steps, its scalar left dead), put back after. M.alike when both run their map on
    // unit-stride operands alike, change the state by the same d, and the outer blt counts up to a
    // fixed bound.
    void work_out(const MapNest& N, uint32_t* const R, MapNestMap* M) {
        M->alike = false;
        MapNestEntry* e = M->e;
        MapNestPoint* d = &M->d;
        const Instr& m = code[N.map];
        const Instr& fm = code[N.map + 1];
        const Instr& outer = code[N.blt];
        MapNestPoint x[3];
        snap(N, R, &x[0]);
        bool ok = true;
        for (int p = 0; p < 2 && ok; ++p) {
            MapNestEntry& E = e[p];
            E.d = ce.dsd[fm.a], E.b = ce.dsd[fm.c];
            E.sd = ce.dstep[fm.a], E.sb = ce.dstep[fm.c];
            E.passes = R[m.b], E.v = R[m.c];
            if (int32_t(E.passes) <= 0 || !Exec::unit_operands(E.d, E.d, E.b)) {
                ok = false;
                break;
            }
            ce.dsd[fm.a].base += E.sd * E.passes, ce.dsd[fm.c].base += E.sb * E.passes;
            ce.dstep[fm.a] = ce.dstep[fm.c] = 0;
            R[m.a] = 0;   // the scalar: data, read by nothing but the fmacs
            for (const Instr* q = &m + 2; q != &outer; ++q) cx.straight(*q, R);
            E.outer_a = R[outer.a], E.outer_b = R[outer.b];
            if (int32_t(E.outer_a) >= int32_t(E.outer_b)) {   // the outer blt falls through: no pass left to run at once
                ok = false;
                break;
            }
            for (const Instr* q = code + N.lead; q != &m; ++q) cx.straight(*q, R);
            snap(N, R, &x[p + 1]);
        }
        restore(N, x[0], R);
        if (!ok) return;
        for (uint32_t k = 0; k < words(N); ++k) {
            d->w[k] = x[1].w[k] - x[0].w[k];
            if (x[2].w[k] - x[1].w[k] != d->w[k] && !(k < N.nreg && N.reg[k] == m.a && !N.scalar_set)) return;
        }
        auto same_shape = [](const Dsd& u, const Dsd& v) { return u.kind == v.kind && u.stride == v.stride && u.length == v.length; };
        const MapNestEntry &e0 = e[0], &e1 = e[1];
        const int64_t da = int32_t(e1.outer_a - e0.outer_a), a0v = int32_t(e0.outer_a);
        M->alike = same_shape(e0.d, e1.d) && same_shape(e0.b, e1.b) && e0.sd == e1.sd && e0.sb == e1.sb && e0.passes == e1.passes &&
               e1.outer_b == e0.outer_b && da > 0 && a0v + da == int32_t(e1.outer_a);
    }

    // The bytes [lo, hi) that base + q pstep + j step (q < passes, j < runs) and `bytes` after cover,
    // when every one is word-aligned inside SRAM.
    struct Span {
        int64_t lo, hi;
    };
    bool span(uint32_t base, uint32_t pstep, uint64_t passes, uint32_t step, uint32_t runs, uint32_t bytes, Span* s) const {
        const int64_t c1 = int64_t(passes - 1) * int32_t(pstep), c2 = int64_t(runs - 1) * int32_t(step);
        s->lo = int64_t(base) + std::min<int64_t>(0, c1) + std::min<int64_t>(0, c2);
        s->hi = int64_t(base) + std::max<int64_t>(0, c1) + std::max<int64_t>(0, c2) + bytes;
        return !((base | pstep | step) & 3) && s->lo >= 0 && uint64_t(s->hi) <= sram_bytes;
    }
};

}  // namespace wl
