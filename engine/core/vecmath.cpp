// vecmath.cpp: see vecmath.h.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include "engine/core/vecmath.h"

#include "engine/core/wl_math.h"
#include "engine/core/simd.h"

#include <cstring>

namespace wl::math {
namespace {
typedef double v8d __attribute__((vector_size(64)));
typedef long long v8l __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));

#define WL_INLINE inline __attribute__((always_inline))

}  // namespace
}  // namespace wl::math

// Eight lanes of the one exp/tanh definition (wl_math.h). Always inlined: the AVX-512 copy
// must not call out with 512-bit arguments (the default-target ABI passes them differently).
template <>
struct wl::math::Lane<wl::math::v8d> {
    using I = wl::math::v8l;
    WL_INLINE static I bits(wl::math::v8d d) { return (I)d; }
    WL_INLINE static wl::math::v8d from(I i) { return (wl::math::v8d)i; }
    WL_INLINE static wl::math::v8d select(I m, wl::math::v8d a, wl::math::v8d b) { return (wl::math::v8d)(((I)a & m) | ((I)b & ~m)); }
};

namespace wl::math {
namespace {

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
        v8d y = Op == 0 ? wl::math::exp_lanes(x) : wl::math::tanh_lanes(x);
        v8f yf = __builtin_convertvector(y, v8f);
        yf = (v8f)(((v8i)xf & (xf != xf)) | ((v8i)yf & ~(xf != xf)));   // a NaN comes back as it came (wl_math.h)
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

}  // namespace wl::math
