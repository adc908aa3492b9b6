// vecmath.cpp: see vecmath.h.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include "engine/core/vecmath.h"

#include "engine/core/wl_math.h"
#include "engine/core/simd.h"

#include <cmath>
#include <cstring>

namespace wl::math {
namespace {
typedef double v8d __attribute__((vector_size(64)));
typedef long long v8l __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));

#define WL_INLINE inline __attribute__((always_inline))

// A vector of doubles D and its integer twin I as Lane<D> (wl_math.h). Always inlined: the AVX
// copies must not call out with vector arguments (the default-target ABI passes them differently).
template <class D, class I_>
struct VecLane {
    using I = I_;
    WL_INLINE static I bits(D d) { return (I)d; }
    WL_INLINE static D from(I i) { return (D)i; }
    WL_INLINE static D select(I m, D a, D b) { return (D)(((I)a & m) | ((I)b & ~m)); }
    WL_INLINE static D num(I i) { return __builtin_convertvector(i, D); }
    WL_INLINE static D sqrt(D d) {   // lane by lane: GCC's vectors have no sqrt (correctly rounded either way)
        for (int k = 0; k < int(sizeof(D) / sizeof(double)); ++k) d[k] = std::sqrt(d[k]);
        return d;
    }
};

}  // namespace
}  // namespace wl::math

// Lanes of the one exp/tanh definition (wl_math.h): eight, or four for AVX2.
template <>
struct wl::math::Lane<wl::math::v8d> : wl::math::VecLane<wl::math::v8d, wl::math::v8l> {};
// Four lanes, one AVX2 register: the AVX2 copy below.
template <>
struct wl::math::Lane<wl::math::v4d> : wl::math::VecLane<wl::math::v4d, wl::math::v4l> {};

namespace wl::math {
namespace {

// K lanes at a time: floats F (their integer twin FI) widened to doubles D.
template <int Op, int K, class F, class FI, class D>
WL_INLINE void apply(float* out, const float* in, int n) {
    for (int i = 0; i < n; i += K) {
        const int m = n - i < K ? n - i : K;
        float pad[K] = {};   // the tail runs through the same lanes
        const float* src = in + i;
        if (m < K) {
            std::memcpy(pad, src, sizeof(float) * m);
            src = pad;
        }
        F xf;
        std::memcpy(&xf, src, sizeof xf);
        D x = __builtin_convertvector(xf, D);
        D y = Op == 0 ? wl::math::exp_lanes(x) : wl::math::tanh_lanes(x);
        F yf = __builtin_convertvector(y, F);
        yf = (F)(((FI)xf & (xf != xf)) | ((FI)yf & ~(xf != xf)));   // a NaN comes back as it came (wl_math.h)
        std::memcpy(out + i, &yf, sizeof(float) * m);
    }
}
template <int Op>
WL_INLINE void apply8(float* out, const float* in, int n) { apply<Op, 8, v8f, v8i, v8d>(out, in, n); }
template <int Op>
WL_INLINE void apply4(float* out, const float* in, int n) { apply<Op, 4, v4f, v4i, v4d>(out, in, n); }

// J vectors of K normals at a time from the uniforms' lanes (box_muller_lanes), each rounded to
// float, then scaled. A normal is a chain of 17 dependent divisions: J chains side by side keep
// the divider busy (AVX2: four of four lanes, 1.4x one; the generic eight lanes are four SSE2
// or SIMD128 pairs already).
template <int K, class F, class D, int J>
WL_INLINE void normals(float* out, const double* u1, const double* u2, int n, float scale) {
    const auto used = [&](int at) { return n - at < 0 ? 0 : n - at < K ? n - at : K; };   // of a vector's lanes from at
    for (int i = 0; i < n; i += K * J) {
        D a[J], b[J];
        for (int j = 0; j < J; ++j) {
            a[j] = D{} + 1.0, b[j] = D{};   // unused lanes: log 1, cos -pi
            if (const int m = used(i + j * K))
                std::memcpy(&a[j], u1 + i + j * K, sizeof(double) * size_t(m)), std::memcpy(&b[j], u2 + i + j * K, sizeof(double) * size_t(m));
        }
        F z[J];
        for (int j = 0; j < J; ++j) z[j] = __builtin_convertvector(wl::math::box_muller_lanes(a[j], b[j]), F) * scale;
        for (int j = 0; j < J; ++j)
            if (const int m = used(i + j * K)) std::memcpy(out + i + j * K, &z[j], sizeof(float) * size_t(m));
    }
}
void normals_generic(float* o, const double* a, const double* b, int n, float s) { normals<8, v8f, v8d, 1>(o, a, b, n, s); }
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
__attribute__((target("avx512f"))) void normals_avx512(float* o, const double* a, const double* b, int n, float s) {
    normals<8, v8f, v8d, 2>(o, a, b, n, s);
}
__attribute__((target("avx2"))) void normals_avx2(float* o, const double* a, const double* b, int n, float s) { normals<4, v4f, v4d, 4>(o, a, b, n, s); }
#endif

using ArrayFn = void (*)(float*, const float*, int);
void exp_generic(float* o, const float* i, int n) { apply8<0>(o, i, n); }
void tanh_generic(float* o, const float* i, int n) { apply8<1>(o, i, n); }
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
__attribute__((target("avx512f"))) void exp_avx512(float* o, const float* i, int n) { apply8<0>(o, i, n); }
__attribute__((target("avx512f"))) void tanh_avx512(float* o, const float* i, int n) { apply8<1>(o, i, n); }
// AVX2 takes four lanes, one register (GCC 12 hits an internal error splitting the 512-bit types).
__attribute__((target("avx2"))) void exp_avx2(float* o, const float* i, int n) { apply4<0>(o, i, n); }
__attribute__((target("avx2"))) void tanh_avx2(float* o, const float* i, int n) { apply4<1>(o, i, n); }
#endif

struct Fns {
    ArrayFn exp, tanh;
};
Fns fns() {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    if (simd_level() == Simd::Avx512) return {exp_avx512, tanh_avx512};
    if (simd_level() == Simd::Avx2) return {exp_avx2, tanh_avx2};
#endif
    return {exp_generic, tanh_generic};
}

}  // namespace

void exp_array(float* out, const float* in, int n) { fns().exp(out, in, n); }
void tanh_array(float* out, const float* in, int n) { fns().tanh(out, in, n); }

void normal_array(float* out, const double* u1, const double* u2, int n, float scale) {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    if (simd_level() == Simd::Avx512) return normals_avx512(out, u1, u2, n, scale);
    if (simd_level() == Simd::Avx2) return normals_avx2(out, u1, u2, n, scale);
#endif
    normals_generic(out, u1, u2, n, scale);
}

}  // namespace wl::math
