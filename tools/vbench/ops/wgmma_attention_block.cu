// cuda::wgmma_attention_block_forward: a layer's attention half in one kernel: the qkv projection, causal attention,
// the attention projection, its residual add and the second layer norm (see wgmma_attention.hpp).
//
// Why: with wgmma_qkv_attention_forward, gpt2 bf16 (B=4, T=64) still spends 6.67 + 4.28 + 2.34 us of critical path a
// layer on qkv + attention, the projection (split-K partials) and the layer norm that sums them (bench/RESULTS.md,
// session 24): every kernel boundary and ramp is ~2 us, the projection's HBM floor 0.35 us. Here the projection and
// the layer norm ride on the qkv + attention kernel's CTAs.
//
// A cluster of NH CTAs per sequence b, CTA h (its cluster rank) for head h, 256 threads. Up to the attention output
// it is wgmma_attention.cu's kernel (same producer, same consumer steps 1-4, shared attend_head), with a ring of 4
// stages instead of 6 to leave room; then:
//   5. the consumers store the head's output o (T x 64, normalised, bf16) into y[h], a swizzled 64 x 64 tile, and one
//      thread pushes that tile into y[h] of every other CTA of the cluster (bulk copies shared::cta -> shared::cluster,
//      counted on the receiver's y_full): each CTA then holds the sequence's whole attention output, NH K tiles;
//   6. meanwhile the producer, once the consumers have released the ring, copies the projection's weights for output
//      columns h*64.. (Wt rows h*64.., NH tiles of 64 x 64) into the ring's weight halves;
//   7. acc = y Wp^T for the 64 x 64 output tile (wgmma m64n64k16, K = C), + bias + residual rows (fp32);
//   8. the layer norm over the full rows, whose columns are spread over the cluster: each CTA's per-row mean and sum of
//      squared deviations over its 64 columns go to every CTA (distributed shared memory, one cluster barrier) and are
//      combined as parallel variances are (Chan et al.); then the residual and the bf16 norm are stored.
// Shared memory: the 4 x 32 KB ring, 12 x 8 KB of y, barriers: 225 KB. So C <= 768 (12 heads of 64).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/programmatic.cuh"
#include "tools/vbench/cuda/wgmma.cuh"
#include "tools/vbench/cuda/wgmma_attention.cuh"
#include "tools/vbench/cuda/wgmma_attention.hpp"

namespace vtools::vbench::cuda {

namespace {
using namespace wgmma;  // the helpers of wgmma.cuh

constexpr int kRows = 64;       // rows per CTA (one wgmma m64), so T <= 64
constexpr int kHS = 64;         // head size: the GPT-2 family's
constexpr int kStages = 4;      // the qkv ring; its weight halves then hold the projection's 12 tiles
constexpr int kMaxHeads = 12;   // y's tiles (C <= 768)
constexpr int kThreads = 256;

struct BlockSmem {
  __nv_bfloat16 x[kStages][kRows * kTileK];    // ring: x tiles; then q, p, k, v^T; then the row statistics
  __nv_bfloat16 w[kStages][3 * kHS * kTileK];  // ring: the head's q, k, v rows of Wt; then the projection's Wt tiles
  __nv_bfloat16 y[kMaxHeads][kRows * kTileK];  // the sequence's attention output, one K tile per head
  std::uint64_t full[kStages], empty[kStages], proj_full, y_full;
};
constexpr std::size_t kSmemBytes = sizeof(BlockSmem) + 1024;  // + aligning the dynamic shared memory base to 1024

/// Step 8's exchange, by cluster rank: per row, the mean of the rank's 64 columns and their sum of squared
/// deviations from it. It lives in the ring's x tiles: a peer writes it only after its projection, which waited for
/// this CTA's push, which came after this CTA's attention read them last.
struct RowStats {
  float mean[kMaxHeads][kRows];
  float m2[kMaxHeads][kRows];
};
static_assert(sizeof(RowStats) <= sizeof(BlockSmem::x), "the row statistics overlay the x tiles");

#ifdef VTOOLS_WGMMA
constexpr std::uint32_t kTileBytes = kRows * kTileK * sizeof(__nv_bfloat16);  // 8 KB

/// Projection weight tile k (Wt rows h*64.., columns k*64..) in the ring's weight halves: three 8 KB tiles a stage.
__device__ __forceinline__ __nv_bfloat16* proj_tile(BlockSmem& s, int k) {
  return s.w[k / 3] + (k % 3) * kRows * kTileK;
}

/// Copies `bytes` of this CTA's shared memory at src to the same offset in cluster rank `rank`'s, counted on that
/// CTA's barrier at bar's offset (complete_tx).
__device__ __forceinline__ void push_to_rank(const void* src, std::uint64_t* bar, std::uint32_t bytes,
                                             std::uint32_t rank) {
  asm volatile(
      "{\n"
      ".reg .b32 dst, remote_bar;\n"
      "mapa.shared::cluster.u32 dst, %0, %2;\n"
      "mapa.shared::cluster.u32 remote_bar, %1, %2;\n"
      "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dst], [%0], %3, [remote_bar];\n"
      "}\n" ::"r"(smem_addr(src)),
      "r"(smem_addr(bar)), "r"(rank), "r"(bytes)
      : "memory");
}
#endif  // VTOOLS_WGMMA

/// Grid (NH, B) in clusters of (NH, 1, 1); see the top of the file.
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_attention_block_kernel(const __grid_constant__ CUtensorMap x_map, const __grid_constant__ CUtensorMap w_map,
                                 const __grid_constant__ CUtensorMap proj_map, const __nv_bfloat16* qkv_bias,
                                 const __nv_bfloat16* proj_bias, float* residual, const float* ln_weight,
                                 const float* ln_bias, __nv_bfloat16* ln_out, int T, int C) {
#ifdef VTOOLS_WGMMA
  extern __shared__ unsigned char raw[];
  auto& s = aligned_shared<BlockSmem>(raw);
  const int h = blockIdx.x, b = blockIdx.y, heads = gridDim.x;  // h is the cluster rank
  const int k_tiles = C / kTileK;                                // == heads
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      mbar_init(&s.full[i], 1);
      mbar_init(&s.empty[i], 4);  // one arrival per consumer warp
    }
    mbar_init(&s.proj_full, 1);
    mbar_init(&s.y_full, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  // Peers copy into y and count on y_full: both must be initialised first. Waited for just before the push.
  asm volatile("barrier.cluster.arrive.release;" ::: "memory");
  const bool consumer = threadIdx.x >= 128;
  const int w = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const int r_top = 16 * w + lane / 4, c_lane = 2 * (lane % 4);
  if (threadIdx.x == 0) {  // the producer
    constexpr std::uint32_t kStageBytes = (kRows + 3 * kHS) * kTileK * sizeof(__nv_bfloat16);
    auto load_w = [&](int t) {
      const int st = t % kStages;
      mbar_expect_tx(&s.full[st], kStageBytes);
      for (int part = 0; part < 3; ++part) {
        tma_load(s.w[st] + part * kHS * kTileK, &w_map, t * kTileK, part * C + h * kHS, &s.full[st], 0);
      }
    };
    auto load_x = [&](int t) { tma_load(s.x[t % kStages], &x_map, t * kTileK, b * T, &s.full[t % kStages], 0); };
    produce<kStages>(k_tiles, s.empty, load_w, load_x);
    // 6. Each stage's last tile released, the weight halves take the projection's tiles.
    for (int st = 0; st < kStages && st < k_tiles; ++st) {
      const int last = st + (k_tiles - 1 - st) / kStages * kStages;
      mbar_wait(&s.empty[st], (last / kStages) & 1);
    }
    mbar_expect_tx(&s.proj_full, k_tiles * kTileBytes);
    for (int k = 0; k < k_tiles; ++k) tma_load(proj_tile(s, k), &proj_map, k * kTileK, h * kHS, &s.proj_full, 0);
  }
  float acc[kHS / 2];  // 7.: the projection's 64 x 64 tile, then the residual rows
  if (consumer) {
    // Parameters read after the K loop into L2 now: never written, and otherwise cold HBM reads on the critical path.
    const int p = threadIdx.x - 128;
    if (p < 3) asm volatile("prefetch.global.L2 [%0];" ::"l"(qkv_bias + p * C + h * kHS));
    if (p == 3) asm volatile("prefetch.global.L2 [%0];" ::"l"(proj_bias + h * kHS));
    if (p >= 4 && p < 6) asm volatile("prefetch.global.L2 [%0];" ::"l"(ln_weight + h * kHS + 32 * (p - 4)));
    if (p >= 6 && p < 8) asm volatile("prefetch.global.L2 [%0];" ::"l"(ln_bias + h * kHS + 32 * (p - 6)));
    // 1. [q | k | v] for the 64 rows, one group of wgmmas in flight.
    float d[3 * kHS / 2];
#pragma unroll
    for (int i = 0; i < 3 * kHS / 2; ++i) d[i] = 0.f;
    for (int t = 0; t < k_tiles; ++t) {
      const int st = t % kStages;
      mbar_wait(&s.full[st], (t / kStages) & 1);
      fence_operands(d);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      const std::uint64_t da = descriptor(s.x[st]), db = descriptor(s.w[st]);
#pragma unroll
      for (int kk = 0; kk < kTileK / 16; ++kk) wgmma_k16<3 * kHS>(d, da + 2 * kk, db + 2 * kk);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
      fence_operands(d);
      if (t > 0 && lane == 0) mbar_arrive(&s.empty[(t - 1) % kStages]);
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    fence_operands(d);
    if (lane == 0) mbar_arrive(&s.empty[(k_tiles - 1) % kStages]);  // the producer waits for it (step 6)
    // The residual rows (written by the kernel before, which the producer has waited for) into L2.
    asm volatile("griddepcontrol.wait;" ::: "memory");
    if (p / 2 < T) {
      asm volatile("prefetch.global.L2 [%0];" ::"l"(residual + (static_cast<std::size_t>(b) * T + p / 2) * C +
                                                    h * kHS + 32 * (p % 2)));
    }
    // 2.-4. Attention on q [row][dim] (x[0]), p [row][key] (x[1]), k [key][dim] (x[2]), v^T [dim][key] (x[3]).
    float o[kHS / 2], row_sum[2];
    attend_head<kHS>(d, qkv_bias + h * kHS, C, s.x[0], s.x[2], s.x[3], s.x[1], w, lane, o, row_sum, [](int) {});
    // 5. o / row sum into y[h] (every row: those past T are finite and never stored).
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float inv = 1.f / row_sum[half];
#pragma unroll
      for (int j = 0; j < kHS / 8; ++j) {
        store_pair(s.y[h], r_top + 8 * half, 8 * j + c_lane, o[4 * j + 2 * half] * inv, o[4 * j + 2 * half + 1] * inv);
      }
    }
    consumers_publish();  // y[h] visible to the bulk copies and the wgmmas
  }
  asm volatile("barrier.cluster.wait.acquire;" ::: "memory");  // every CTA's barriers are initialised
  if (consumer) {
    if (threadIdx.x == 128) {
      mbar_expect_tx(&s.y_full, (heads - 1) * kTileBytes);
      for (int q = 0; q < heads; ++q) {
        if (q != h) push_to_rank(s.y[h], &s.y_full, kTileBytes, q);
      }
    }
    mbar_wait(&s.y_full, 0);
    mbar_wait(&s.proj_full, 0);
    // 7. acc = y Wp^T over K = C, then + bias + residual (rows past T: zeros, kept out of nothing that is stored).
#pragma unroll
    for (int i = 0; i < kHS / 2; ++i) acc[i] = 0.f;
    fence_operands(acc);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int k = 0; k < k_tiles; ++k) {
      const std::uint64_t da = descriptor(s.y[k]), db = descriptor(proj_tile(s, k));
#pragma unroll
      for (int kk = 0; kk < kTileK / 16; ++kk) wgmma_k16<kHS>(acc, da + 2 * kk, db + 2 * kk);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    fence_operands(acc);
    float sum[2] = {0.f, 0.f};
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int t = r_top + 8 * half;
      const float* res = residual + (static_cast<std::size_t>(b) * T + t) * C + h * kHS;
#pragma unroll
      for (int j = 0; j < kHS / 8; ++j) {
        const int c = 8 * j + c_lane;
        const float2 pb = __bfloat1622float2(__ldg(reinterpret_cast<const __nv_bfloat162*>(proj_bias + h * kHS + c)));
        float& v0 = acc[4 * j + 2 * half];
        float& v1 = acc[4 * j + 2 * half + 1];
        if (t < T) {
          const float2 r = *reinterpret_cast<const float2*>(res + c);
          v0 += pb.x + r.x;
          v1 += pb.y + r.y;
        } else {
          v0 = v1 = 0.f;
        }
        sum[half] += v0 + v1;
      }
    }
    // 8. This CTA's row means and sums of squared deviations to every CTA of the cluster.
    auto& stats = *reinterpret_cast<RowStats*>(&s.x[0][0]);
    float mean[2] = {sum[0] / kHS, sum[1] / kHS}, m2[2] = {0.f, 0.f};
    share_row_partials(mean, stats.mean, h, heads, r_top, lane);  // leaves each row's mean over the 64 columns
#pragma unroll
    for (int half = 0; half < 2; ++half) {
#pragma unroll
      for (int j = 0; j < kHS / 8; ++j) {
        const float d0 = acc[4 * j + 2 * half] - mean[half], d1 = acc[4 * j + 2 * half + 1] - mean[half];
        m2[half] += d0 * d0 + d1 * d1;
      }
    }
    share_row_partials(m2, stats.m2, h, heads, r_top, lane);
  }
  // Every CTA's statistics have landed; no CTA touches another's shared memory after this.
  cluster_sync();
  if (consumer) {
    auto& stats = *reinterpret_cast<RowStats*>(&s.x[0][0]);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = r_top + 8 * half;
      if (row >= T) continue;
      float mean = 0.f;
      for (int q = 0; q < heads; ++q) mean += stats.mean[q][row];
      mean /= heads;
      float m2 = 0.f;
      for (int q = 0; q < heads; ++q) {
        const float dm = stats.mean[q][row] - mean;
        m2 += stats.m2[q][row] + kHS * dm * dm;
      }
      const float rstd = rsqrtf(m2 / C + 1e-5f);
      const std::size_t at = (static_cast<std::size_t>(b) * T + row) * C + h * kHS;
#pragma unroll
      for (int j = 0; j < kHS / 8; ++j) {
        const int c = 8 * j + c_lane;
        const float v0 = acc[4 * j + 2 * half], v1 = acc[4 * j + 2 * half + 1];
        *reinterpret_cast<float2*>(residual + at + c) = make_float2(v0, v1);
        const float2 g = __ldg(reinterpret_cast<const float2*>(ln_weight + h * kHS + c));
        const float2 bb = __ldg(reinterpret_cast<const float2*>(ln_bias + h * kHS + c));
        *reinterpret_cast<__nv_bfloat162*>(ln_out + at + c) =
            __floats2bfloat162_rn((v0 - mean) * rstd * g.x + bb.x, (v1 - mean) * rstd * g.y + bb.y);
      }
    }
  }
#endif  // VTOOLS_WGMMA
}

std::atomic<std::uint64_t> g_attributes_done{0};

bool attributes_set() {
  return kernel_attributes_once(wgmma_attention_block_kernel, g_attributes_done, {kSmemBytes, true});
}

}  // namespace

bool wgmma_attention_block_takes(int B, int T, int C, int NH) {
  return B > 0 && T > 0 && T <= kRows && NH > 0 && NH <= kMaxHeads && C == NH * kHS;
}

bool wgmma_attention_block_ready(int B, int T, int C, int NH) {
  if (!wgmma_attention_block_takes(B, T, C, NH) || !attributes_set()) return false;
  // A cluster of NH CTAs of 225 KB each, one per SM, in one GPC: fewer SMs may be free on a partitioned (MIG) part.
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(NH, 1, 1);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSmemBytes;
  cudaLaunchAttribute cluster[1] = {};
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = NH;
  cluster[0].val.clusterDim.y = cluster[0].val.clusterDim.z = 1;
  config.attrs = cluster;
  config.numAttrs = 1;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, wgmma_attention_block_kernel, &config) != cudaSuccess) {
    (void)cudaGetLastError();  // not an error: the forward runs without this kernel
    return false;
  }
  return clusters > 0;
}

void wgmma_attention_block_forward(const AttentionBlock& a, cudaStream_t stream) {
  const std::string what = "wgmma_attention_block_kernel B=" + std::to_string(a.B) + " T=" + std::to_string(a.T) +
                           " C=" + std::to_string(a.C) + " NH=" + std::to_string(a.NH);
  if (!wgmma_attention_block_takes(a.B, a.T, a.C, a.NH)) {
    throw Error(ExitCode::kInternal, "wgmma_attention_block_forward does not take " + what);
  }
  if (!attributes_set()) throw Error(ExitCode::kInternal, "the device refuses the shared memory of " + what);
  const CUtensorMap x_map = tensor_map(a.x, a.B * a.T, a.C, kRows, what);
  const CUtensorMap w_map = tensor_map(a.qkv_wt, 3 * a.C, a.C, kHS, what);
  const CUtensorMap proj_map = tensor_map(a.proj_wt, a.C, a.C, kRows, what);
  // Always a programmatic dependent: the producer copies the first weight tiles before griddepcontrol.wait.
  launch_kernel_in_clusters(wgmma_attention_block_kernel, dim3(a.NH, a.B), dim3(a.NH, 1, 1), kThreads, kSmemBytes,
                            stream, true, what.c_str(), x_map, w_map, proj_map, a.qkv_bias, a.proj_bias, a.residual,
                            a.ln_weight, a.ln_bias, a.ln_out, a.T, a.C);
}

}  // namespace vtools::vbench::cuda
