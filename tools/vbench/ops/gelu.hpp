// The launcher of ops/gelu.cu, the cuda:: peer of cpu::gelu_forward (gelu.cpp) with the GEMM's bias. A is float
// (fp32, tf32) or __nv_bfloat16 (bf16). It enqueues on `stream` (graph-capture safe: no sync, no allocation) and
// throws vtools::Error on a bad launch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// x[r][n] = gelu_tanh(x[r][n] + bias[n]) (bias optional, gelu optional): the GEMM epilogue for shapes where
/// cuBLASLt offers no fused one.
template <typename A>
void bias_gelu_forward(A* d_x, const A* d_bias, bool gelu, int rows, int N, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
