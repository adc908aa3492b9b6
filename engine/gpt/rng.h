// rng.h: the GPT reference's seeded random numbers (splitmix64), identical on
// every platform: integer mixing, then exact conversions; normals by
// Box-Muller on wl_math's log and cos.
#pragma once
#include <cstdint>

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
        double u1 = 1.0 - uniform();   // (0, 1]
        double u2 = uniform();
        constexpr double kPi = 3.14159265358979323846;
        double r = std::sqrt(-2.0 * wl::math::log_d(u1));
        return -r * wl::math::cos_small_d(2.0 * kPi * u2 - kPi);   // cos(2 pi u2) = -cos(2 pi u2 - pi)
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
