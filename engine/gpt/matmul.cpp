// matmul.cpp: see matmul.h. A register-blocked outer-product kernel (MR rows x
// NV vectors of columns), instantiated for the host's widest SIMD at run time.
// No FMA: -ffp-contract=off keeps a*b+c as two rounded operations everywhere.
#include "engine/gpt/matmul.h"

#include "engine/gpt/parallel.h"
#include "engine/core/simd.h"
#include "engine/core/thread_local.h"

#include <cstring>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace wl::gpt {

namespace {

typedef float v8 __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));

template <class V>
inline __attribute__((always_inline)) V loadv(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
}
template <class V>
inline __attribute__((always_inline)) void storev(float* p, V v) {
    std::memcpy(p, &v, sizeof(V));
}

// One MR x (NV*W) tile: acc starts at 0 and adds A(i,k)*B[k,j] for k in order.
template <class V, int W, int MR, int NV>
inline __attribute__((always_inline)) void tile(int K, const float* A, long a_row, long a_col, const float* B,
                                                long ldb, float* Cm, long ldc, bool accumulate, const float* bias) {
    V acc[MR][NV];
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NV; v++) acc[r][v] = V{};
    for (int k = 0; k < K; k++) {
        V b[NV];
        for (int v = 0; v < NV; v++) b[v] = loadv<V>(B + (long)k * ldb + v * W);
        const float* a = A + (long)k * a_col;
        for (int r = 0; r < MR; r++) {
            float ar = a[r * a_row];
            for (int v = 0; v < NV; v++) acc[r][v] += ar * b[v];
        }
    }
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NV; v++) {
            float* c = Cm + r * ldc + v * W;
            if (accumulate) storev(c, loadv<V>(c) + acc[r][v]);
            else if (bias) storev(c, acc[r][v] + loadv<V>(bias + v * W));
            else storev(c, acc[r][v]);
        }
}

// Leftover columns: the same sequential sum per element, one at a time.
inline void edge(int M, int j0, int j1, int K, const float* A, long a_row, long a_col, const float* B, long ldb,
                 float* Cm, long ldc, bool accumulate, const float* bias) {
    for (int i = 0; i < M; i++)
        for (int j = j0; j < j1; j++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) acc += A[i * a_row + (long)k * a_col] * B[(long)k * ldb + j];
            float* c = Cm + i * ldc + j;
            if (accumulate) *c = *c + acc;
            else if (bias) *c = acc + bias[j];
            else *c = acc;
        }
}

template <class V, int W, int MR, int NV>
inline __attribute__((always_inline)) void rows(int M, int N, int K, const float* A, long a_row, long a_col,
                                                const float* B, long ldb, float* Cm, long ldc, bool accumulate,
                                                const float* bias) {
    constexpr int NB = W * NV;
    int nfull = N / NB * NB;
    // Column panels outer so one K x NB panel of B stays in cache across row tiles.
    for (int j = 0; j < nfull; j += NB) {
        const float* bj = bias ? bias + j : nullptr;
        int i = 0;
        for (; i + MR <= M; i += MR)
            tile<V, W, MR, NV>(K, A + i * a_row, a_row, a_col, B + j, ldb, Cm + i * ldc + j, ldc, accumulate, bj);
        for (; i < M; i++)
            tile<V, W, 1, NV>(K, A + i * a_row, a_row, a_col, B + j, ldb, Cm + i * ldc + j, ldc, accumulate, bj);
    }
    // Narrower vectors for the remainder, then scalars.
    int j = nfull;
    for (; j + W <= N; j += W) {
        const float* bj = bias ? bias + j : nullptr;
        for (int i = 0; i < M; i++)
            tile<V, W, 1, 1>(K, A + i * a_row, a_row, a_col, B + j, ldb, Cm + i * ldc + j, ldc, accumulate, bj);
    }
    if (j < N) edge(M, j, N, K, A, a_row, a_col, B, ldb, Cm, ldc, accumulate, bias);
}

using RowsFn = void (*)(int, int, int, const float*, long, long, const float*, long, float*, long, bool, const float*);

void rows_generic(int M, int N, int K, const float* A, long ar, long ac, const float* B, long ldb, float* Cm,
                  long ldc, bool acc, const float* bias) {
    rows<v8, 8, 6, 1>(M, N, K, A, ar, ac, B, ldb, Cm, ldc, acc, bias);
}

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
__attribute__((target("avx2"))) void rows_avx2(int M, int N, int K, const float* A, long ar, long ac, const float* B,
                                               long ldb, float* Cm, long ldc, bool acc, const float* bias) {
    rows<v8, 8, 6, 2>(M, N, K, A, ar, ac, B, ldb, Cm, ldc, acc, bias);
}
__attribute__((target("avx512f"))) void rows_avx512(int M, int N, int K, const float* A, long ar, long ac,
                                                    const float* B, long ldb, float* Cm, long ldc, bool acc,
                                                    const float* bias) {
    rows<v16, 16, 8, 2>(M, N, K, A, ar, ac, B, ldb, Cm, ldc, acc, bias);
}
#endif

struct Isa {
    RowsFn fn;
    int mr;
};

Isa isa() {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    switch (simd_level()) {
    case Simd::Avx512: return {rows_avx512, 8};
    case Simd::Avx2: return {rows_avx2, 6};
    default: break;
    }
#endif
    return {rows_generic, 6};
}

}  // namespace

const char* gemm_isa() { return simd_name(simd_level()); }

void gemm(int M, int N, int K, const float* A, long a_row, long a_col, const float* B, long ldb, float* Cm, long ldc,
          bool accumulate, const float* bias) {
    const Isa s = isa();
    // Enough rows per thread that each has whole tiles; below that, one thread.
    int grain = M * (long)N * K < 32768 ? M : s.mr * 4;
    parallel_for(M, grain, [&](int i0, int i1) {
        s.fn(i1 - i0, N, K, A + i0 * a_row, a_row, a_col, B, ldb, Cm + i0 * ldc, ldc, accumulate, bias);
    });
}

static WL_THREAD_LOCAL std::vector<float> t_scratch;

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC) {
    // Two ways to get a B operand contiguous in j; pick the cheaper transpose.
    // Both give the same bits: the per-element sum order is identical.
    if ((long)OC * C <= (long)N * (C + OC)) {
        t_scratch.resize((size_t)OC * C);
        float* wt = t_scratch.data();   // (C,OC)
        for (int o = 0; o < OC; o++)
            for (int c = 0; c < C; c++) wt[(long)c * OC + o] = weight[(long)o * C + c];
        gemm(N, OC, C, inp, C, 1, wt, OC, out, OC, false, bias);
    } else {
        // out^T (OC,N) = weight (OC,C) @ inp^T (C,N); bias added per row after.
        t_scratch.resize((size_t)N * C + (size_t)N * OC);
        float* it = t_scratch.data();            // (C,N)
        float* ot = it + (size_t)N * C;          // (OC,N)
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++) it[(long)c * N + n] = inp[(long)n * C + c];
        gemm(OC, N, C, weight, C, 1, it, N, ot, N, false, nullptr);
        for (int n = 0; n < N; n++)
            for (int o = 0; o < OC; o++) {
                float v = ot[(long)o * N + n];
                out[(long)n * OC + o] = bias ? v + bias[o] : v;
            }
    }
}

void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int C, int OC) {
    // dinp (N,C) += dout (N,OC) @ weight (OC,C)
    if (dinp) gemm(N, C, OC, dout, OC, 1, weight, C, dinp, C, true, nullptr);
    // dweight (OC,C) += dout^T (OC,N) @ inp (N,C)
    gemm(OC, C, N, dout, 1, OC, inp, C, dweight, C, true, nullptr);
    if (dbias) {
        parallel_for(OC, 64, [&](int o0, int o1) {
            for (int n = 0; n < N; n++) {
                const float* d = dout + (long)n * OC;
                for (int o = o0; o < o1; o++) dbias[o] += d[o];
            }
        });
    }
}

}  // namespace wl::gpt
