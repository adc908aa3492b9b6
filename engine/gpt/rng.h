// rng.h: the GPT reference's seeded random numbers (splitmix64), identical on
// every platform: integer mixing, then exact conversions; normals by
// Box-Muller on wl_math's log and cos (box_muller_lanes), one at a time or in lanes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "engine/core/vecmath.h"
#include "engine/core/wl_math.h"

namespace wl::gpt {

struct Rng {
    uint64_t state;
    explicit Rng(uint64_t seed = 0) : state(seed) {}

    uint64_t next_u64() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next_u64() >> 11) * (1.0 / 9007199254740992.0); }   // [0, 1)
    float uniform_f() { return float(next_u64() >> 40) * (1.0f / 16777216.0f); }          // [0, 1)
    uint64_t below(uint64_t n) { return n ? next_u64() % n : 0; }   // bias < n/2^64: negligible here
    double normal() {
        const double u1 = 1.0 - uniform();   // (0, 1]
        const double u2 = uniform();
        return wl::math::box_muller_lanes(u1, u2);
    }
    // out[i] = float(normal()) * scale for i < n: the same draws in the same order, the same
    // bits, Box-Muller a block at a time in lanes (normal_array: GPT-small's initial weights are
    // 124 M normals, each a chain of 17 dependent divisions).
    void normals(float* out, size_t n, float scale) {
        constexpr size_t kBlock = 256;
        double u1[kBlock], u2[kBlock];
        for (size_t i = 0; i < n; i += kBlock) {
            const size_t m = n - i < kBlock ? n - i : kBlock;
            for (size_t k = 0; k < m; ++k) u1[k] = 1.0 - uniform(), u2[k] = uniform();
            wl::math::normal_array(out + i, u1, u2, int(m), scale);
        }
    }
};

// A stream derived from (seed, a, b): batch b of step a, and so on, with no state to save.
inline Rng derive_rng(uint64_t seed, uint64_t a, uint64_t b = 0) {
    Rng r(seed ^ 0x5851F42D4C957F2Dull);
    r.state ^= Rng(a * 0x9E3779B97F4A7C15ull + 1).next_u64();
    r.state ^= Rng(b * 0xD1B54A32D192ED03ull + 2).next_u64();
    return r;
}

}  // namespace wl::gpt
