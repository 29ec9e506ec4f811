// cuda::tile_gemm_forward (see tile_gemm.hpp).
//
// A CTA of 4 warps computes a 64 x 64 tile of Y over its K range (all of K, or one split-K product's), each warp a
// 32 x 32 quarter by mma.sync m16n8k16 (bf16 in, fp32 accumulators). K is walked in tiles of 32 through a 4-stage
// cp.async pipeline in shared memory (rows padded by 16 bytes: ldmatrix's 8 row addresses fall in distinct banks).
// Launched as a programmatic dependent, a CTA first asks L2 for its whole weight panel (W[k_range][n0..n0+63]) and
// starts the copies of its first weight tiles, then waits for the kernel before it, then copies X. At gpt2's M = 256
// the weights are most of the bytes (qkv: 3.5 MB of W against 0.4 MB of X), so most of a GEMM's memory traffic
// overlaps the previous kernel.
#include <cstddef>
#include <cstdint>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/dependent_launch.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/cuda/kernels.hpp"
#include "tools/vbench/cuda/tile_gemm.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr int kTile = 64;  // rows, columns and depth of a CTA's tile
constexpr int kStages = 3;
constexpr int kThreads = 256;  // 8 warps: 2 x 2 quarters of the tile, times the two halves of each K tile
constexpr int kRow = kTile + 8;  // bf16 per staged row: 144 bytes, so ldmatrix's 8 row addresses hit distinct banks

struct Stage {
  __nv_bfloat16 x[kTile][kRow];  // [m][k]
  __nv_bfloat16 w[kTile][kRow];  // [k][n]
};
constexpr std::size_t kSmemBytes = sizeof(Stage) * kStages;
/// After the K loop the stages' bytes hold the upper K half's accumulators: [quarter][value][lane].
using HalfSums = float[4][32][32];
static_assert(sizeof(HalfSums) <= kSmemBytes);

/// kOut: Epilogue::kBias / kBiasGelu write bf16 Y; kNone writes the fp32 partial product of blockIdx.z.
template <Epilogue kOut>
__global__ void __launch_bounds__(kThreads)
    tile_gemm_kernel(void* __restrict__ y, const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                     const __nv_bfloat16* __restrict__ bias, int M, int N, int K, int depth) {
  extern __shared__ __align__(16) unsigned char smem[];
  Stage* const stages = reinterpret_cast<Stage*>(smem);
  allow_dependents();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int n0 = blockIdx.x * kTile, m0 = blockIdx.y * kTile;
  const int k_begin = blockIdx.z * depth, k_end = k_begin + depth;
  const int tiles = (depth + kTile - 1) / kTile;

  // Each thread copies two 16-byte chunks of X (rows r and r + 32, columns c..c+7) and two of W (depths r and
  // r + 32, columns c..c+7) per K tile. K and N are multiples of 8, so a chunk is wholly inside or outside (zeros).
  const int r = threadIdx.x / 8, c = threadIdx.x % 8 * 8;
  const bool x_in[2] = {m0 + r < M, m0 + r + 32 < M};
  const bool w_col_in = n0 + c < N;
  const __nv_bfloat16* const x_src = x + static_cast<long long>(min(m0 + r, M - 1)) * K + k_begin + c;
  const __nv_bfloat16* const w_src = w + static_cast<long long>(k_begin + r) * N + (w_col_in ? n0 + c : 0);
  const long long x_half = (m0 + r + 32 < M ? 32LL : 0LL) * K, w_half = 32LL * N;
  auto copy_w = [&](int t) {
    Stage& s = stages[t % kStages];
    const int k = k_begin + t * kTile + r;
    const __nv_bfloat16* src = w_src + static_cast<long long>(t) * kTile * N;
    cp_async16(&s.w[r][c], w_col_in && k < k_end ? src : w, w_col_in && k < k_end);
    cp_async16(&s.w[r + 32][c], w_col_in && k + 32 < k_end ? src + w_half : w, w_col_in && k + 32 < k_end);
  };
  auto copy_x = [&](int t) {
    Stage& s = stages[t % kStages];
    const bool k_in = k_begin + t * kTile + c < k_end;
    const __nv_bfloat16* src = x_src + t * kTile;
    cp_async16(&s.x[r][c], x_in[0] && k_in ? src : x, x_in[0] && k_in);
    cp_async16(&s.x[r + 32][c], x_in[1] && k_in ? src + x_half : x, x_in[1] && k_in);
  };

  // Weights first, before the wait: no kernel writes them. L2 gets the whole panel; the first stages' copies join
  // the first committed group below.
  for (int k = k_begin + static_cast<int>(threadIdx.x); k < k_end; k += kThreads) {
    asm volatile("prefetch.global.L2 [%0];\n" ::"l"(w + static_cast<long long>(k) * N + n0));
  }
  for (int t = 0; t < kStages - 1 && t < tiles; ++t) copy_w(t);
  wait_prerequisites();
  for (int t = 0; t < kStages - 1; ++t) {
    if (t < tiles) copy_x(t);
    cp_async_commit();  // one group per stage, empty past the last tile, so the count below holds
  }

  const int quarter = warp % 4, k_half = warp / 4 * (kTile / 2);  // this warp's 32 x 32 quarter and K half
  const int wm = quarter / 2 * 32, wn = quarter % 2 * 32;
  float acc[2][4][4] = {};
  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<kStages - 2>();  // tile t has landed (this thread's copies)
    __syncthreads();               // ... everyone's; and everyone is done with tile t - 1, whose stage is reused now
    if (t + kStages - 1 < tiles) {
      copy_w(t + kStages - 1);
      copy_x(t + kStages - 1);
    }
    cp_async_commit();
    const Stage& s = stages[t % kStages];
#pragma unroll
    for (int kk = k_half; kk < k_half + kTile / 2; kk += 16) {
      std::uint32_t a[2][4], b[2][4];
#pragma unroll
      for (int i = 0; i < 2; ++i) ldmatrix_x4(a[i], &s.x[wm + i * 16 + lane % 16][kk + lane / 16 * 8]);
#pragma unroll
      for (int j = 0; j < 2; ++j) ldmatrix_x4_trans(b[j], &s.w[kk + lane % 16][wn + j * 16 + lane / 16 * 8]);
#pragma unroll
      for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) mma_bf16(acc[i][j], a[i], b[j / 2][j % 2 * 2], b[j / 2][j % 2 * 2 + 1]);
      }
    }
  }

  // The upper half's warps hand their sums to the lower half's through shared memory.
  auto& half_sums = *reinterpret_cast<HalfSums*>(stages);
  __syncthreads();  // every warp is done reading the stages (only empty cp.async groups remain)
  if (k_half != 0) {
#pragma unroll
    for (int v = 0; v < 32; ++v) half_sums[quarter][v][lane] = acc[v / 16][v / 4 % 4][v % 4];
  }
  __syncthreads();
  if (k_half != 0) return;
#pragma unroll
  for (int v = 0; v < 32; ++v) acc[v / 16][v / 4 % 4][v % 4] += half_sums[quarter][v][lane];

  // Lane l holds rows l / 4 (+ 8) and columns 2 (l % 4) + {0, 1} of each 16 x 8 accumulator tile.
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int col = n0 + wn + j * 8 + lane % 4 * 2;
    if (col >= N) continue;
    float b0 = 0.f, b1 = 0.f;
    if (kOut != Epilogue::kNone) {
      b0 = to_float(bias[col]);
      b1 = to_float(bias[col + 1]);
    }
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm + i * 16 + lane / 4 + h * 8;
        if (row >= M) continue;
        float v0 = acc[i][j][2 * h] + b0, v1 = acc[i][j][2 * h + 1] + b1;
        if (kOut == Epilogue::kBiasGelu) {
          v0 = gelu_tanh(v0);
          v1 = gelu_tanh(v1);
        }
        if constexpr (kOut == Epilogue::kNone) {
          float* out = static_cast<float*>(y) + (static_cast<long long>(blockIdx.z) * M + row) * N + col;
          *reinterpret_cast<float2*>(out) = make_float2(v0, v1);
        } else {
          __nv_bfloat16* out = static_cast<__nv_bfloat16*>(y) + static_cast<long long>(row) * N + col;
          *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(v0, v1);
        }
      }
    }
  }
}

template <typename Kernel>
bool set_smem(Kernel kernel) {
  check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmemBytes)),
             "cudaFuncSetAttribute", "tile_gemm_kernel");
  return true;
}
}  // namespace

bool tile_gemm_takes(const MatmulShape& shape) {
  const int splits = shape.k_splits > 0 ? shape.k_splits : 1;
  return shape.M > 0 && shape.N > 0 && shape.K > 0 && !shape.weight_out_by_in && shape.N % 8 == 0 &&
         shape.k_splits >= 0 && shape.k_splits <= kMaxSublayerSplits && shape.K % (8 * splits) == 0;
}

void tile_gemm_forward(const MatmulShape& shape, Epilogue epilogue, void* d_y, const __nv_bfloat16* d_x,
                       const __nv_bfloat16* d_w, const __nv_bfloat16* d_bias, cudaStream_t stream) {
  const std::string what = "tile_gemm_kernel M=" + std::to_string(shape.M) + " N=" + std::to_string(shape.N) +
                           " K=" + std::to_string(shape.K) + " splits=" + std::to_string(shape.k_splits);
  if (!tile_gemm_takes(shape) || (shape.k_splits > 0 && epilogue != Epilogue::kNone) ||
      (shape.k_splits == 0 && epilogue == Epilogue::kNone)) {
    throw Error(ExitCode::kInternal, "tile_gemm_forward does not take " + what);
  }
  const int splits = shape.k_splits > 0 ? shape.k_splits : 1;
  const dim3 grid((shape.N + kTile - 1) / kTile, (shape.M + kTile - 1) / kTile, splits);
  const int depth = shape.K / splits;
  auto kernel = epilogue == Epilogue::kBiasGelu ? tile_gemm_kernel<Epilogue::kBiasGelu>
                : epilogue == Epilogue::kBias   ? tile_gemm_kernel<Epilogue::kBias>
                                                : tile_gemm_kernel<Epilogue::kNone>;
  // More shared memory than the default 48 KB: allowed once per kernel, on the first call (an eager forward, outside
  // any graph capture).
  static const bool allowed[3] = {
      set_smem(tile_gemm_kernel<Epilogue::kNone>), set_smem(tile_gemm_kernel<Epilogue::kBias>),
      set_smem(tile_gemm_kernel<Epilogue::kBiasGelu>)};
  (void)allowed;
  launch_dependent(kernel, grid, dim3(kThreads), kSmemBytes, stream, what, d_y, d_x, d_w, d_bias, shape.M, shape.N,
                   shape.K, depth);
}

}  // namespace vtools::vbench::cuda
