// wl_math.h: WaferLab's own elementwise maths, bit-identical on every platform.
//
// The platform's libm (expf, tanhf, ...) differs between glibc and the WASM
// runtime in the last bits, which would break "same seed, same bits" between
// the native and the browser build. These functions use only IEEE-exact
// operations (+ - * /, sqrt, ldexp, frexp, floor), evaluated in double with no
// FMA contraction, so every platform rounds them the same way.
// Accuracy: within 1 ulp of the true float result over the whole range
// (checked against libm in tests/unit/wl_math_test.cpp).
#pragma once
#include <cmath>
#include <cstdint>

namespace wl::math {

// exp(x) in double for |r| <= ln2/2 after range reduction; error < 1e-15 relative.
inline double exp_d(double x) {
    if (x != x) return x;
    if (x > 709.7) return INFINITY;
    if (x < -745.2) return 0.0;
    constexpr double kLog2e = 1.4426950408889634;
    constexpr double kLn2Hi = 6.93147180369123816490e-01;   // high bits of ln 2 (exact product with k)
    constexpr double kLn2Lo = 1.90821492927058770002e-10;
    double k = std::floor(x * kLog2e + 0.5);
    double r = (x - k * kLn2Hi) - k * kLn2Lo;
    // Taylor series to r^13 / 13!: |r| <= 0.3466 leaves a remainder under 1e-17.
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
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
    return std::ldexp(p, int(k));
}

// exp(x) - 1 without cancellation near zero.
inline double expm1_d(double x) {
    if (std::fabs(x) >= 0.5) return exp_d(x) - 1.0;
    double p = 0.0, term = x;    // sum x^n / n!, n = 1..18: remainder < 1e-22
    for (int n = 1; n <= 18; ++n) {
        p += term;
        term = term * x / double(n + 1);
    }
    return p;
}

// natural log in double: x = m * 2^e, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s).
inline double log_d(double x) {
    if (x != x || x < 0) return NAN;
    if (x == 0) return -INFINITY;
    if (std::isinf(x)) return x;
    int e;
    double m = std::frexp(x, &e);            // m in [0.5, 1)
    if (m < 0.70710678118654752) { m *= 2.0; e -= 1; }
    double s = (m - 1.0) / (m + 1.0), s2 = s * s;   // |s| <= 0.1716
    double p = 0.0;
    for (int n = 21; n >= 1; n -= 2) p = p * s2 + 1.0 / double(n);
    constexpr double kLn2 = 0.69314718055994530942;
    return 2.0 * s * p + double(e) * kLn2;
}

inline float expf(float x) { return float(exp_d(double(x))); }
inline float logf(float x) { return float(log_d(double(x))); }

inline float tanhf(float x) {
    double a = std::fabs(double(x));
    if (a > 20.0) return x < 0 ? -1.0f : 1.0f;
    double em = expm1_d(2.0 * a);
    double t = em / (em + 2.0);
    return float(x < 0 ? -t : t);
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

// cos(x) for |x| <= 4 (the GPT's learning-rate schedule and Box-Muller): Taylor to x^32,
// remainder < 1e-15; only + - * /, so every platform agrees.
inline double cos_small_d(double x) {
    double x2 = x * x, p = 1.0;
    for (int n = 32; n >= 2; n -= 2) p = 1.0 - p * x2 / double(n * (n - 1));
    return p;
}

}  // namespace wl::math
