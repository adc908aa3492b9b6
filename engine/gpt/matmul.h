// matmul.h: the linear layer, out = inp @ weight^T + bias, and its backward.
//
// Legend: N rows (B*T), C input channels, OC output channels.
// Every output element is one sequential fp32 sum over k = 0..K-1 starting
// from 0, then the bias (forward) or the old value (backward, +=) is added.
// Kernels vectorise across output columns, never across k, so the order is
// the same at any SIMD width (SSE, AVX2, AVX-512, scalar WASM) and any thread
// count: that is what makes native and WASM bits agree.
#pragma once

namespace wl::gpt {

// out (N,OC), inp (N,C), weight (OC,C), bias (OC) or null
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C, int OC);
// dinp (N,C) += dout @ weight; dweight (OC,C) += dout^T @ inp; dbias (OC) += column sums of dout (or null)
void matmul_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int N, int C, int OC);

// The one kernel behind both: Cm[i,j] = (accumulate ? Cm[i,j] : 0) + sum_k A(i,k) B[k,j] (+ bias[j]),
// A(i,k) = A[i*a_row + k*a_col], B row-major (K,N) with row stride ldb, Cm row stride ldc.
// Threads split the M rows.
void gemm(int M, int N, int K, const float* A, long a_row, long a_col, const float* B, long ldb, float* Cm,
          long ldc, bool accumulate, const float* bias);

// Which SIMD path gemm uses now ("avx512", "avx2", "generic"; see simd.h).
const char* gemm_isa();

}  // namespace wl::gpt
