// fmacs_tile16.cpp: fmacs_tile16_passes (fmacs_tile16.h) in the vectors of the SIMD level the CPU
// has (engine/core/simd.h): SSE2's four lanes (WebAssembly's SIMD128 too), AVX2's eight, or one
// AVX-512 register for the whole tile. The same IEEE multiplies and adds in each, so the same bits
// (no fused multiply-add: -ffp-contract=off keeps them apart).
#include "engine/fabric/fmacs_tile16.h"

#include "engine/core/simd.h"

#include <cstring>

namespace wl {

namespace {

// The tile as 16 / W vectors F of W floats.
template <class F, int W>
__attribute__((always_inline)) inline uint32_t tile16_passes(const Tile16Passes& p, uint32_t sbits) {
    constexpr int kVecs = 16 / W, kBytes = 4 * W;
    uint8_t* d = p.d;
    const uint8_t *y0 = p.y, *xq = p.x;
    for (uint64_t q = 0; q < p.passes; ++q, d += p.dpass, y0 += p.ypass, xq += p.xpass) {
        const uint8_t* y = y0;
        const uint8_t* x = xq;
        if (p.lead_load) std::memcpy(&sbits, x, 4), x += p.xstep;
        F c[kVecs];
        for (int v = 0; v < kVecs; ++v) std::memcpy(&c[v], d + v * kBytes, kBytes);
        for (uint64_t k = 0; k < p.runs; ++k, y += p.ystep) {
            float s;
            std::memcpy(&s, &sbits, 4);
            F sv;   // s in every lane (a broadcast: not F{} + s, as 0 + -0 is +0)
            if constexpr (W == 4) sv = F{s, s, s, s};
            else if constexpr (W == 8) sv = F{s, s, s, s, s, s, s, s};
            else sv = F{s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s};
            for (int v = 0; v < kVecs; ++v) {
                F yv;
                std::memcpy(&yv, y + v * kBytes, kBytes);
                c[v] = c[v] + yv * sv;   // vector_ops.h's fmacs_elem, W lanes at once
            }
            if (k < p.loads) std::memcpy(&sbits, x, 4), x += p.xstep;
        }
        for (int v = 0; v < kVecs; ++v) std::memcpy(d + v * kBytes, &c[v], kBytes);
    }
    return sbits;
}

typedef float F4 __attribute__((vector_size(16)));

uint32_t passes4(const Tile16Passes& p, uint32_t sbits) { return tile16_passes<F4, 4>(p, sbits); }

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
typedef float F8 __attribute__((vector_size(32)));
typedef float F16 __attribute__((vector_size(64)));

__attribute__((target("avx2"))) uint32_t passes8(const Tile16Passes& p, uint32_t sbits) { return tile16_passes<F8, 8>(p, sbits); }
__attribute__((target("avx512f"))) uint32_t passes16(const Tile16Passes& p, uint32_t sbits) { return tile16_passes<F16, 16>(p, sbits); }
#endif

}  // namespace

uint32_t fmacs_tile16_passes(const Tile16Passes& p, uint32_t sbits) {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    switch (simd_level()) {
    case Simd::Avx512: return passes16(p, sbits);
    case Simd::Avx2: return passes8(p, sbits);
    default: break;
    }
#endif
    return passes4(p, sbits);
}

}  // namespace wl
