// fmacs_tile16.cpp: fmacs_tile16_runs (fmacs_tile16.h), in SSE2's four lanes, or AVX2's eight
// where the CPU has them: the same IEEE multiplies and adds, so the same bits (AVX2 has no fused
// multiply-add, and -ffp-contract=off would keep them apart anyway).
#include "engine/fabric/fmacs_tile16.h"

#include <cstring>

namespace wl {

namespace {

// The tile as 16 / W vectors F of W floats.
template <class F, int W>
__attribute__((always_inline)) inline uint32_t tile16_runs(uint8_t* const d, const uint8_t* y, const ptrdiff_t ystep, const uint8_t* x,
                                                           const ptrdiff_t xstep, const uint64_t runs, const uint64_t loads, uint32_t sbits) {
    constexpr int kVecs = 16 / W, kBytes = 4 * W;
    F c[kVecs];
    for (int v = 0; v < kVecs; ++v) std::memcpy(&c[v], d + v * kBytes, kBytes);
    for (uint64_t k = 0; k < runs; ++k, y += ystep) {
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
        if (k < loads) std::memcpy(&sbits, x, 4), x += xstep;
    }
    for (int v = 0; v < kVecs; ++v) std::memcpy(d + v * kBytes, &c[v], kBytes);
    return sbits;
}

typedef float F4 __attribute__((vector_size(16)));

uint32_t runs4(uint8_t* d, const uint8_t* y, ptrdiff_t ystep, const uint8_t* x, ptrdiff_t xstep, uint64_t runs, uint64_t loads, uint32_t sbits) {
    return tile16_runs<F4, 4>(d, y, ystep, x, xstep, runs, loads, sbits);
}

#if defined(__x86_64__) && defined(__GNUC__)
typedef float F8 __attribute__((vector_size(32)));

__attribute__((target("avx2"))) uint32_t runs8(uint8_t* d, const uint8_t* y, ptrdiff_t ystep, const uint8_t* x, ptrdiff_t xstep, uint64_t runs,
                                               uint64_t loads, uint32_t sbits) {
    return tile16_runs<F8, 8>(d, y, ystep, x, xstep, runs, loads, sbits);
}
#endif

}  // namespace

uint32_t fmacs_tile16_runs(uint8_t* d, const uint8_t* y, ptrdiff_t ystep, const uint8_t* x, ptrdiff_t xstep, uint64_t runs, uint64_t loads,
                           uint32_t sbits) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return runs8(d, y, ystep, x, xstep, runs, loads, sbits);
#endif
    return runs4(d, y, ystep, x, xstep, runs, loads, sbits);
}

}  // namespace wl
