// fmacs_tile16.h: fast mode's hottest kernel, SUMMA's inner loop run whole: a tile of 16 floats
// that stays put, held in vector registers across `runs` fmacs, C += A s (fmacs_loop.h).
#pragma once
#include <cstddef>
#include <cstdint>

namespace wl {

// d += y s, `runs` times: y steps ystep bytes; s is the float with bits `sbits`, then the float at
// x (x stepping xstep) for the first `loads` of them. Returns the last scalar's bits. d and y do not
// overlap, and nothing read overlaps d. Each element's multiply and add are rounded apart, in run
// order, so the bits are the interpreter's; the vectors are the CPU's widest that keep them so.
uint32_t fmacs_tile16_runs(uint8_t* d, const uint8_t* y, ptrdiff_t ystep, const uint8_t* x, ptrdiff_t xstep, uint64_t runs,
                           uint64_t loads, uint32_t sbits);

}  // namespace wl
