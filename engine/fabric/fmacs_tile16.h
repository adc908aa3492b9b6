// fmacs_tile16.h: fast mode's hottest kernel, SUMMA's inner loop run whole: a tile of 16 floats
// that stays put, held in vector registers across the fmacs of a pass, C += A s (fmacs_loop.h);
// an affine nest's passes (one tile each) back to back.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wl {

// `passes` passes of `runs` fmacs each. Pass q: the tile at d + q dpass += y s, y from y + q ypass
// stepping ystep bytes. Its scalars: with lead_load, the float at xq = x + q xpass, then those at
// xq + xstep, xq + 2 xstep ... for its first `loads` fmacs; without, the float with bits `sbits`
// (pass 0) or the last one of the pass before, then those at x, x + xstep ... for its first
// `loads` fmacs. No tile overlaps another, nor anything read.
struct Tile16Passes {
    uint8_t* d;
    const uint8_t* y;
    const uint8_t* x;
    ptrdiff_t dpass, ypass, xpass;   // from pass to pass
    ptrdiff_t ystep, xstep;          // from fmacs to fmacs
    uint64_t passes, runs, loads;
    bool lead_load;
};

// Returns the last scalar's bits. Each element's multiply and add are rounded apart, in fmacs
// order, so the bits are the interpreter's; the vectors are the CPU's widest that keep them so.
uint32_t fmacs_tile16_passes(const Tile16Passes& p, uint32_t sbits);

}  // namespace wl
