// dot_loop.h: loops of dot products, found when a program is loaded, that fast mode runs several
// iterations at a time (DotLoopExec::run, dot_loop_exec.h) instead of an instruction at a time.
//
// The shape (what the optimising compiler emits for a GEMV's rows, models/kernels/matmul.wk's
// `for j { fmuls(products, w row j, x); let s = fsums(products); ...; y[j] = s + b[j]; }`):
//
//   head:  fmuls dP, dA, dB              fmuls d3, d5, d4          (synchronous)
//          fsums rS, dP                  fsums r8, d3
//          plain code, up to 16          ld r9, [r5 + 8192] / fadd r8, r8, r9 / mov r10, r8 /
//                                        st [r6 + 8256], r10 / iaddi ... / daddr d5, r7 / ...
//          blt ra, rb, @head             blt r3, r4, @256
//
// where the plain code neither branches nor sets up a DSD other than by a daddr of dA or dB whose
// step register nothing in the loop writes (so row i's operands are dA + i sA and dB + i sB), dP
// is neither (the products stay put), and the blt's counter is written only by one iaddi of a
// positive step and its bound not at all (so the trip count is known on entry). fsums adds its n products one after another, so one
// row's sum is a chain of dependent adds: the interpreter pays an add's latency per element and
// reads every product back. The macro-op instead computes several rows' sums side by side (dot_rows:
// each row's products, rounded, added from +0 in order, so the bits are fsums'), then runs each
// iteration's plain code with its sum, in order, with the interpreter's effects. It hands back to
// the interpreter where anything is unusual: an operand not unit-stride memory or outside SRAM,
// the products buffer overlapping what the rows read, a load or store that would fault or that
// touches the products, a store into what later rows read.
#pragma once
#include "engine/fabric/isa.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wl {

struct Program;

constexpr uint32_t kMaxDotLoopTail = 16;   // plain instructions between the fsums and the blt (matmul's gemv: 10)

struct DotLoop {
    uint32_t fmuls = 0, blt = 0;             // pcs: the fsums is at fmuls + 1, the plain code after it
    uint32_t tail_cycles = 0;                // the plain code's cycles in one iteration
    int32_t counter_step = 0;                // what the iaddi adds to the blt's counter each iteration (> 0)
};

struct DotLoops {
    std::vector<uint32_t> at;                // per pc: 1 + the index of the loop whose fmuls is there, else 0 (empty if none)
    std::vector<DotLoop> loops;
    bool empty() const { return loops.empty(); }
    const DotLoop* find(uint32_t pc) const { return at.empty() || !at[pc] ? nullptr : &loops[at[pc] - 1]; }
};

DotLoops find_dot_loops(const Program& p);

// rows sums s[r] = +0 + A_r[0] B_r[0] + A_r[1] B_r[1] + ... + A_r[n-1] B_r[n-1], each product and each
// add rounded, left to right (fmuls then fsums: the same bits), where A_r = a + r astep and
// B_r = b + r bstep (floats). Several rows at once, so that their chains overlap. With `last`, the
// last row's n products are stored there (fmuls' result), apart from every row read.
void dot_rows(const float* a, ptrdiff_t astep, const float* b, ptrdiff_t bstep, uint32_t n, uint32_t rows, float* s, float* last);

}  // namespace wl
