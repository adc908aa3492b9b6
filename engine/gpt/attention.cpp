// attention.cpp: see attention.h. Threads split the (b, h) pairs; each pair
// owns its slices of out/dinp, so every sum keeps one order. Keys and values
// of a pair are copied to (hs, T) so the dot products over i vectorise across
// t2 while each one still sums i = 0..hs-1 in order.
#include "engine/gpt/attention.h"

#include "engine/core/wl_math.h"
#include "engine/gpt/parallel.h"
#include "engine/core/simd.h"
#include "engine/core/vecmath.h"

#include <vector>

namespace wl::gpt {

namespace {
// kt (hs, T) from the k (or v) part of inp for one (b, h): kt[i*T + t] = inp[b, t, off + h*hs + i]
void gather_transposed(float* kt, const float* inp, int b, int h, int off, int T, int C3, int hs) {
    for (int t = 0; t < T; t++) {
        const float* k = inp + ((long)b * T + t) * C3 + off + h * hs;
        for (int i = 0; i < hs; i++) kt[(long)i * T + t] = k[i];
    }
}

// The bodies are compiled twice (plain and AVX-512) and picked by simd_level(); the
// loops vectorise only across independent elements, so both copies give the same bits.
#define WL_INLINE inline __attribute__((always_inline))

WL_INLINE void forward_pairs(int p0, int p1, float* out, float* att, const float* inp, int T, int C, int NH) {
    const int C3 = C * 3, hs = C / NH;
    const float scale = wl::math::rsqrtf(float(hs));
    {
        std::vector<float> kt((size_t)hs * T);   // (hs, T)
        for (int p = p0; p < p1; p++) {
            int b = p / NH, h = p % NH;
            gather_transposed(kt.data(), inp, b, h, C, T, C3, hs);
            for (int t = 0; t < T; t++) {
                const float* q = inp + ((long)b * T + t) * C3 + h * hs;
                float* a = att + (((long)b * NH + h) * T + t) * T;
                const int n = t + 1;
                // a[t2] = sum_i q[i] k[t2][i], i in order
                for (int t2 = 0; t2 < n; t2++) a[t2] = 0.0f;
                for (int i = 0; i < hs; i++) {
                    const float qi = q[i];
                    const float* kr = kt.data() + (long)i * T;
                    for (int t2 = 0; t2 < n; t2++) a[t2] += qi * kr[t2];
                }
                float maxval = -3.4e38f;
                for (int t2 = 0; t2 < n; t2++) {
                    a[t2] *= scale;
                    if (a[t2] > maxval) maxval = a[t2];
                }
                for (int t2 = 0; t2 < n; t2++) a[t2] -= maxval;
                math::exp_array(a, a, n);
                float sum = 0.0f;
                for (int t2 = 0; t2 < n; t2++) sum += a[t2];
                float inv = 1.0f / sum;   // sum >= 1: the max term is exp(0)
                for (int t2 = 0; t2 < n; t2++) a[t2] *= inv;
                for (int t2 = n; t2 < T; t2++) a[t2] = 0.0f;
                float* o = out + ((long)b * T + t) * C + h * hs;
                for (int i = 0; i < hs; i++) o[i] = 0.0f;
                for (int t2 = 0; t2 < n; t2++) {
                    const float* v = inp + ((long)b * T + t2) * C3 + h * hs + 2 * C;
                    const float w = a[t2];
                    for (int i = 0; i < hs; i++) o[i] += w * v[i];
                }
            }
        }
    }
}

WL_INLINE void backward_pairs(int p0, int p1, float* dinp, const float* dout, const float* inp, const float* att,
                              int T, int C, int NH) {
    const int C3 = C * 3, hs = C / NH;
    const float scale = wl::math::rsqrtf(float(hs));
    {
        std::vector<float> datt(T), dpre(T), vt((size_t)hs * T);
        for (int p = p0; p < p1; p++) {
            int b = p / NH, h = p % NH;
            gather_transposed(vt.data(), inp, b, h, 2 * C, T, C3, hs);
            for (int t = 0; t < T; t++) {
                const float* a = att + (((long)b * NH + h) * T + t) * T;
                const float* d = dout + ((long)b * T + t) * C + h * hs;
                const float* q = inp + ((long)b * T + t) * C3 + h * hs;
                float* dq = dinp + ((long)b * T + t) * C3 + h * hs;
                const int n = t + 1;
                // out = att v: datt[t2] = sum_i v[t2][i] d[i] (i in order), dv[t2] += att[t2] d
                for (int t2 = 0; t2 < n; t2++) datt[t2] = 0.0f;
                for (int i = 0; i < hs; i++) {
                    const float di = d[i];
                    const float* vr = vt.data() + (long)i * T;
                    for (int t2 = 0; t2 < n; t2++) datt[t2] += vr[t2] * di;
                }
                for (int t2 = 0; t2 < n; t2++) {
                    float* dv = dinp + ((long)b * T + t2) * C3 + h * hs + 2 * C;
                    const float w = a[t2];
                    for (int i = 0; i < hs; i++) dv[i] += w * d[i];
                }
                // softmax
                float dot = 0.0f;
                for (int t2 = 0; t2 < n; t2++) dot += a[t2] * datt[t2];
                for (int t2 = 0; t2 < n; t2++) dpre[t2] = a[t2] * (datt[t2] - dot);
                // scores = q k^T * scale: into dq and dk
                for (int t2 = 0; t2 < n; t2++) {
                    const float* k = inp + ((long)b * T + t2) * C3 + h * hs + C;
                    float* dk = dinp + ((long)b * T + t2) * C3 + h * hs + C;
                    const float g = dpre[t2] * scale;
                    for (int i = 0; i < hs; i++) {
                        dq[i] += k[i] * g;
                        dk[i] += q[i] * g;
                    }
                }
            }
        }
    }
}

void forward_generic(int p0, int p1, float* out, float* att, const float* inp, int T, int C, int NH) {
    forward_pairs(p0, p1, out, att, inp, T, C, NH);
}
void backward_generic(int p0, int p1, float* dinp, const float* dout, const float* inp, const float* att, int T,
                      int C, int NH) {
    backward_pairs(p0, p1, dinp, dout, inp, att, T, C, NH);
}
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
__attribute__((target("avx512f"))) void forward_avx512(int p0, int p1, float* out, float* att, const float* inp,
                                                       int T, int C, int NH) {
    forward_pairs(p0, p1, out, att, inp, T, C, NH);
}
__attribute__((target("avx512f"))) void backward_avx512(int p0, int p1, float* dinp, const float* dout,
                                                        const float* inp, const float* att, int T, int C, int NH) {
    backward_pairs(p0, p1, dinp, dout, inp, att, T, C, NH);
}
#endif

}  // namespace

void attention_forward(float* out, float* att, const float* inp, int B, int T, int C, int NH) {
    auto fn = forward_generic;
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    if (simd_level() == Simd::Avx512) fn = forward_avx512;
#endif
    parallel_for(B * NH, 1, [&](int p0, int p1) { fn(p0, p1, out, att, inp, T, C, NH); });
}

void attention_backward(float* dinp, const float* dout, const float* inp, const float* att, int B, int T, int C,
                        int NH) {
    auto fn = backward_generic;
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    if (simd_level() == Simd::Avx512) fn = backward_avx512;
#endif
    parallel_for(B * NH, 1, [&](int p0, int p1) { fn(p0, p1, dinp, dout, inp, att, T, C, NH); });
}

}  // namespace wl::gpt
