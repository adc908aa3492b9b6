// fmacs_tile.cpp: fmacs_tile_passes and fmacs_moving_tile (fmacs_tile.h) in the vectors of the
// SIMD level the CPU has (engine/core/simd.h): SSE2's four lanes (WebAssembly's SIMD128 too),
// AVX2's eight, or AVX-512's sixteen, the widest of which the tile is whole vectors (a register
// tile's last n % 4 floats in scalars). Each element is vector_ops.h's fmacs_elem, a multiply
// then an add, each rounded (no fused multiply-add: -ffp-contract=off keeps them apart), so every
// width gives the same bits. On the wide vectors it is written out: a wide vector passed or
// returned by value changes the ABI by target, and a broadcast through a pointer cost SUMMA's
// passes half as many instructions again.
#include "engine/fabric/fmacs_tile.h"

#include "engine/core/simd.h"
#include "engine/fabric/vector_ops.h"

#include <cstring>

namespace wl {

namespace {

typedef float F4 __attribute__((vector_size(16)));

// Passes q0 on, one after another, each its tile of N floats as N / W vectors F of W floats (W = 4:
// 16 of them at most, as many as SSE2 has registers; the compiler keeps what it can in them;
// W = 1: a tile's last floats).
template <class F, int W, int N>
__attribute__((always_inline)) inline uint32_t one_by_one(const TilePasses& p, uint64_t q0, uint32_t sbits) {
    static_assert(N % W == 0, "whole vectors");
    constexpr int kVecs = N / W, kBytes = 4 * W;
    uint8_t* d = p.d + int64_t(q0) * p.dpass;
    const uint8_t *y0 = p.y + int64_t(q0) * p.ypass, *xq = p.x + int64_t(q0) * p.xpass;
    for (uint64_t q = q0; q < p.passes; ++q, d += p.dpass, y0 += p.ypass, xq += p.xpass) {
        const uint8_t* y = y0;
        const uint8_t* x = xq;
        if (p.lead_load) std::memcpy(&sbits, x, 4), x += p.xstep;
        F c[kVecs];
        for (int v = 0; v < kVecs; ++v) std::memcpy(&c[v], d + v * kBytes, kBytes);
        for (uint64_t k = 0; k < p.runs; ++k, y += p.ystep) {
            float s;
            std::memcpy(&s, &sbits, 4);
            F sv;   // s in every lane (a broadcast: not F{} + s, as 0 + -0 is +0)
            if constexpr (W == 1) sv = s;   // a tile's last n % 4 floats, as scalars
            else if constexpr (W == 4) sv = F{s, s, s, s};
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

// G passes side by side from pass q0, each loading its own first scalar (lead_load), their tiles
// of N floats as N / 4 vectors of four. A pass of a tile of one vector is a chain of dependent
// adds, an add's latency a step: G chains interleave so that the CPU overlaps them. No pass's tile
// meets another's, so the order across passes changes no bit. Returns pass q0 + G - 1's last scalar.
template <int N, int G>
__attribute__((always_inline)) inline uint32_t side_by_side(const TilePasses& p, uint64_t q0) {
    constexpr int kVecs = N / 4, kBytes = 16;
    uint8_t* const d = p.d + int64_t(q0) * p.dpass;   // pass q0 + g's tile, y and next scalar: g pass steps on
    const uint8_t* y = p.y + int64_t(q0) * p.ypass;
    const uint8_t* x = p.x + int64_t(q0) * p.xpass;
    float s[G];
    F4 c[G][kVecs];
    for (int g = 0; g < G; ++g) {
        std::memcpy(&s[g], x + g * p.xpass, 4);
        for (int v = 0; v < kVecs; ++v) std::memcpy(&c[g][v], d + g * p.dpass + v * kBytes, kBytes);
    }
    x += p.xstep;
    for (uint64_t k = 0; k < p.runs; ++k, y += p.ystep) {
        for (int g = 0; g < G; ++g) {
            const F4 sv = F4{s[g], s[g], s[g], s[g]};   // s in every lane (a broadcast: not F{} + s, as 0 + -0 is +0)
            for (int v = 0; v < kVecs; ++v) {
                F4 yv;
                std::memcpy(&yv, y + g * p.ypass + v * kBytes, kBytes);
                c[g][v] = c[g][v] + yv * sv;   // vector_ops.h's fmacs_elem, four lanes at once
            }
        }
        if (k < p.loads) {
            for (int g = 0; g < G; ++g) std::memcpy(&s[g], x + g * p.xpass, 4);
            x += p.xstep;
        }
    }
    for (int g = 0; g < G; ++g)
        for (int v = 0; v < kVecs; ++v) std::memcpy(d + g * p.dpass + v * kBytes, &c[g][v], kBytes);
    uint32_t last;
    std::memcpy(&last, &s[G - 1], 4);
    return last;
}

// Every pass: where a tile is one or two vectors of four and each pass loads its own first
// scalar, eight chains side by side (side_by_side: an SSE2 tile of four floats, a GPT matmul's dW
// sums over KP = 4 inputs, is otherwise one add's latency a step); the rest one after another. A
// tile of wider vectors gains nothing so (measured: AVX2's tile of eight slows).
template <class F, int W, int N>
__attribute__((always_inline)) inline uint32_t tile_passes(const TilePasses& p, uint32_t sbits) {
    uint64_t q = 0;
    if constexpr (W == 4 && N <= 8) {
        constexpr int kGroup = 32 / N;
        const uint64_t apart = uint64_t(p.dpass < 0 ? -p.dpass : p.dpass);
        if (p.lead_load && apart >= uint64_t(4 * N))
            for (; q + kGroup <= p.passes; q += kGroup) sbits = side_by_side<N, kGroup>(p, q);
    }
    return one_by_one<F, W, N>(p, q, sbits);
}

// fmacs_moving_tile's runs in vectors F of W floats (p.n a multiple of W).
template <class F, int W>
__attribute__((always_inline)) inline uint32_t moving_runs(const MovingTile& p, uint32_t sbits) {
    constexpr int kBytes = 4 * W;
    const uint32_t n = p.n;
    uint8_t* d = p.d;
    const uint8_t *y = p.y, *x = p.x;
    for (uint64_t k = 0; k < p.runs; ++k, d += p.dstep, y += p.ystep) {
        float s;
        std::memcpy(&s, &sbits, 4);
        if (d + 4 * n <= y || y + 4 * n <= d) {
            F sv;   // a broadcast, as tile_passes's (written out: see the top)
            if constexpr (W == 4) sv = F{s, s, s, s};
            else if constexpr (W == 8) sv = F{s, s, s, s, s, s, s, s};
            else sv = F{s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s};
            for (uint32_t e = 0; e < 4 * n; e += kBytes) {
                F dv, yv;
                std::memcpy(&dv, d + e, kBytes);
                std::memcpy(&yv, y + e, kBytes);
                dv = dv + yv * sv;
                std::memcpy(d + e, &dv, kBytes);
            }
        } else {   // element by element, each reading what the ones before wrote
            for (uint32_t e = 0; e < 4 * n; e += 4) {
                float dv, yv;
                std::memcpy(&dv, d + e, 4);
                std::memcpy(&yv, y + e, 4);
                dv = fmacs_elem(dv, yv, s);
                std::memcpy(d + e, &dv, 4);
            }
        }
        if (k < p.loads) std::memcpy(&sbits, x, 4), x += p.xstep;
    }
    return sbits;
}

// The kernel for p.n, N the first multiple of W from which to look: one compare per size passed.
template <class F, int W, int N = W>
__attribute__((always_inline)) inline uint32_t sized(const TilePasses& p, uint32_t sbits) {
    if constexpr (N + W > kMaxRegisterTile) return tile_passes<F, W, N>(p, sbits);   // the largest
    else if (p.n == N) return tile_passes<F, W, N>(p, sbits);
    else return sized<F, W, N + W>(p, sbits);
}

// Four lanes: every tile.
// A tile of more than eight vectors goes in parts of eight, each through every pass from the same
// scalars: sixteen, with the broadcast scalar and a vector of y, spill SSE2's sixteen registers
// (and the fifteen or so V8 gives WebAssembly's SIMD128).
uint32_t passes4(const TilePasses& p, uint32_t sbits) {
    constexpr uint32_t kPart = 32;
    if (p.n <= kPart) return sized<F4, 4>(p, sbits);
    TilePasses a = p, b = p;
    a.n = kPart;
    b.n -= kPart, b.d += 4 * kPart, b.y += 4 * kPart;
    sized<F4, 4>(a, sbits);
    return sized<F4, 4>(b, sbits);
}
uint32_t moving4(const MovingTile& p, uint32_t sbits) { return moving_runs<F4, 4>(p, sbits); }

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
typedef float F8 __attribute__((vector_size(32)));
typedef float F16 __attribute__((vector_size(64)));

// The widest lanes of which the tile is whole vectors (AVX's encodings for four).
__attribute__((target("avx2"))) uint32_t passes8(const TilePasses& p, uint32_t sbits) {
    return p.n % 8 == 0 ? sized<F8, 8>(p, sbits) : sized<F4, 4>(p, sbits);
}
__attribute__((target("avx512f"))) uint32_t passes16(const TilePasses& p, uint32_t sbits) {
    return p.n % 16 == 0 ? sized<F16, 16>(p, sbits) : p.n % 8 == 0 ? sized<F8, 8>(p, sbits) : sized<F4, 4>(p, sbits);
}
__attribute__((target("avx2"))) uint32_t moving8(const MovingTile& p, uint32_t sbits) {
    return p.n % 8 == 0 ? moving_runs<F8, 8>(p, sbits) : moving_runs<F4, 4>(p, sbits);
}
__attribute__((target("avx512f"))) uint32_t moving16(const MovingTile& p, uint32_t sbits) {
    return p.n % 16 == 0 ? moving_runs<F16, 16>(p, sbits) : p.n % 8 == 0 ? moving_runs<F8, 8>(p, sbits) : moving_runs<F4, 4>(p, sbits);
}
#endif

}  // namespace

namespace {
uint32_t whole_passes(const TilePasses& p, uint32_t sbits) {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    switch (simd_level()) {
    case Simd::Avx512: return passes16(p, sbits);
    case Simd::Avx2: return passes8(p, sbits);
    default: break;
    }
#endif
    return passes4(p, sbits);
}
}  // namespace

// A tile's elements are independent: its whole vectors of four, then its last n % 4 floats, each
// their passes from the same scalars (read twice, each time the same).
uint32_t fmacs_tile_passes(const TilePasses& p, uint32_t sbits) {
    const uint32_t whole = p.n & ~3u, tail = p.n & 3u;
    uint32_t last = sbits;
    if (whole) {
        TilePasses w = p;
        w.n = whole;
        last = whole_passes(w, sbits);
    }
    if (tail) {
        TilePasses t = p;
        t.n = tail, t.d += 4 * whole, t.y += 4 * whole;
        last = tail == 1 ? tile_passes<float, 1, 1>(t, sbits) : tail == 2 ? tile_passes<float, 1, 2>(t, sbits) : tile_passes<float, 1, 3>(t, sbits);
    }
    return last;
}

uint32_t fmacs_moving_tile(const MovingTile& p, uint32_t sbits) {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    switch (simd_level()) {
    case Simd::Avx512: return moving16(p, sbits);
    case Simd::Avx2: return moving8(p, sbits);
    default: break;
    }
#endif
    return moving4(p, sbits);
}

}  // namespace wl
