// cuda::wgmma_gemm_forward: a bf16 GEMM on wgmma and TMA for the layers' small-M products (see wgmma_gemm.hpp).
//
// Each CTA computes a 64 x BN tile of Y with 256 threads: warpgroup 0 produces (its thread 0 issues TMA copies of
// 64 x 64 tiles of X and BN x 64 tiles of Wt, 128-byte swizzle, into a ring of kStages stages, each with a "full"
// and an "empty" mbarrier), warpgroup 1 consumes (wgmma m64nBNk16 from shared memory, fp32 accumulators in
// registers, then the epilogue straight from them). Both operands are K-major, so the weights are read transposed
// ([N][K], made once by transpose_bf16).
// Clusters of CX x CY CTAs: the CX CTAs of a cluster row (same rows, neighbouring columns) need the same X tile, so
// each copies BM / CX of its rows into all of them (TMA multicast); likewise the CY CTAs of a cluster column share
// the W tile. A stage is refilled only after the consumers of every CTA that writes into it (its cluster row and
// column) released it: each consumer warp arrives on the empty barrier of each of those CTAs.
// It is launched as a programmatic dependent of the kernel before, and its producer copies the first stages' weights
// before griddepcontrol.wait, so they arrive while that kernel's last CTAs still run (weights are never written).
// Everything that depends on the kernel before (X, and Y's writes, which wait for X) comes after the wait. The
// own layer-norm and attention kernels trigger their dependents at their start (programmatic.cuh), so the weights
// arrive while they run; after cuBLASLt's kernels, which do not, the overlap is their tail only.
// The layer-norm epilogue (wgmma_residual_layernorm_forward) fuses a projection with what follows it in the forward:
// residual += Y + bias, then the layer norm of each row. A row's columns are spread over the CTAs of one grid row,
// launched as one cluster (N / 128 or N / 64 CTAs), which exchange partial row sums, then partial sums of squared
// deviations, through distributed shared memory between cluster barriers that all their threads pass.
// Correct in every tiling (tests/vbench/cuda_wgmma_gemm_test.cpp); ForwardSearch keeps it where the whole forward is
// faster. A CTA's time is mostly fixed cost (the first TMA round trip, the epilogue), not the main loop; K split
// across a cluster with a DSMEM reduction was slower and removed (bench/RESULTS.md, sessions 10-12).
#include <cuda.h>
#include <cuda_bf16.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/cuda/programmatic.cuh"
#include "tools/vbench/cuda/wgmma.cuh"
#include "tools/vbench/ops/wgmma_gemm.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr int kBM = 64;      // rows per CTA: one wgmma m64 per consumer warpgroup
constexpr int kBK = wgmma::kTileK;  // 64 bf16 = 128 bytes: one row of the 128-byte swizzle pattern
// Stages in the ring: as many as fit (bytes in flight hide the latency of L2 and HBM, which sets the pace at small
// M), 8 x (8 + 16) KB for BN = 128; 6 x (8 + 8) KB for BN = 64, where two CTAs fit on an SM.
template <int BN>
constexpr int kStagesFor = BN == 128 ? 8 : 6;
constexpr int kThreads = 256;

/// What the consumers write: fp32 split-K partial products, bf16 Y with or without bias / GELU, or (a projection
/// followed by a layer norm) the residual plus Y plus bias, and the layer norm of that in bf16.
enum class Out { kPartials, kBf16, kBf16Bias, kBf16BiasGelu, kResidualLayerNorm };

/// Out::kResidualLayerNorm's operands: residual [M][N] (fp32, updated in place), the norm's weight and bias [N]
/// (fp32) and its output [M][N] (bf16). Unused (null) otherwise.
struct LayerNormEpilogue {
  float* residual = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  __nv_bfloat16* out = nullptr;
};

// CTAs across a row in the layer-norm epilogue: 8 (the portable cluster size) of 128 columns, or up to 16 (the
// H100's non-portable maximum) of 64, which puts twice the CTAs on a product at small M.
constexpr int kMaxRowCluster = 16;

/// The largest cluster the layer-norm epilogue launches with tiles `tile_n` wide.
constexpr int max_row_cluster(int tile_n) { return tile_n == 128 ? 8 : 16; }

/// The layer-norm epilogue's exchange: each CTA's partial row sums, and partial sums of squared deviations, by
/// cluster rank (in every CTA of the cluster).
struct RowTables {
  float row_sum[kMaxRowCluster][kBM];
  float row_squares[kMaxRowCluster][kBM];
};
struct NoRowTables {};

template <int BN, bool kLayerNorm>
struct Stages {
  __nv_bfloat16 a[kStagesFor<BN>][kBM * kBK];  // each tile 1024-byte aligned (8 KB or 16 KB): the swizzle's period
  __nv_bfloat16 b[kStagesFor<BN>][BN * kBK];
  std::uint64_t full[kStagesFor<BN>], empty[kStagesFor<BN>];
  std::conditional_t<kLayerNorm, RowTables, NoRowTables> rows;  // only the layer-norm kernels carry the 8 KB
};

template <int BN, Out kOut>
constexpr std::size_t smem_bytes() {
  // + alignment of the dynamic shared memory base to 1024
  return sizeof(Stages<BN, kOut == Out::kResidualLayerNorm>) + 1024;
}

using namespace wgmma;  // the helpers of wgmma.cuh

#ifdef VTOOLS_WGMMA
/// Stores this CTA's partial sums of rows `row` and row + 8 (one per lane group of 4, reduced over it first) at
/// [rank][row] in the shared memory of every CTA of the cluster.
__device__ __forceinline__ void share_row_partials(float (&partial)[2], float (&table)[kMaxRowCluster][kBM], int rank,
                                                   int ranks, int row, int lane) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    partial[half] += __shfl_xor_sync(0xffffffffu, partial[half], 1);
    partial[half] += __shfl_xor_sync(0xffffffffu, partial[half], 2);
  }
  if (lane % 4 != 0) return;
  for (int q = 0; q < ranks; ++q) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      asm volatile(
          "{\n"
          ".reg .b32 remote;\n"
          "mapa.shared::cluster.u32 remote, %0, %1;\n"
          "st.shared::cluster.f32 [remote], %2;\n"
          "}\n" ::"r"(smem_addr(&table[rank][row + 8 * half])),
          "r"(q), "f"(partial[half])
          : "memory");
    }
  }
}
#endif  // VTOOLS_WGMMA

/// Grid (N / BN, ceil(M / 64), max(1, splits)) in clusters of CX x CY; see the top of the file. With
/// Out::kResidualLayerNorm the cluster is instead a whole row of CTAs (N / BN of them, CX = CY = 1: no multicast).
template <int BN, int CX, int CY, Out kOut>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap x_map, const __grid_constant__ CUtensorMap w_map, void* y,
                      const __nv_bfloat16* bias, int M, int N, int k_per_split, LayerNormEpilogue ln) {
#ifdef VTOOLS_WGMMA
  constexpr int kStages = kStagesFor<BN>;
  constexpr bool kMulticast = CX * CY > 1;
  constexpr bool kLayerNorm = kOut == Out::kResidualLayerNorm;
  constexpr bool kCluster = kMulticast || kLayerNorm;
  static_assert((kBM / CX) % 8 == 0 && (BN / CY) % 8 == 0, "multicast slices keep whole 8-row swizzle groups");
  static_assert(!kLayerNorm || !kMulticast, "the layer-norm cluster spans a row of CTAs and multicasts nothing");
  extern __shared__ unsigned char raw[];
  auto& s = aligned_shared<Stages<BN, kLayerNorm>>(raw);
  const int n0 = blockIdx.x * BN, m0 = blockIdx.y * kBM, k0 = blockIdx.z * k_per_split;
  const int k_tiles = (k_per_split + kBK - 1) / kBK;  // past K the copies read zeros (out of bounds)
  const int cx = blockIdx.x % CX, cy = blockIdx.y % CY;  // multicast cluster rank = cx + CX * cy
  const bool consumer = threadIdx.x >= 128;
  const int w = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;  // w: the consumer warp (for consumers)
  // The next kernel (a programmatic dependent) may launch now: its CTAs take SMs this grid leaves idle and fetch
  // their weights while this one runs; they read nothing else before this grid has completed (griddepcontrol.wait).
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  // The tile's bias (read by the epilogue) into L2 now: never written, and otherwise a cold HBM read after the
  // main loop, on the critical path.
  if constexpr (kOut == Out::kBf16Bias || kOut == Out::kBf16BiasGelu || kOut == Out::kResidualLayerNorm) {
    if (threadIdx.x >= 128 && threadIdx.x < 128 + BN / 64) {
      asm volatile("prefetch.global.L2 [%0];" ::"l"(bias + n0 + 64 * (threadIdx.x - 128)));
    }
  }
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      mbar_init(&s.full[i], 1);
      mbar_init(&s.empty[i], 4 * (CX + CY - 1));  // each consumer warp of each CTA that writes into this one
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // Every CTA's barriers exist, and every CTA of the cluster runs, before any CTA copies or stores into another.
  if constexpr (kCluster) {
    cluster_sync();
  } else {
    __syncthreads();
  }
  float d[BN / 2];  // the consumers' accumulators (kernel scope: the layer-norm epilogue has cluster-wide phases)
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
  if (threadIdx.x == 0) {  // the producer
    std::uint16_t row_mask = 0, col_mask = 0;  // the CTAs sharing this CTA's X tile, and its W tile
    if constexpr (CX > 1) {
      for (int i = 0; i < CX; ++i) row_mask |= 1u << (i + CX * cy);
    }
    if constexpr (CY > 1) {
      for (int j = 0; j < CY; ++j) col_mask |= 1u << (cx + CX * j);
    }
    constexpr std::uint32_t kStageBytes = (kBM + BN) * kBK * sizeof(__nv_bfloat16);
    auto load_w = [&](int t) {
      const int st = t % kStages;
      mbar_expect_tx(&s.full[st], kStageBytes);
      tma_load(s.b[st] + cy * (BN / CY) * kBK, &w_map, k0 + t * kBK, n0 + cy * (BN / CY), &s.full[st], col_mask);
    };
    auto load_x = [&](int t) {
      const int st = t % kStages;
      tma_load(s.a[st] + cx * (kBM / CX) * kBK, &x_map, k0 + t * kBK, m0 + cx * (kBM / CX), &s.full[st], row_mask);
    };
    produce<kStages>(k_tiles, s.empty, load_w, load_x);
  } else if (consumer) {
    // Releases stage st in this CTA's cluster row and column (itself once): one arrival per warp.
    auto release = [&](int st) {
      if (lane != 0) return;
      if constexpr (kMulticast) {
        for (int i = 0; i < CX; ++i) mbar_arrive_cluster(&s.empty[st], i + CX * cy);
        for (int j = 0; j < CY; ++j) {
          if (j != cy) mbar_arrive_cluster(&s.empty[st], cx + CX * j);
        }
      } else {
        mbar_arrive(&s.empty[st]);
      }
    };
    // One group of wgmmas stays in flight: tile t's are issued before waiting for tile t - 1's, whose stage is then
    // released (CUTLASS's mainloop does the same), so the tensor cores do not idle across the barrier waits.
    for (int t = 0; t < k_tiles; ++t) {
      const int st = t % kStages;
      mbar_wait(&s.full[st], (t / kStages) & 1);
      fence_operands(d);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      const std::uint64_t da = descriptor(s.a[st]), db = descriptor(s.b[st]);
#pragma unroll
      for (int kk = 0; kk < kBK / 16; ++kk) wgmma_k16<BN>(d, da + 2 * kk, db + 2 * kk);  // +32 bytes along K
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      fence_operands(d);
      if (t > 0) release((t - 1) % kStages);
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    fence_operands(d);
    if (k_tiles > 0) release((k_tiles - 1) % kStages);
  }
  // Accumulators of m64nBN: warp w of the warpgroup holds rows 16w..16w+15; lane l, per 8 columns j, holds row
  // 16w + l/4, columns 8j + 2(l%4) + {0, 1} in d[4j], d[4j+1], and the row 8 below in d[4j+2], d[4j+3].
  const int r_top = m0 + 16 * w + lane / 4;
  if constexpr (!kLayerNorm) {
    if (consumer) {
      // This thread's bias pairs, all loaded before the first store: the compiler cannot tell that a store to Y
      // does not alias them, and kept each load after the store before it, one L2 round trip at a time (ncu: that
      // cost several us per kernel).
      float2 bias_at[BN / 8];
      if constexpr (kOut == Out::kBf16Bias || kOut == Out::kBf16BiasGelu) {
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const auto* pair = reinterpret_cast<const __nv_bfloat162*>(bias + n0 + 8 * j + 2 * (lane % 4));
          bias_at[j] = __bfloat1622float2(__ldg(pair));
        }
      }
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = r_top + 8 * half;
        if (r >= M) continue;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const int c = n0 + 8 * j + 2 * (lane % 4);
          float v0 = d[4 * j + 2 * half], v1 = d[4 * j + 2 * half + 1];
          const std::size_t at = static_cast<std::size_t>(r) * N + c;
          if constexpr (kOut == Out::kPartials) {
            float* plane = static_cast<float*>(y) + static_cast<std::size_t>(blockIdx.z) * M * N;
            *reinterpret_cast<float2*>(plane + at) = make_float2(v0, v1);
          } else {
            if constexpr (kOut != Out::kBf16) {
              v0 += bias_at[j].x;
              v1 += bias_at[j].y;
            }
            if constexpr (kOut == Out::kBf16BiasGelu) {
              v0 = gelu_tanh_bf16(v0);
              v1 = gelu_tanh_bf16(v1);
            }
            *reinterpret_cast<__nv_bfloat162*>(static_cast<__nv_bfloat16*>(y) + at) = __floats2bfloat162_rn(v0, v1);
          }
        }
      }
    }
  } else {
    // residual += Y + bias, then the layer norm of each full row, whose columns are spread over the cluster's CTAs:
    // each row's sum, then its sum of squared deviations, goes to every CTA of the cluster (distributed shared
    // memory), two-pass in fp32 like layernorm_forward.
    const int ranks = gridDim.x, rank = blockIdx.x;  // the cluster is the grid row
    float mean[2] = {0.f, 0.f}, partial[2] = {0.f, 0.f};
    if (consumer) {
      asm volatile("griddepcontrol.wait;" ::: "memory");  // the residual: written by the kernel before
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = r_top + 8 * half;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const int c = n0 + 8 * j + 2 * (lane % 4);
          float2 res = make_float2(0.f, 0.f);
          if (r < M) res = *reinterpret_cast<const float2*>(ln.residual + static_cast<std::size_t>(r) * N + c);
          const float2 b = __bfloat1622float2(__ldg(reinterpret_cast<const __nv_bfloat162*>(bias + c)));
          d[4 * j + 2 * half] += b.x + res.x;
          d[4 * j + 2 * half + 1] += b.y + res.y;
          partial[half] += d[4 * j + 2 * half] + d[4 * j + 2 * half + 1];
        }
      }
      share_row_partials(partial, s.rows.row_sum, rank, ranks, 16 * w + lane / 4, lane);
    }
    cluster_sync();
    if (consumer) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = 16 * w + lane / 4 + 8 * half;
        float total = 0.f;
        for (int q = 0; q < ranks; ++q) total += s.rows.row_sum[q][row];
        mean[half] = total / N;
        partial[half] = 0.f;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const float d0 = d[4 * j + 2 * half] - mean[half], d1 = d[4 * j + 2 * half + 1] - mean[half];
          partial[half] += d0 * d0 + d1 * d1;
        }
      }
      share_row_partials(partial, s.rows.row_squares, rank, ranks, 16 * w + lane / 4, lane);
    }
    cluster_sync();
    if (consumer) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = 16 * w + lane / 4 + 8 * half, r = m0 + row;
        float total = 0.f;
        for (int q = 0; q < ranks; ++q) total += s.rows.row_squares[q][row];
        const float rstd = rsqrtf(total / N + 1e-5f);
        if (r >= M) continue;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const int c = n0 + 8 * j + 2 * (lane % 4);
          const float v0 = d[4 * j + 2 * half], v1 = d[4 * j + 2 * half + 1];
          const std::size_t at = static_cast<std::size_t>(r) * N + c;
          *reinterpret_cast<float2*>(ln.residual + at) = make_float2(v0, v1);
          // Read-only loads (ld.global.nc): not held behind the stores before them.
          const float2 g = __ldg(reinterpret_cast<const float2*>(ln.weight + c));
          const float2 b = __ldg(reinterpret_cast<const float2*>(ln.bias + c));
          const float y0 = (v0 - mean[half]) * rstd * g.x + b.x;
          const float y1 = (v1 - mean[half]) * rstd * g.y + b.y;
          *reinterpret_cast<__nv_bfloat162*>(ln.out + at) = __floats2bfloat162_rn(y0, y1);
        }
      }
    }
  }
  // No CTA leaves while another may still copy into it, arrive on its barriers or store into its shared memory.
  if constexpr (kCluster) cluster_sync();
#endif  // VTOOLS_WGMMA
}

/// 32 x 32 tiles through shared memory (padded against bank conflicts), 32 x 8 threads.
__global__ void transpose_bf16_kernel(__nv_bfloat16* dst, const __nv_bfloat16* src, int rows, int cols) {
  __shared__ __nv_bfloat16 tile[32][33];
  const int c = blockIdx.x * 32 + threadIdx.x;
  for (int i = threadIdx.y; i < 32; i += 8) {
    const int r = blockIdx.y * 32 + i;
    if (r < rows && c < cols) tile[i][threadIdx.x] = src[static_cast<std::size_t>(r) * cols + c];
  }
  __syncthreads();
  const int r = blockIdx.y * 32 + threadIdx.x;
  for (int i = threadIdx.y; i < 32; i += 8) {
    const int cc = blockIdx.x * 32 + i;
    if (cc < cols && r < rows) dst[static_cast<std::size_t>(cc) * rows + r] = tile[threadIdx.x][i];
  }
}

/// kernel_attributes_once for a GEMM kernel: its shared memory, and non-portable clusters for the layer-norm
/// epilogue's over 8 CTAs.
template <int BN, int CX, int CY, Out kOut>
bool kernel_attributes_set() {
  static std::atomic<std::uint64_t> done{0};
  return kernel_attributes_once(wgmma_gemm_kernel<BN, CX, CY, kOut>, done,
                                {smem_bytes<BN, kOut>(), kOut == Out::kResidualLayerNorm && max_row_cluster(BN) > 8});
}

template <int BN, int CX, int CY, Out kOut>
void launch(const MatmulShape& shape, void* y, const __nv_bfloat16* x, const __nv_bfloat16* wt,
            const __nv_bfloat16* bias, cudaStream_t stream, const std::string& what, LayerNormEpilogue ln = {}) {
  const int splits = shape.k_splits > 0 ? shape.k_splits : 1;
  const CUtensorMap x_map = tensor_map(x, shape.M, shape.K, kBM / CX, what);
  const CUtensorMap w_map = tensor_map(wt, shape.N, shape.K, BN / CY, what);
  auto kernel = wgmma_gemm_kernel<BN, CX, CY, kOut>;
  if (!kernel_attributes_set<BN, CX, CY, kOut>()) {
    throw Error(ExitCode::kInternal, "the device refuses the shared memory or cluster size of " + what);
  }
  // A programmatic dependent of the kernel before: its CTAs may start as that one's finish, and copy their first
  // weight tiles before griddepcontrol.wait (the kernel reads nothing else, and writes nothing, before it).
  const dim3 grid(shape.N / BN, (shape.M + kBM - 1) / kBM, splits);
  constexpr bool kRowCluster = kOut == Out::kResidualLayerNorm;  // a cluster per row of CTAs
  const dim3 cluster(kRowCluster ? grid.x : CX, CY, 1);
  launch_kernel_in_clusters(kernel, grid, cluster, kThreads, smem_bytes<BN, kOut>(), stream, true, what.c_str(), x_map,
                            w_map, y, bias, shape.M, shape.N, shape.K / splits, ln);
}

template <int BN, int CX, int CY>
void launch_tiling(const MatmulShape& shape, Epilogue epilogue, void* y, const __nv_bfloat16* x,
                   const __nv_bfloat16* wt, const __nv_bfloat16* bias, cudaStream_t stream, const std::string& what) {
  if (shape.k_splits > 0) return launch<BN, CX, CY, Out::kPartials>(shape, y, x, wt, bias, stream, what);
  switch (epilogue) {
    case Epilogue::kBias: return launch<BN, CX, CY, Out::kBf16Bias>(shape, y, x, wt, bias, stream, what);
    case Epilogue::kBiasGelu: return launch<BN, CX, CY, Out::kBf16BiasGelu>(shape, y, x, wt, bias, stream, what);
    default: return launch<BN, CX, CY, Out::kBf16>(shape, y, x, wt, bias, stream, what);
  }
}

}  // namespace

std::string wgmma_tiling_name(WgmmaTiling tiling) {
  return std::to_string(tiling.bn) + "x" + std::to_string(tiling.cluster_x) + "x" + std::to_string(tiling.cluster_y);
}

bool wgmma_gemm_available(int device) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  // sm_90a code runs on compute capability 9.0 only; the build must include it (CMAKE_CUDA_ARCHITECTURES 90a-real,
  // the default): elsewhere the kernel bodies are empty, which the GPU tests and ForwardSearch's logits check catch.
  return major == 9 && minor == 0;
}

bool wgmma_gemm_takes(const MatmulShape& shape, WgmmaTiling tiling) {
  bool known = false;
  for (const WgmmaTiling t : kWgmmaBenchTilings) known = known || t == tiling;
  if (!known || shape.weight_out_by_in || shape.M <= 0 || shape.N <= 0 || shape.K <= 0) return false;
  if (shape.k_splits < 0 || shape.k_splits > 4) return false;
  if (shape.N % (tiling.bn * tiling.cluster_x) != 0 || shape.K % 8 != 0) return false;
  if (shape.k_splits > 1 && shape.K % (kBK * shape.k_splits) != 0) return false;
  const int row_blocks = (shape.M + kBM - 1) / kBM;
  return row_blocks % tiling.cluster_y == 0;
}

void wgmma_gemm_forward(const MatmulShape& shape, Epilogue epilogue, WgmmaTiling tiling, void* d_y,
                        const __nv_bfloat16* d_x, const __nv_bfloat16* d_wt, const __nv_bfloat16* d_bias,
                        cudaStream_t stream) {
  const std::string what = "wgmma_gemm_kernel " + wgmma_tiling_name(tiling) + " Y[" + std::to_string(shape.M) + "][" +
                           std::to_string(shape.N) + "] = X[" + std::to_string(shape.M) + "][" +
                           std::to_string(shape.K) + "] * W, " + std::to_string(shape.k_splits) + " splits";
  if (!wgmma_gemm_takes(shape, tiling)) throw Error(ExitCode::kInternal, "wgmma_gemm_forward does not take " + what);
  if (tiling == WgmmaTiling{128, 1, 1}) {
    return launch_tiling<128, 1, 1>(shape, epilogue, d_y, d_x, d_wt, d_bias, stream, what);
  }
  if (tiling == WgmmaTiling{64, 1, 1}) {
    return launch_tiling<64, 1, 1>(shape, epilogue, d_y, d_x, d_wt, d_bias, stream, what);
  }
  if (tiling == WgmmaTiling{128, 2, 1}) {
    return launch_tiling<128, 2, 1>(shape, epilogue, d_y, d_x, d_wt, d_bias, stream, what);
  }
  if (tiling == WgmmaTiling{64, 1, 4}) {
    return launch_tiling<64, 1, 4>(shape, epilogue, d_y, d_x, d_wt, d_bias, stream, what);
  }
  return launch_tiling<128, 2, 4>(shape, epilogue, d_y, d_x, d_wt, d_bias, stream, what);
}

bool wgmma_residual_layernorm_takes(const MatmulShape& shape, int tile_n) {
  return (tile_n == 64 || tile_n == 128) && !shape.weight_out_by_in && shape.k_splits == 0 && shape.M > 0 &&
         shape.K > 0 && shape.K % 8 == 0 && shape.N > 0 && shape.N % tile_n == 0 &&
         shape.N / tile_n <= max_row_cluster(tile_n);
}

namespace {
template <int BN>
bool layernorm_ready(const MatmulShape& shape) {
  // A cluster of N / BN CTAs in one GPC (one or two CTAs per SM, by registers): fewer may fit on a partitioned
  // (MIG) or smaller part.
  if (!kernel_attributes_set<BN, 1, 1, Out::kResidualLayerNorm>()) return false;
  auto kernel = wgmma_gemm_kernel<BN, 1, 1, Out::kResidualLayerNorm>;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(shape.N / BN, 1, 1);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem_bytes<BN, Out::kResidualLayerNorm>();
  cudaLaunchAttribute cluster[1] = {};
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = config.gridDim.x;
  cluster[0].val.clusterDim.y = cluster[0].val.clusterDim.z = 1;
  config.attrs = cluster;
  config.numAttrs = 1;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
    (void)cudaGetLastError();  // not an error: the unfused projections run
    return false;
  }
  return clusters > 0;
}
}  // namespace

bool wgmma_residual_layernorm_ready(const MatmulShape& shape, int tile_n) {
  if (!wgmma_residual_layernorm_takes(shape, tile_n)) return false;
  return tile_n == 64 ? layernorm_ready<64>(shape) : layernorm_ready<128>(shape);
}

void wgmma_residual_layernorm_forward(const MatmulShape& shape, int tile_n, const __nv_bfloat16* d_x,
                                      const __nv_bfloat16* d_wt, const __nv_bfloat16* d_bias, float* d_residual,
                                      const float* d_ln_weight, const float* d_ln_bias, __nv_bfloat16* d_ln_out,
                                      cudaStream_t stream) {
  const std::string what = "wgmma_gemm_kernel (residual + layer norm, tiles " + std::to_string(tile_n) +
                           " wide) Y[" + std::to_string(shape.M) + "][" + std::to_string(shape.N) + "] = X[" +
                           std::to_string(shape.M) + "][" + std::to_string(shape.K) + "] * W";
  if (!wgmma_residual_layernorm_takes(shape, tile_n)) {
    throw Error(ExitCode::kInternal, "wgmma_residual_layernorm_forward does not take " + what);
  }
  const LayerNormEpilogue ln{d_residual, d_ln_weight, d_ln_bias, d_ln_out};
  if (tile_n == 64) {
    return launch<64, 1, 1, Out::kResidualLayerNorm>(shape, nullptr, d_x, d_wt, d_bias, stream, what, ln);
  }
  launch<128, 1, 1, Out::kResidualLayerNorm>(shape, nullptr, d_x, d_wt, d_bias, stream, what, ln);
}

void transpose_bf16(__nv_bfloat16* d_dst, const __nv_bfloat16* d_src, int rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 grid((cols + 31) / 32, (rows + 31) / 32);
  transpose_bf16_kernel<<<grid, dim3(32, 8), 0, stream>>>(d_dst, d_src, rows, cols);
  check_launch("transpose_bf16_kernel", "rows=" + std::to_string(rows) + " cols=" + std::to_string(cols));
}

}  // namespace vtools::vbench::cuda
