// fmacs_loop.h: loops around one fmacs, found when a program is loaded, that fast mode runs as one
// macro-op (CoreExec::run_fmacs_loop) instead of an instruction at a time.
//
// The shape (what the optimising compiler emits for `for l in a..b { fmacs(mem(C..), mem(C..), mem(A..), x[..]); }`):
//
//   head:  [ld rs, [rp + imm]]           ld    r8, [r6 + 4096]     (optional; the branch target)
//          fmacs dD, dA, dB, rs          fmacs d3, d3, d4, r8      (synchronous)
//          iaddi / daddr, up to 4        iaddi r6, r6, 4 / daddr d4, r7 / iaddi r4, r4, 1
//          blt ra, rb, @head             blt   r4, r5, @head
//
// where no daddr reads a register the loop writes (its step is fixed for the loop). The macro-op
// runs each instruction with the interpreter's effect, in order, on the live registers and DSDs;
// it checks the fmacs operands once (no instruction in the loop can change their kind, stride or
// length) and their bases every iteration, and hands back to the interpreter at the instruction
// where anything is unusual (operands not unit-stride memory, an address outside SRAM, the
// run-ahead limit), so results, counts, cycles and faults are the interpreter's.
#pragma once
#include "engine/fabric/program.h"

#include <cstdint>
#include <vector>

namespace wl {

constexpr uint32_t kMaxFmacsLoopPost = 4;   // iaddi and daddr instructions after the fmacs (SUMMA has 3)

// Per pc of p.code: for an fmacs that heads such a loop, the pc of its closing blt; 0 for every other pc.
// Empty when the program has none.
std::vector<uint32_t> find_fmacs_loops(const Program& p);

}  // namespace wl
