// cuda::lm_head_tf32_forward: the fp32 forward's LM head (3xTF32: one TF32 GEMM over K = 3C of rows
// [x_lo | x_hi | x_hi] against weights [w_hi | w_lo | w_hi], gpt_forward.hpp) as vbench's own Hopper kernel, the peer
// of the cuBLASLt GEMM that head_mm_ plans for it. Why own: at small width the head is a write of R x Vp fp32 logits
// (51.5 MB at B=4 T=64: 17.3 us as a memset on the H100) with little math, and cuBLASLt's GEMM took 35.7 us for it
// at C = 48 (bench/RESULTS.md, session 15), half of gpt_nano fp32's forward. This kernel is built around the write:
// persistent CTAs keep their 128 rows of x in shared memory, stream the weights through a ring, and write each
// 128 x 64 logit tile by TMA stores from shared memory while the next tile's wgmmas run. Design: ops/lm_head_tf32.cu.
// CudaBackend offers it as an option of the fp32 forward and keeps it only where the whole forward is faster.
#pragma once

#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// Whether lm_head_tf32_forward takes Y[M][N] = X[M][K] W[N][K]^T: M >= 1; N a multiple of 64; K a multiple of 4
/// (rows 16-byte aligned, as TMA needs) and at most 192 (the rows of x a CTA keeps in shared memory: C <= 64); and
/// whether this build and `device` run it (wgmma_gemm_available).
bool lm_head_tf32_takes(int M, int N, int K, int device);

/// Y[M][N] = X[M][K] W[N][K]^T in TF32 with fp32 accumulation and output, all row-major fp32 (the TF32 operands are
/// the fp32 values with their low 13 mantissa bits ignored, as cuBLASLt's TF32 GEMM reads them). Enqueued on
/// `stream` as a programmatic dependent of the work before it (it reads W before that work ends, X after); throws
/// Error(kInternal) for a shape lm_head_tf32_takes refuses.
void lm_head_tf32_forward(float* d_y, const float* d_x, const float* d_w, int M, int N, int K, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
