// fmacs_tile.h: fast mode's hottest kernel, an fmacs loop or map run whole when its tile stays put:
// a tile of up to 64 floats, held in vector registers across the fmacs of a pass, C += A s
// (fmacs_loop.h: SUMMA's inner loop; core_exec.h's map_tile: the GPT's dW sums side by side, an
// attention query's scores); an affine nest's passes (one tile each) back to back. And an fmacs loop
// or map whose tile moves (the GPT's matmul rows and dx), a run at a time, in the same vectors.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wl {

// Whether a tile of n floats is held in registers (up to 64 floats: the GPT's time steps, and an
// attention query's scores, t + 1 of them): fmacs_tile_passes takes it.
constexpr uint32_t kMaxRegisterTile = 64;
constexpr bool register_tile(uint32_t n) { return n >= 1 && n <= kMaxRegisterTile; }

// `passes` passes of `runs` fmacs each on a tile of n floats (register_tile(n)). Pass q: the
// tile at d + q dpass += y s, y from y + q ypass stepping ystep bytes. Its scalars: with
// lead_load, the float at xq = x + q xpass, then those at xq + xstep, xq + 2 xstep ... for its
// first `loads` fmacs; without, the float with bits `sbits` (pass 0) or the last one of the pass
// before, then those at x, x + xstep ... for its first `loads` fmacs. No tile overlaps another,
// nor anything read.
struct TilePasses {
    uint8_t* d;
    const uint8_t* y;
    const uint8_t* x;
    ptrdiff_t dpass, ypass, xpass;   // from pass to pass
    ptrdiff_t ystep, xstep;          // from fmacs to fmacs
    uint64_t passes, runs, loads;
    bool lead_load;
    uint32_t n;                      // the tile's floats
};

// Returns the last scalar's bits. Each element's multiply and add are rounded apart, in fmacs
// order, so the bits are the interpreter's; the vectors are the CPU's widest that keep them so.
uint32_t fmacs_tile_passes(const TilePasses& p, uint32_t sbits);

// `runs` fmacs in place on a tile of n floats (a multiple of 4) that moves: run k, the tile at
// d + k dstep += y s, y at y + k ystep; its scalars the float with bits `sbits`, then those at x,
// x + xstep ... after each of the first `loads` fmacs. A tile that overlaps its y runs element by
// element, in order, as the interpreter's loop. Returns the last scalar's bits.
struct MovingTile {
    uint8_t* d;
    const uint8_t* y;
    const uint8_t* x;
    ptrdiff_t dstep, ystep, xstep;
    uint64_t runs, loads;
    uint32_t n;
};
uint32_t fmacs_moving_tile(const MovingTile& p, uint32_t sbits);

}  // namespace wl
