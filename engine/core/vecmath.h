// vecmath.h: exp, tanh and Box-Muller normals over float arrays, lanes of doubles at a time, with
// the same bits on every platform and SIMD width: the GPT reference's hot loops, its initial
// weights, and the PE's fexps and ftanhs.
//
// Each lane is wl_math's one definition (exp_lanes, tanh_lanes), the same the
// PE's fexp/ftanh run: so the reference and the mesh agree on every value.
// Computed in double, rounded to float once: within 1 ulp. Eight lanes; on
// x86-64 an AVX-512 copy of the same code, or an AVX2 one of four lanes (one
// register), is picked at run time; in WASM the eight lanes run as four of
// SIMD128's pairs. The lanes never interact, so width cannot change a result.
// Range: exp for x in [-700, 700] (outside: clamped, so exp(-inf) gives ~0,
// not 0); tanh for any finite x.
#pragma once

namespace wl::math {

void exp_array(float* out, const float* in, int n);    // out[i] = exp(in[i]); in-place allowed
void tanh_array(float* out, const float* in, int n);   // out[i] = tanh(in[i]); in-place allowed
// out[i] = float(box_muller(u1[i], u2[i])) * scale (wl_math.h's box_muller_lanes, the lanes of
// Rng::normal): u1 in (0, 1], u2 in [0, 1).
void normal_array(float* out, const double* u1, const double* u2, int n, float scale);

}  // namespace wl::math
