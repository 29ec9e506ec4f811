// cuda::tile_gemm_forward: vbench's own bf16 tensor-core GEMM for the layers' products at small M (B*T rows), the
// peer of a bf16 cuda::Matmul with the same shape, epilogue and outputs. Why own: it is launched as a programmatic
// dependent (dependent_launch.hpp), so its CTAs start while the kernel before it runs and fetch their weight panels
// (which no kernel writes) before waiting for it; cuBLASLt's kernels cannot be launched that way. CudaBackend keeps
// it only where the whole forward is faster with it (see ops/tile_gemm.cu for the design and figures).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "tools/vbench/cuda/matmul.hpp"

namespace vtools::vbench::cuda {

/// Whether tile_gemm_forward takes `shape`: W is [K][N] (not weight_out_by_in), N and K (and K / k_splits) are
/// multiples of 8 (16-byte rows), k_splits 0..4.
bool tile_gemm_takes(const MatmulShape& shape);

/// Y = X W (+ bias, GELU) exactly as Matmul::run for bf16: X [M][K], W [K][N], bias [N] and Y [M][N] in bf16 with fp32
/// accumulation; with shape.k_splits = S >= 1, Y is S fp32 partial products [S][M][N] and there is no epilogue.
/// Enqueued on `stream` as a programmatic dependent; throws Error(kInternal) for a shape it does not take.
void tile_gemm_forward(const MatmulShape& shape, Epilogue epilogue, void* d_y, const __nv_bfloat16* d_x,
                       const __nv_bfloat16* d_w, const __nv_bfloat16* d_bias, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
