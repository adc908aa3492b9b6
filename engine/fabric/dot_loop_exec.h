// dot_loop_exec.h: fast mode runs a loop of dot products (dot_loop.h) a batch of rows at a time.
// Every instruction keeps its interpreter effect and cost, in order, on the live registers, DSDs
// and SRAM; what is saved is the dispatch and the wait on each row's chain of adds (the rows'
// sums are computed side by side, dot_rows) and the products' round trip through SRAM (only the
// last row's products are written, unless the plain code reads or writes them).
//
//   LoopRun r = DotLoopExec<CoreExec>(exec).run(L, ip, t, count, cost, stop, R);
#pragma once
#include "engine/fabric/core.h"
#include "engine/fabric/dot_loop.h"
#include "engine/fabric/fmacs_loop_exec.h"   // LoopRun
#include "engine/fabric/vector_ops.h"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace wl {

template <class Exec>
class DotLoopExec {
public:
    explicit DotLoopExec(Exec& exec) : cx(exec), ce(exec.ce), mem(exec.mem), sram_bytes(exec.sram_bytes) {}

    // Runs the dot loop L whose fmuls is at fm from cycle t, with run_plain's count and last cost,
    // whole iterations while each ends before stop, and returns where the interpreter goes on: the
    // fmuls (the next row is not the unit case, leaves SRAM or meets the products, or its iteration
    // would reach stop), an ld or st whose address would fault, or the instruction after the loop.
    // A count unchanged means nothing ran.
    __attribute__((noinline)) LoopRun run(const DotLoop& L, const Instr* const fm, uint64_t t, uint32_t count, uint32_t cost,
                                          uint64_t stop, uint32_t* const R) {
        Core& C = ce;
        const Instr *const fs = fm + 1, *const tail = fm + 2, *const br = fm + (L.blt - L.fmuls);
        if (C.ut_busy) return {fm, t, count, cost};
        const Dsd& da = C.dsd[fm->b];
        const Dsd& dp = C.dsd[fm->a];
        const Dsd& db = C.dsd[fm->c];
        if (!Exec::unit_operands(da, dp, db)) return {fm, t, count, cost};
        const uint32_t n = da.length, bytes = n * 4, p0 = dp.base;
        if ((p0 & 3) || uint64_t(p0) + bytes > sram_bytes) return {fm, t, count, cost};   // the interpreter faults
        // A row's step: the daddr of its DSD in the plain code (their registers are not written in the loop).
        uint32_t sa = 0, sb = 0;
        for (const Instr* p = tail; p != br; ++p)
            if (p->op == Op::DADDR) {
                sa += p->a == fm->b ? R[p->b] : 0;
                sb += p->a == fm->c ? R[p->b] : 0;
            }
        constexpr uint32_t kMul = op_base_cycles(Op::FMULS), kSum = op_base_cycles(Op::FSUMS), kBranch = op_base_cycles(Op::BLT);
        const uint32_t mul_cycles = uint32_t(kMul + cx.memory_work(Op::FMULS, n)), sum_cycles = uint32_t(kSum + cx.memory_work(Op::FSUMS, n));
        const uint64_t iter_cycles = mul_cycles + sum_cycles + L.tail_cycles + kBranch;
        // Iteration i runs whole only if it ends before stop, as the interpreter's test after each
        // instruction would have it (t < stop here).
        uint64_t left = (stop - t - 1) / iter_cycles;
        {   // no more than the loop has left: this iteration, then one for each step below the bound
            const int64_t c = int32_t(R[br->a]), bound = int32_t(R[br->b]), step = L.counter_step;
            if (bound + step <= INT32_MAX) left = std::min<uint64_t>(left, uint64_t(std::max<int64_t>(1, (bound - c + step - 1) / step)));
        }
        uint64_t rows_run = 0;   // fmuls and fsums issued
        uint64_t held = 0;       // the row (1 + its index in rows_run) whose products the products buffer holds, unchanged; 0 none
        bool products = false;   // the current row's products are in the buffer (and what its plain code stored there since)
        const float* pa = nullptr;   // the last row run: its operands
        const float* pb = nullptr;
        float* const pp = reinterpret_cast<float*>(mem + p0);
        auto write_products = [&] { Exec::template unit_memory_loop<Op::FMULS>(pp, pa, pb, n, 0.0f); };   // the row run last's, as fmuls
        while (left) {
            // A batch: the rows from here that lie in SRAM, word-aligned, apart from the products.
            const uint32_t a0 = da.base, b0 = db.base;
            uint32_t rows = 0;
            while (rows < std::min<uint64_t>(left, kBatch) && row_ok(a0, sa, rows, bytes, p0) && row_ok(b0, sb, rows, bytes, p0)) ++rows;
            if (!rows) break;   // the interpreter takes the fmuls
            dot_rows(reinterpret_cast<const float*>(mem + a0), int32_t(sa) / 4, reinterpret_cast<const float*>(mem + b0), int32_t(sb) / 4, n,
                     rows, sums, pp);
            held = rows_run + rows;
            // What the batch's rows read: a store there makes the later rows' sums stale.
            const int64_t a_last = int64_t(a0) + int64_t(rows - 1) * int32_t(sa), b_last = int64_t(b0) + int64_t(rows - 1) * int32_t(sb);
            bool stale = false;
            for (uint32_t i = 0; i < rows && !stale; ++i, --left) {
                // fmuls and fsums, as memory_vec issues them
                const uint32_t ab = da.base, bb = db.base;
                pa = reinterpret_cast<const float*>(mem + ab), pb = reinterpret_cast<const float*>(mem + bb);
                const uint32_t top = std::max(std::max(ab, bb), p0) + bytes;
                if (top > C.sram_used) C.sram_used = top;
                R[fs->d] = u32(sums[i]);
                t += mul_cycles + sum_cycles, count += 2, cost = sum_cycles, ++rows_run;
                products = held == rows_run;
                // the plain code, with its effects in order
                for (const Instr* p = tail; p != br; ++p) {
                    if (p->op == Op::LD || p->op == Op::ST) {
                        const uint32_t addr = R[p->b] + uint32_t(p->imm);
                        const bool meets_products = addr + 4 > p0 && addr < p0 + bytes;
                        if (!products && (meets_products || (addr & 3) || uint64_t(addr) + 4 > sram_bytes)) {
                            write_products();
                            products = true, held = rows_run;
                        }
                        if (p->op == Op::ST && meets_products) held = 0;
                        if ((addr & 3) || uint64_t(addr) + 4 > sram_bytes) return counted({p, t, count, cost}, rows_run, n);   // the interpreter faults
                        if (p->op == Op::ST && i + 1 < rows)
                            stale = stale || meets(addr, a0, a_last, bytes) || meets(addr, b0, b_last, bytes);
                    }
                    cx.template effect<false>(*p, R);
                    cost = op_base_cycles(p->op), t += cost, ++count;
                }
                t += kBranch, ++count, cost = kBranch;
                if (!(int32_t(R[br->a]) < int32_t(R[br->b]))) {   // the loop is done
                    if (!products) write_products();
                    return counted({br + 1, t, count, cost}, rows_run, n);
                }
            }
        }
        if (pa && !products) write_products();
        return counted({fm, t, count, cost}, rows_run, n);
    }

private:
    static constexpr uint32_t kBatch = 64;   // rows a batch at most: a bound on the work a store can spoil
    Exec& cx;
    Core& ce;
    uint8_t* const mem;
    const uint32_t sram_bytes;
    float sums[kBatch];

    // Whether row r's operand (base + r step, as the interpreter's additions give it) is word-aligned,
    // inside SRAM and apart from the products at p0. Rows before r are: so no address wraps.
    bool row_ok(uint32_t base, uint32_t step, uint32_t r, uint32_t bytes, uint32_t p0) const {
        const int64_t at = int64_t(base) + int64_t(r) * int32_t(step);
        return !(at & 3) && at >= 0 && at + bytes <= int64_t(sram_bytes) && (at + bytes <= p0 || p0 + bytes <= at);
    }
    // Whether the word at addr meets the batch's operands, from the first row's to the last's.
    static bool meets(uint32_t addr, int64_t first, int64_t last, uint32_t bytes) {
        return int64_t(addr) + 4 > std::min(first, last) && int64_t(addr) < std::max(first, last) + bytes;
    }
    // The statistics of `rows` fmuls and fsums of n elements on memory, as memory_vec counts them.
    LoopRun counted(LoopRun r, uint64_t rows, uint32_t n) {
        ce.stats.elems += 2 * rows * n;
        ce.stats.flops += rows * n * (vec_flops_per_elem(Op::FMULS) + vec_flops_per_elem(Op::FSUMS));
        ce.stats.sram_bytes += rows * n * 4 * (3 + 1);
        return r;
    }
};

}  // namespace wl
