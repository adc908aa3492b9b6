// fmacs_loop.h: loops around one fmacs, found when a program is loaded, that fast mode runs as one
// macro-op (FmacsLoopExec::run_loop) instead of an instruction at a time.
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
// slice's end), so results, counts, cycles and faults are the interpreter's.
//
// What can be known from the code alone is decoded here, once per program: the steps, their
// cycles, and whether the loop is affine (below), so an entry into the loop only reads registers.
//
// The nest: the loop around an fmacs loop, when its body is straight code (integer arithmetic and
// DSD set-up, which cannot branch or fault) before and after the fmacs loop. SUMMA's column loop
// (`for j { for l { fmacs } }`) is one:
//
//   lead:  li r4, 0 / ishli r6, r2, 6 / ... / dmem d4, base r7, len r8   (14 instructions)
//          the fmacs loop                                              (ld, fmacs, 3 steps, blt)
//   tail:  iaddi r2, r2, 1
//          blt r2, r3, @lead
//
// An inner loop whose trip count is known only when it runs (`for t in 0..n`) is entered through
// its blt: the lead ends with `jmp @blt`, and a pass whose test fails runs no iteration.
//
// FmacsLoopExec::run_nest runs the tail, the outer blt and the lead with their interpreter effects,
// each pass's time and count at once, and goes straight back into the fmacs loop's macro-op: a pass
// costs no dispatch and no return to the interpreter.
//
// When the nest is affine, its passes cost only their fmacs. A pass (tail, outer blt, lead, inner
// loop) whose straight instructions are linear (li, mov, iadd, isub, iaddi, ishli, imuli, dmem,
// dsetlen, daddr) and whose inner loop runs the same number of iterations maps the registers and
// DSDs x to A x + b (words mod 2^32), apart from the scalar the inner loop loads, which no pass
// reads before writing; the map needs no memory. Then the change from one pass to the next obeys
// d(p+1) = A d(p); so if two passes change x by the same d, every later pass changes it by d too:
// x(p) = x(0) + p d, and every base, address and count of pass p is known without running its
// instructions. FmacsLoopExec::run_affine_passes works out two passes' map without their fmacs, checks
// that, and every address of the passes it runs at once, and runs their fmacs back to back.
#pragma once
#include "engine/fabric/isa.h"

#include <cstdint>
#include <vector>

namespace wl {

struct Program;

constexpr uint32_t kMaxFmacsLoopPost = 6;   // iaddi and daddr instructions after the fmacs (SUMMA has 3)
constexpr uint32_t kMaxNestStraight = 32;   // a nest's lead and tail together (SUMMA's: 15)

struct FmacsLoopStep {   // an iaddi (rA = rB + imm) or a daddr (DSD a's base += rB)
    uint8_t a = 0, b = 0;
    uint32_t imm = 0;
};

struct FmacsNest {   // the loop around an fmacs loop (above)
    uint32_t lead = 0, blt = 0;              // pcs: the lead's first instruction and the outer blt; blt 0: no nest
    uint32_t lead_cycles = 0, tail_cycles = 0;
    uint32_t last_cost = 0;                  // the lead's last instruction's cycles
    // The lead ends with a jmp to the inner blt, which tests before the first iteration (a loop whose
    // trip count is not known when compiled may run none): lead, jmp, blt, then the inner loop.
    bool entry_test = false;
    // Affine: the inner loop is, and a pass is an affine map of the registers and DSDs (below).
    bool affine = false;
    // What a pass writes: registers reg[0, nreg), DSDs dsd[0, ndsd) (its straight instructions' targets,
    // the inner loop's iaddi, daddr and ld).
    uint8_t reg[kMaxNestStraight + kMaxFmacsLoopPost + 1], dsd[8];   // 8: kDsdRegs (program.h)
    uint8_t nreg = 0, ndsd = 0;
    // What a pass's map (nest_map.h) depends on: the registers it reads or writes (the inner loop's
    // ld scalar aside) and the DSDs it reads or writes, as masks.
    uint64_t state_regs = 0;
    uint8_t state_dsds = 0;
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
    FmacsNest nest;
    uint32_t head() const { return ld >= 0 ? uint32_t(ld) : fmacs; }
    uint32_t lead_end() const { return head() - (nest.entry_test ? 1 : 0); }   // past the nest's straight lead
};

struct FmacsLoops {
    std::vector<uint32_t> at;                // per pc of p.code: 1 + the index of the loop whose fmacs is there, else 0 (empty if none)
    std::vector<FmacsLoop> loops;
    bool empty() const { return loops.empty(); }
    const FmacsLoop* find(uint32_t pc) const { return at.empty() || !at[pc] ? nullptr : &loops[at[pc] - 1]; }
};

FmacsLoops find_fmacs_loops(const Program& p);

}  // namespace wl
