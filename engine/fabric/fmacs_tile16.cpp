// fmacs_tile16.cpp: fmacs_tile16_passes (fmacs_tile16.h), in SSE2's four lanes, or AVX2's eight
// where the CPU has them: the same IEEE multiplies and adds, so the same bits (AVX2 has no fused
// multiply-add, and -ffp-contract=off would keep them apart anyway).
#include "engine/fabric/fmacs_tile16.h"

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
            else sv = F{s, s, s, s, s, s, s, s};
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

#if defined(__x86_64__) && defined(__GNUC__)
typedef float F8 __attribute__((vector_size(32)));

__attribute__((target("avx2"))) uint32_t passes8(const Tile16Passes& p, uint32_t sbits) { return tile16_passes<F8, 8>(p, sbits); }
#endif

}  // namespace

uint32_t fmacs_tile16_passes(const Tile16Passes& p, uint32_t sbits) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return passes8(p, sbits);
#endif
    return passes4(p, sbits);
}

}  // namespace wl
