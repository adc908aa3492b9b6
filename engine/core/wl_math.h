// wl_math.h: WaferLab's own elementwise maths, bit-identical on every platform.
//
// The platform's libm (expf, tanhf, ...) differs between glibc and the WASM
// runtime in the last bits, which would break "same seed, same bits" between
// the native and the browser build. These functions use only IEEE-exact
// operations (+ - * /, sqrt, frexp, exact bit operations), evaluated in double with no
// FMA contraction, so every platform rounds them the same way.
// Accuracy: within 1 ulp of the true float result over the whole range
// (checked against libm in tests/unit/wl_math_test.cpp; logf over every positive
// float: 1 ulp at 2 of them, the rest equal to libm's double log rounded to float).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace wl::math {

// exp and tanh are written once, over a lane type D: double for one value
// (the PE's fexp/ftanh), or a vector of doubles for the GPT's arrays
// (engine/core/vecmath.cpp). Lanes never interact, so a value gets the same
// bits either way: the mesh and the reference share exp and tanh, and differ
// only where their order of summation does. Lane<D> gives D's integer twin,
// bit casts and a per-lane select.
template <class D>
struct Lane;
template <>
struct Lane<double> {
    using I = int64_t;
    static I bits(double d) {
        I i;
        std::memcpy(&i, &d, sizeof i);
        return i;
    }
    static double from(I i) {
        double d;
        std::memcpy(&d, &i, sizeof d);
        return d;
    }
    static double select(bool m, double a, double b) { return m ? a : b; }
    static double num(I i) { return double(i); }
    static double sqrt(double d) { return std::sqrt(d); }
};

// exp(x) for x clamped to [-700, 700]: x = k ln2 + r, |r| <= ln2/2, Taylor to
// r^11 (error < 3e-14 relative), 2^k built from bits; the 1.5*2^52 trick rounds k.
template <class D>
inline __attribute__((always_inline)) D exp_lanes(D x) {
    using L = Lane<D>;
    x = L::select(x < -700.0, D{} - 700.0, x);
    x = L::select(x > 700.0, D{} + 700.0, x);
    const double magic = 6755399441055744.0;   // 1.5 * 2^52: adding it rounds to an integer
    D kr = x * 1.4426950408889634 + magic;
    D k = kr - magic;
    typename L::I ki = L::bits(kr) - L::bits(D{} + magic);
    D r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
    D p = D{} + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    return p * L::from((ki + 1023) << 52);
}

// tanh(x) = sign(x) (1 - 2 / (e^{2|x|} + 1)); an odd series below 1/16 avoids cancellation.
template <class D>
inline __attribute__((always_inline)) D tanh_lanes(D x) {
    using L = Lane<D>;
    const typename L::I sign_bit = L::bits(-D{});   // -0.0: only the sign bit
    typename L::I sign = L::bits(x) & sign_bit;
    D a = L::from(L::bits(x) & ~sign_bit);
    a = L::select(a > 20.0, D{} + 20.0, a);   // tanh(20) rounds to 1 in float
    D big = 1.0 - 2.0 / (exp_lanes(2.0 * a) + 1.0);
    D a2 = a * a;   // series to x^11: remainder < 2e-15 relative for |x| < 1/16
    D small = a * (1.0 + a2 * (-1.0 / 3 + a2 * (2.0 / 15 + a2 * (-17.0 / 315 + a2 * (62.0 / 2835 + a2 * (-1382.0 / 155925))))));
    D t = L::select(a < 0.0625, small, big);
    return L::from(L::bits(t) | sign);
}

// log(m 2^e) for m in [0.5, 1) (frexp's): m in [sqrt(1/2), sqrt(2)) after a doubling, log m =
// 2 atanh(s). One definition for log_d and Box-Muller's lanes.
template <class D>
inline __attribute__((always_inline)) D log_frexp_lanes(D m0, D e0) {
    using L = Lane<D>;
    constexpr double kLow = 0.70710678118654752;
    const D m = L::select(m0 < kLow, m0 * 2.0, m0);
    const D e = L::select(m0 < kLow, e0 - 1.0, e0);
    const D s = (m - 1.0) / (m + 1.0), s2 = s * s;
    D p = D{};
    for (int n = 21; n >= 1; n -= 2) p = p * s2 + 1.0 / double(n);
    constexpr double kLn2 = 0.69314718055994530942;
    return 2.0 * s * p + e * kLn2;
}

// natural log in double, any x.
inline double log_d(double x) {
    if (x != x || x < 0) return NAN;
    if (x == 0) return -INFINITY;
    if (std::isinf(x)) return x;
    int e;
    const double m = std::frexp(x, &e);   // m in [0.5, 1)
    return log_frexp_lanes(m, double(e));
}

// cos(x) for |x| <= 4 (the GPT's learning-rate schedule and Box-Muller): Taylor to x^32,
// remainder < 1e-15; only + - * /, so every platform agrees.
template <class D>
inline __attribute__((always_inline)) D cos_small_lanes(D x) {
    const D x2 = x * x;
    D p = D{} + 1.0;
    for (int n = 32; n >= 2; n -= 2) p = 1.0 - p * x2 / double(n * (n - 1));
    return p;
}
inline double cos_small_d(double x) { return cos_small_lanes(x); }

// A standard normal from u1 in (0, 1] and u2 in [0, 1), Box-Muller: -sqrt(-2 log u1) cos(2 pi u2 - pi)
// (= sqrt(-2 log u1) cos(2 pi u2)). u1 >= 2^-53 is a normal double, so frexp's m and e come
// from its bits, in lanes as in one double (Rng::normal, and normal_array's lanes).
template <class D>
inline __attribute__((always_inline)) D box_muller_lanes(D u1, D u2) {
    using L = Lane<D>;
    const typename L::I b = L::bits(u1);
    const D m = L::from((b & 0x000FFFFFFFFFFFFFll) | 0x3FE0000000000000ll);
    const D e = L::num(((b >> 52) & 0x7FF) - 1022);
    constexpr double kPi = 3.14159265358979323846;
    const D r = L::sqrt(-2.0 * log_frexp_lanes(m, e));
    return -r * cos_small_lanes(2.0 * kPi * u2 - kPi);
}

// A NaN comes back as it came: WebAssembly's float<->double conversions and arithmetic may
// change a NaN's sign, and a result's bits must be the same on every platform.
inline float expf(float x) { return x != x ? x : float(exp_lanes(double(x))); }   // exp(-inf) gives 0 (clamped: ~1e-304)
inline float tanhf(float x) { return x != x ? x : float(tanh_lanes(double(x))); }
// log: a NaN comes back as it came, a negative gives the one positive quiet NaN (a float
// constant, never a converted double NaN), log(+-0) = -inf, log(inf) = inf; denormals are
// normal numbers in double, so frexp takes them whole.
inline float logf(float x) {
    if (x != x) return x;
    if (x < 0) return std::numeric_limits<float>::quiet_NaN();
    return float(log_d(double(x)));
}

// 1/sqrt(x): sqrt and division are correctly rounded by IEEE 754 everywhere.
inline float rsqrtf(float x) { return float(1.0 / std::sqrt(double(x))); }

// b^n for integer n >= 0 by squaring (AdamW bias correction).
inline double powi_d(double b, int64_t n) {
    double r = 1.0;
    while (n > 0) {
        if (n & 1) r *= b;
        b *= b;
        n >>= 1;
    }
    return r;
}

}  // namespace wl::math
