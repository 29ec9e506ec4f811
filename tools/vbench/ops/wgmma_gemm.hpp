// cuda::wgmma_gemm_forward: vbench's own bf16 GEMM on Hopper's wgmma and TMA for the layers' products at small M
// (B*T rows), the peer of a bf16 cuda::Matmul with the same shape, epilogue and outputs. Why own: the previous own
// GEMMs (mma.sync, sessions 3 and 7) lost to cuBLASLt's nvjet kernels, which use wgmma, TMA and clusters that
// multicast shared tiles; this one does the same, and it can take what cuBLASLt cannot (a programmatic dependent
// launch that fetches weights before the kernel before it ends; a residual + layer-norm epilogue). ForwardSearch times
// the forward with it beside the cuBLASLt one, checks its logits against the cuBLASLt forward's and keeps it only
// where it is faster. Design and figures: ops/wgmma_gemm.cu and bench/wgmma_gemm_bench.cpp.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <string>

#include "tools/vbench/cuda/matmul.hpp"

namespace vtools::vbench::cuda {

/// A CTA's tile and its cluster: a CTA computes 64 rows x bn columns (one consumer warpgroup, wgmma m64nBNk16);
/// the cluster_x CTAs of a cluster row (neighbours along N) share their X tiles, the cluster_y CTAs of a cluster
/// column (neighbours along M) their W tiles, each copying a slice into all of them (TMA multicast).
struct WgmmaTiling {
  int bn = 128;         ///< 64 or 128
  int cluster_x = 1;    ///< 1 or 2
  int cluster_y = 1;    ///< 1, 2 or 4

  // Spelled out: the .cu files build as C++17, which has no defaulted comparisons.
  constexpr bool operator==(const WgmmaTiling& o) const {
    return bn == o.bn && cluster_x == o.cluster_x && cluster_y == o.cluster_y;
  }
};

/// The tilings ForwardSearch tries, in order: the fastest three in bench/wgmma_gemm_bench on gpt2's products
/// (bench/RESULTS.md, session 11).
inline constexpr WgmmaTiling kWgmmaTilings[] = {{128, 1, 1}, {64, 1, 1}, {128, 2, 4}};

/// Every tiling wgmma_gemm_forward runs: those, and two multicast clusters the bench and the tests still cover.
inline constexpr WgmmaTiling kWgmmaBenchTilings[] = {{128, 1, 1}, {64, 1, 1}, {128, 2, 4}, {128, 2, 1}, {64, 1, 4}};

/// "128x1x1": a tiling's name in notes.
std::string wgmma_tiling_name(WgmmaTiling tiling);

/// Whether this build has the kernels (compiled for sm_90a) and `device` runs them (compute capability 9.0).
bool wgmma_gemm_available(int device);

/// Whether wgmma_gemm_forward takes `shape` with `tiling`: W given as [N][K] (transpose_bf16 of a [K][N] one), N a
/// multiple of bn divisible into cluster_x-wide groups, K a multiple of 8, K / k_splits a multiple of 64 when split,
/// the row blocks (M / 64, rounded up) divisible into cluster_y-high groups; k_splits 0..4; one of
/// kWgmmaBenchTilings. M is free.
bool wgmma_gemm_takes(const MatmulShape& shape, WgmmaTiling tiling);

/// Y = X W (+ bias, GELU) as Matmul::run computes it in bf16: X [M][K], Wt = W transposed [N][K], bias [N] and Y
/// [M][N] in bf16 with fp32 accumulation; with shape.k_splits = S >= 1, Y is S fp32 partial products [S][M][N]
/// (product s over inputs s*K/S..) and there is no epilogue. shape.weight_out_by_in must be false (it describes the
/// W that Wt transposes). Enqueued on `stream`; throws Error(kInternal) for a shape it does not take.
void wgmma_gemm_forward(const MatmulShape& shape, Epilogue epilogue, WgmmaTiling tiling, void* d_y,
                        const __nv_bfloat16* d_x, const __nv_bfloat16* d_wt, const __nv_bfloat16* d_bias,
                        cudaStream_t stream);

/// The tile widths of wgmma_residual_layernorm_forward: 128 columns per CTA, up to 8 CTAs (the portable cluster
/// size) across a row; or 64, up to 16 (a non-portable cluster size the H100 allows): twice the CTAs at small M.
inline constexpr int kLayerNormTiles[] = {128, 64};

/// Whether wgmma_residual_layernorm_forward takes `shape` with tiles `tile_n` wide: no split, W given as [N][K], K a
/// multiple of 8, N a multiple of tile_n and at most 8 * 128 or 16 * 64 (one cluster spans a row). M is free.
bool wgmma_residual_layernorm_takes(const MatmulShape& shape, int tile_n);

/// wgmma_residual_layernorm_takes, and this device can run a cluster of N / tile_n of its CTAs.
bool wgmma_residual_layernorm_ready(const MatmulShape& shape, int tile_n);

/// A projection and the layer norm after it in one kernel: residual += X W + bias (fp32, in place), then
/// ln_out = (residual - mean) / sqrt(var + 1e-5) * ln_weight + ln_bias per row (bf16; mean and the biased variance
/// two-pass in fp32, as layernorm_forward). X [M][K] and bias [N] bf16, Wt = W transposed [N][K]. Each row's columns
/// are spread over a cluster of N / tile_n CTAs that exchange their partial row sums through distributed shared
/// memory. Enqueued on `stream`; throws Error(kInternal) for a shape it does not take.
void wgmma_residual_layernorm_forward(const MatmulShape& shape, int tile_n, const __nv_bfloat16* d_x,
                                      const __nv_bfloat16* d_wt, const __nv_bfloat16* d_bias, float* d_residual,
                                      const float* d_ln_weight, const float* d_ln_bias, __nv_bfloat16* d_ln_out,
                                      cudaStream_t stream);

/// dst[c][r] = src[r][c] for a [rows][cols] bf16 matrix (weights to the K-major layout wgmma reads).
void transpose_bf16(__nv_bfloat16* d_dst, const __nv_bfloat16* d_src, int rows, int cols, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
