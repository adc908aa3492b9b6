// map_nest.h: a loop around an fmacs map, found when a program is loaded, that fast mode runs as
// one macro-op (MapNestExec, map_nest_exec.h) instead of a map at a time. The shape is a GPT
// matmul's (`for kk { map j in 0..NC { fmacs(mem(y, ts + j*TP, n), .., mem(xb, xo, n), w[wo + j*K]) } }`):
//
//   lead:  li r8, 0 / ishli r12, r8, 6 / ... / dmem d0, .. / dstep d0, r12   (straight, up to the map)
//          map   r11, passes r9, from [r10] step 256
//          fmacs d0, d0, d2, r11                       (y += b s: its destination is its first source)
//   tail:  iadd r4, r4, r0 / iaddi r5, r5, 1 / iaddi r6, r6, 1
//          blt   r6, r7, @lead
//
// The nest is affine when its straight instructions are linear (li, mov, iadd, isub, iaddi, ishli,
// imuli, dmem, dsetlen, daddr, dstep) and the map's scalar register is dead when a pass starts
// (nothing reads it before the next map loads it). Then the registers alone follow an affine map
// from one pass to the next (no linear instruction reads a DSD, and the map writes no register but
// the dead scalar), so if two passes change them by the same d, every later pass does too; the
// passes' count and the DSD steps, registers or set from them, are then fixed once two passes
// agree, so the map's own effect (each base += its step times the passes) adds a constant, and the
// whole state, registers and DSDs, moves by one d a pass (the argument of fmacs_loop.h's nest).
// MapNestExec works out two passes without their fmacs, checks that, and runs the passes' fmacs
// at once: each row's tile held in registers across the passes when every pass takes the same
// tiles (the loops swapped, each element's sums in the same order), or each pass's tile held
// across its map when the tile stays put.
#pragma once
#include "engine/fabric/isa.h"

#include <cstdint>
#include <vector>

namespace wl {

struct Program;

constexpr uint32_t kMaxMapNestStraight = 32;   // the lead and tail together (a GPT matmul's: 20)

struct MapNest {
    uint32_t map = 0, blt = 0, lead = 0;   // pcs: the map (its fmacs after it), the outer blt, the lead's first instruction
    uint32_t lead_cycles = 0, tail_cycles = 0;
    uint32_t last_cost = 0;                // the cycles of the instruction before the map (the lead's last, or the blt)
    bool scalar_set = false;               // the tail or lead writes the map's scalar register (after the map read it)
    // What a pass writes: registers reg[0, nreg) (the straight instructions' targets and the map's
    // scalar) and DSDs dsd[0, ndsd) (the straight instructions' and the fmacs operands).
    uint8_t reg[kMaxMapNestStraight + 1], dsd[8];   // 8: kDsdRegs (program.h)
    uint8_t nreg = 0, ndsd = 0;
};

struct MapNests {
    std::vector<uint32_t> at;              // per pc of p.code: 1 + the index of the nest whose map is there, else 0 (empty if none)
    std::vector<MapNest> nests;
    const MapNest* find(uint32_t pc) const { return at.empty() || !at[pc] ? nullptr : &nests[at[pc] - 1]; }
};

// The affine nests around the program's fmacs maps (only those: the others run a map at a time).
MapNests find_map_nests(const Program& p);

}  // namespace wl
