// vecmath.cpp: see vecmath.h.
#include "engine/gpt/vecmath.h"

#include "engine/gpt/simd.h"

#include <cstring>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace wl::gpt {

namespace {

typedef double v8d __attribute__((vector_size(64)));
typedef long long v8l __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));

#define WL_INLINE inline __attribute__((always_inline))

WL_INLINE v8d splat(double x) { return v8d{x, x, x, x, x, x, x, x}; }
WL_INLINE v8d select(v8l mask, v8d a, v8d b) { return (v8d)(((v8l)a & mask) | ((v8l)b & ~mask)); }

// exp(x) for x in [-700, 700]: x = k ln2 + r, |r| <= ln2/2, Taylor to r^11 (error < 3e-14 relative).
WL_INLINE v8d exp_v(v8d x) {
    x = select(x < splat(-700.0), splat(-700.0), x);
    x = select(x > splat(700.0), splat(700.0), x);
    const v8d magic = splat(6755399441055744.0);   // 1.5 * 2^52: adding it rounds to an integer
    v8d kr = x * splat(1.4426950408889634) + magic;
    v8d k = kr - magic;
    v8l ki = (v8l)kr - (v8l)magic;
    v8d r = (x - k * splat(6.93147180369123816490e-01)) - k * splat(1.90821492927058770002e-10);
    v8d p = splat(1.0 / 39916800.0);
    p = p * r + splat(1.0 / 3628800.0);
    p = p * r + splat(1.0 / 362880.0);
    p = p * r + splat(1.0 / 40320.0);
    p = p * r + splat(1.0 / 5040.0);
    p = p * r + splat(1.0 / 720.0);
    p = p * r + splat(1.0 / 120.0);
    p = p * r + splat(1.0 / 24.0);
    p = p * r + splat(1.0 / 6.0);
    p = p * r + splat(0.5);
    p = p * r + splat(1.0);
    p = p * r + splat(1.0);
    v8l e = (ki + 1023) << 52;
    return p * (v8d)e;
}

// tanh(x) = sign(x) (1 - 2 / (e^{2|x|} + 1)); an odd series below 1/16 avoids cancellation.
WL_INLINE v8d tanh_v(v8d x) {
    v8l sign = (v8l)x & (v8l)splat(-0.0);
    v8d a = (v8d)((v8l)x & ~(v8l)splat(-0.0));
    a = select(a > splat(20.0), splat(20.0), a);   // tanh(20) rounds to 1 in float
    v8d big = splat(1.0) - splat(2.0) / (exp_v(splat(2.0) * a) + splat(1.0));
    v8d a2 = a * a;   // series to x^11: remainder < 2e-15 relative for |x| < 1/16
    v8d small = a * (splat(1.0) +
                     a2 * (splat(-1.0 / 3) +
                           a2 * (splat(2.0 / 15) +
                                 a2 * (splat(-17.0 / 315) + a2 * (splat(62.0 / 2835) + a2 * splat(-1382.0 / 155925))))));
    v8d t = select(a < splat(0.0625), small, big);
    return (v8d)((v8l)t | sign);
}

template <int Op>
WL_INLINE void apply(float* out, const float* in, int n) {
    for (int i = 0; i < n; i += 8) {
        const int m = n - i < 8 ? n - i : 8;
        float pad[8] = {0, 0, 0, 0, 0, 0, 0, 0};   // the tail runs through the same lanes
        const float* src = in + i;
        if (m < 8) {
            std::memcpy(pad, src, sizeof(float) * m);
            src = pad;
        }
        v8f xf;
        std::memcpy(&xf, src, sizeof xf);
        v8d x = __builtin_convertvector(xf, v8d);
        v8d y = Op == 0 ? exp_v(x) : tanh_v(x);
        v8f yf = __builtin_convertvector(y, v8f);
        std::memcpy(out + i, &yf, sizeof(float) * m);
    }
}

using ArrayFn = void (*)(float*, const float*, int);
void exp_generic(float* o, const float* i, int n) { apply<0>(o, i, n); }
void tanh_generic(float* o, const float* i, int n) { apply<1>(o, i, n); }
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
__attribute__((target("avx512f"))) void exp_avx512(float* o, const float* i, int n) { apply<0>(o, i, n); }
__attribute__((target("avx512f"))) void tanh_avx512(float* o, const float* i, int n) { apply<1>(o, i, n); }
// No AVX2 copy: GCC 12 hits an internal error splitting these 512-bit types for AVX2.
#endif

struct Fns {
    ArrayFn exp, tanh;
};
Fns fns() {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    if (simd_level() == Simd::Avx512) return {exp_avx512, tanh_avx512};
#endif
    return {exp_generic, tanh_generic};
}

}  // namespace

void exp_array(float* out, const float* in, int n) { fns().exp(out, in, n); }
void tanh_array(float* out, const float* in, int n) { fns().tanh(out, in, n); }

}  // namespace wl::gpt
