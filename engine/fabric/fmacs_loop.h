// fmacs_loop.h: loops around one fmacs, found when a program is loaded, that fast mode runs as one
// macro-op (CoreExec::run_fmacs_loop) instead of an instruction at a time.
//
// The shape (what the optimising compiler emits for `for l in a..b { fmacs(mem(C..), mem(C..), mem(A..), x[..]); }`):
//
//   head:  [ld rs, [rp + imm]]           ld    r8, [r6 + 4096]     (optional; the branch target)
//          fmacs dD, dA, dB, rs          fmacs d3, d3, d4, r8      (synchronous)
//          iaddi / daddr, up to 6        iaddi r6, r6, 4 / daddr d4, r7 / iaddi r4, r4, 1
//          blt ra, rb, @head             blt   r4, r5, @head
//
// where no daddr reads a register the loop writes (its step is fixed for the loop). The macro-op
// runs each instruction with the interpreter's effect, in order, on the live registers and DSDs;
// it checks the fmacs operands once (no instruction in the loop can change their kind, stride or
// length) and their bases every iteration, and hands back to the interpreter at the instruction
// where anything is unusual (operands not unit-stride memory, an address outside SRAM, the
// run-ahead limit), so results, counts, cycles and faults are the interpreter's.
//
// What can be known from the code alone is decoded here, once per program: the steps, their
// cycles, and whether the loop is affine (below), so an entry into the loop only reads registers.
#pragma once
#include <cstdint>
#include <vector>

namespace wl {

struct Program;

constexpr uint32_t kMaxFmacsLoopPost = 6;   // iaddi and daddr instructions after the fmacs (SUMMA has 3, the GPT's matmuls 5)

struct FmacsLoopStep {   // an iaddi (rA = rB + imm) or a daddr (DSD a's base += rB)
    uint8_t a = 0, b = 0;
    uint32_t imm = 0;
};

struct FmacsLoop {
    uint32_t fmacs = 0, blt = 0;             // pcs
    int32_t ld = -1;                         // the ld the branch goes back to, or -1 (it goes back to the fmacs)
    uint8_t nadd = 0, nstep = 0;
    FmacsLoopStep add[kMaxFmacsLoopPost];    // the iaddi, in order
    FmacsLoopStep step[kMaxFmacsLoopPost];   // the daddr, in order
    uint32_t post_cycles = 0;                // the iaddi and daddr's cycles in one iteration
    // Affine: each iaddi adds to its own register, no two to the same one, and not to the branch's
    // bound or the fmacs scalar; the ld, if any, loads the scalar from an address register that is
    // neither. Then every register the loop reads is a value and a fixed step per iteration.
    bool affine = false;
    uint32_t counter_step = 0, address_step = 0;   // affine: what an iteration adds to the blt's counter, and to the ld's address register
};

struct FmacsLoops {
    std::vector<uint32_t> at;                // per pc of p.code: 1 + the index of the loop whose fmacs is there, else 0 (empty if none)
    std::vector<FmacsLoop> loops;
    bool empty() const { return loops.empty(); }
    const FmacsLoop* find(uint32_t pc) const { return at.empty() || !at[pc] ? nullptr : &loops[at[pc] - 1]; }
};

FmacsLoops find_fmacs_loops(const Program& p);

}  // namespace wl
