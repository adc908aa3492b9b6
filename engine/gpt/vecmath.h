// vecmath.h: exp and tanh over float arrays for the GPT's hot loops, 8 lanes
// at a time, with the same bits on every platform and SIMD width.
//
// Each lane is computed in double with only + - * / and exact bit operations
// (round-to-nearest via the 1.5*2^52 trick, 2^k built from bits), then rounded
// to float once: within 1 ulp of the true value. On x86-64 an AVX-512
// copy of the same code is picked at run time; in WASM the same vector code
// lowers to scalar operations. The lanes never interact, so width cannot
// change a result.
// Range: exp for x in [-700, 700] (outside: clamped, so exp(-inf) gives ~0,
// not 0); tanh for any finite x.
#pragma once

namespace wl::gpt {

void exp_array(float* out, const float* in, int n);    // out[i] = exp(in[i]); in-place allowed
void tanh_array(float* out, const float* in, int n);   // out[i] = tanh(in[i]); in-place allowed

}  // namespace wl::gpt
