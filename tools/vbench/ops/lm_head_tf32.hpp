// cuda::lm_head_tf32_forward: the fp32 forward's LM head in 3xTF32 (gpt_forward.hpp) as vbench's own Hopper kernel,
// the peer of the cuBLASLt GEMM over K = 3C that head_mm_ plans for it. Why own: at small width the head is mostly
// the write of R x Vp fp32 logits (51.5 MB at B=4 T=64: 17.2 us as a memset on the H100), and cuBLASLt's GEMM reads
// the weights split three ways ([w_hi | w_lo | w_hi]); this kernel reads the plain weights and splits them itself,
// keeps its rows of x in shared memory and writes the logits by TMA stores while it computes the next tile:
// 27.7-28.2 us against 35.5-39.3 at C = 48-64, 39.3 against 52 at C = 128 (bench/RESULTS.md, sessions 19 and 23).
// Design: ops/lm_head_tf32.cu. ForwardSearch offers it as an option of the fp32 forward (GptForward::use_own_head) and
// keeps it only where the whole forward is faster.
#pragma once

#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// Whether lm_head_tf32_forward takes M rows, N logits per row and width C: M >= 1; N a multiple of 64; C a multiple
/// of 4 (rows 16-byte aligned, as TMA needs) and at most 128 (x_lo and x_hi of a CTA's 128 rows stay in shared
/// memory); and whether this build and `device` run it (wgmma_gemm_available).
bool lm_head_tf32_takes(int M, int N, int C, int device);

/// Y[M][N] = X W^T in 3xTF32: x_hi w_hi + x_hi w_lo + x_lo w_hi with fp32 accumulation and output, the small products
/// summed apart. X_split [M][3C] holds rows [x_lo | x_hi | x_hi] as layernorm_forward_split_tf32 writes them (the
/// third part is not read); W [N][C] is plain fp32, split into TF32 hi + lo inside the kernel (a third of the bytes
/// of the [w_hi | w_lo | w_hi] rows that cuBLASLt's GEMM reads). Enqueued on `stream` as a programmatic dependent of
/// the work before it (it reads W before that work ends, X after); throws Error(kInternal) for a shape
/// lm_head_tf32_takes refuses.
void lm_head_tf32_forward(float* d_y, const float* d_x_split, const float* d_w, int M, int N, int C,
                          cudaStream_t stream);

}  // namespace vtools::vbench::cuda
