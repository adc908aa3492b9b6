// dot_loop.cpp: find_dot_loops and dot_rows (dot_loop.h).
#include "engine/fabric/dot_loop.h"

#include "engine/fabric/program.h"

namespace wl {

namespace {

// The loop whose fmuls is at f, if it has the shape (dot_loop.h).
bool decode(const Program& p, uint32_t f, DotLoop* out) {
    const uint32_t n = uint32_t(p.code.size());
    const Instr& fm = p.code[f];
    if (fm.op != Op::FMULS || fm.e != 0 || f + 1 >= n) return false;
    const Instr& fs = p.code[f + 1];
    const uint8_t dp = fm.a, da = fm.b, db = fm.c;
    if (fs.op != Op::FSUMS || fs.e != 0 || fs.b != dp || dp == da || dp == db) return false;
    DotLoop L;
    L.fmuls = f;
    uint64_t written = regs_written(fs), stepped = 0;   // registers the loop writes; registers a daddr reads
    uint32_t j = f + 2;
    for (; j < n && p.code[j].op != Op::BLT; ++j) {
        const Instr& in = p.code[j];
        if (j - f - 2 >= kMaxDotLoopTail || !op_is_plain(in.op) || op_is_branch(in.op)) return false;
        if (op_writes_dsd(in.op)) {   // only the rows' steps
            if (in.op != Op::DADDR || (in.a != da && in.a != db)) return false;
            stepped |= 1ull << (in.b & 63);
        }
        written |= regs_written(in);
        L.tail_cycles += op_base_cycles(in.op);
    }
    // The branch goes back to the fmuls (a branch target is in its branch's function, and functions
    // are contiguous, so the loop lies in one).
    if (j >= n || p.code[j].imm != int32_t(f) || (written & stepped)) return false;
    L.blt = j;
    // The counter: one iaddi adds a positive step to it, nothing else in the loop writes it or the bound.
    const Instr& br = p.code[j];
    int writers = 0;
    for (uint32_t k = f + 1; k < j; ++k) writers += (regs_written(p.code[k]) >> (br.a & 63)) & 1;
    if (writers != 1 || br.a == br.b || ((written >> (br.b & 63)) & 1)) return false;
    for (uint32_t k = f + 2; k < j; ++k) {
        const Instr& in = p.code[k];
        if (in.op == Op::IADDI && in.a == br.a && in.b == br.a && in.imm > 0) L.counter_step = in.imm;
    }
    if (!L.counter_step) return false;
    *out = L;
    return true;
}

// R rows' chains side by side (the compiler keeps the R sums in registers): an add's latency is
// paid once per element for all of them. With `last`, the last row's products are stored there too.
template <int R>
void rows_of(const float* a, ptrdiff_t astep, const float* b, ptrdiff_t bstep, uint32_t n, float* s, float* last) {
    float acc[R];
    for (int r = 0; r < R; ++r) acc[r] = 0.0f;
    for (uint32_t k = 0; k < n; ++k) {
        float p[R];
        if (bstep == 0) {   // one x for every row (a GEMV)
            const float x = b[k];
            for (int r = 0; r < R; ++r) p[r] = a[r * astep + k] * x;   // fmuls' element
        } else {
            for (int r = 0; r < R; ++r) p[r] = a[r * astep + k] * b[r * bstep + k];
        }
        for (int r = 0; r < R; ++r) acc[r] = acc[r] + p[r];   // fsums' add
        if (last) last[k] = p[R - 1];
    }
    for (int r = 0; r < R; ++r) s[r] = acc[r];
}

}  // namespace

DotLoops find_dot_loops(const Program& p) {
    DotLoops out;
    const uint32_t n = uint32_t(p.code.size());
    for (uint32_t f = 0; f < n; ++f) {
        DotLoop L;
        if (!decode(p, f, &L)) continue;
        if (out.at.empty()) out.at.assign(n, 0);
        out.loops.push_back(L);
        out.at[f] = uint32_t(out.loops.size());
    }
    return out;
}

void dot_rows(const float* a, ptrdiff_t astep, const float* b, ptrdiff_t bstep, uint32_t n, uint32_t rows, float* s, float* last) {
    constexpr uint32_t kChains = 8;   // enough to hide an add's latency at two adds a cycle
    for (; rows > kChains; rows -= kChains, a += kChains * astep, b += kChains * bstep, s += kChains)
        rows_of<kChains>(a, astep, b, bstep, n, s, nullptr);
    switch (rows) {
    case 1: return rows_of<1>(a, astep, b, bstep, n, s, last);
    case 2: return rows_of<2>(a, astep, b, bstep, n, s, last);
    case 3: return rows_of<3>(a, astep, b, bstep, n, s, last);
    case 4: return rows_of<4>(a, astep, b, bstep, n, s, last);
    case 5: return rows_of<5>(a, astep, b, bstep, n, s, last);
    case 6: return rows_of<6>(a, astep, b, bstep, n, s, last);
    case 7: return rows_of<7>(a, astep, b, bstep, n, s, last);
    case 8: return rows_of<8>(a, astep, b, bstep, n, s, last);
    default: return;
    }
}

}  // namespace wl
