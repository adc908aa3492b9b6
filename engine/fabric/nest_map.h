// nest_map.h: an affine nest's pass map (fmacs_loop.h), worked out from one state of the PE's
// registers and DSDs by FmacsLoopExec::run_affine_passes, and kept per PE in fast mode: a nest entered
// again from the same state (SUMMA's, once a step on every PE) has the same map, so it is not
// worked out again.
#pragma once
#include "engine/fabric/dsd.h"
#include "engine/fabric/fmacs_loop.h"
#include "engine/fabric/program.h"

#include <cstdint>
#include <vector>

namespace wl {

// The words a pass of a nest writes (FmacsNest's reg and dsd; what it does not write stays put):
// its registers, then its DSDs, three words each.
struct NestPoint {
    uint32_t w[sizeof FmacsNest::reg + 3 * sizeof FmacsNest::dsd];
};
static_assert(sizeof(Dsd) == 12, "a DSD is three words");

// What a pass's inner loop starts from: the fmacs operands, the fmacs bases' steps, the counter
// and its bound, the ld's address register; and the outer blt's operands before it.
struct NestEntry {
    Dsd a, d, b;
    uint32_t sa, sd, sb, vi, vn, vp, outer_a, outer_b;
};

struct NestMap {
    // The state it was worked out from: the loop, and the registers and DSDs its pass reads or
    // writes (FmacsNest::state_regs, state_dsds), at their places in the frame and the DSD file.
    // The PE's constants and place stay until a load, which forgets the map (FastMode::forget_nest_map).
    const FmacsLoop* loop = nullptr;
    uint32_t regs[kRegs];
    Dsd dsd[kDsdRegs];
    // The map: whether two passes from that state are alike (else no pass runs at once from it),
    // and then what a pass adds to the words it writes, the two passes' entries and their inner
    // loops' trip count.
    bool alike = false;
    NestPoint d;
    NestEntry e0, e1;
    uint64_t trips = 0;
};

// One per PE, made on first use; a copy of a machine starts with none (its loops lie elsewhere).
struct NestMaps {
    std::vector<NestMap> pe;
    NestMaps() = default;
    NestMaps(const NestMaps&) {}
    NestMaps& operator=(const NestMaps&) { return pe.clear(), *this; }
};

}  // namespace wl
