// cuda::lm_head_tf32_forward (see lm_head_tf32.hpp): the fp32 LM head as a persistent 3xTF32 wgmma GEMM that reads
// the plain fp32 weights, splits them itself and writes its logit tiles by TMA stores.
//
// A CTA (one per SM) owns 128 rows (an M tile) and a strided set of the 64-column N tiles (CTA b of an M tile takes
// tiles b, b + stride, ...: at any moment the CTAs write neighbouring columns of the same rows). One thread copies:
// the weights' first 32-float chunks of K (128 bytes, one row of the 128-byte swizzle; 64 rows x 32 = 8 KB) into a
// ring before griddepcontrol.wait, since weights are never written; then x_lo and x_hi of the CTA's rows (at most 4
// chunks each); then every later weight chunk as its stage comes free. Three splitter warps split each weight chunk
// in place into TF32 hi (the copy, rounded) and lo (the exact rest, in a second buffer), element by element (the
// swizzle moves both alike); where C ends in the first half of a chunk (gpt_nano's 48), only that half is split and
// multiplied. The split is on the critical path, so shared memory is addressed as such (aligned_shared): through
// generic pointers its loads were serialised behind its stores. Warp groups 1 and 2
// consume, 64 of the 128 rows each: wgmma m64n64k8 (TF32, fp32 accumulators) of x_lo w_hi and
// x_hi w_lo into one accumulator set and x_hi w_hi into another. Each consumer first loads its x_hi into registers
// (and at C <= 64 its x_lo too; 384 threads, so that 168 registers fit), so that the wgmmas read mostly only the
// weights from shared memory. At C <= 64 it issues a tile's chunks at once, the small products over all of K
// first; wider, a chunk at a time, one group in flight. After a tile each consumer writes the sum into a staging
// buffer (two 64 x 32 halves, 128-byte swizzle, so that the 8 rows of a warp's store hit different banks) and one
// thread stores it with two TMA stores, which drain while the next tile's wgmmas run.
// Why: cuBLASLt's 3xTF32 GEMM over K = 3C reads the [w_hi | w_lo | w_hi] weights, three times the plain ones, and
// takes about twice as long as writing the logits; this kernel reads the plain weights once and splits them on the
// way, with the same error. Its time is its own chain of x copy, split, wgmmas and staging per tile, not its loads
// or stores alone. What was measured and tried (register stores, more stages, contiguous tiles, L2 prefetches,
// evict-first stores, more ring stages): bench/RESULTS.md, sessions 19, 23 and 24.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/ops/lm_head_tf32.hpp"
#include "tools/vbench/cuda/programmatic.cuh"
#include "tools/vbench/cuda/wgmma.cuh"
#include "tools/vbench/ops/wgmma_gemm.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr int kBM = 128;        // rows per CTA: 64 per consumer warp group
constexpr int kBN = 64;         // logit columns per tile
constexpr int kChunk = 32;      // 32 floats = 128 bytes of K: one row of the 128-byte swizzle, a TMA box's width
constexpr int kMaxWidth = 128;  // x_lo and x_hi of the CTA's rows kept in shared memory: up to 4 chunks each
/// Warp groups 1 and 2 consume; warps 0, 1 and 3 split the weights and one thread of warp 2 copies: 384 threads,
/// which leaves 168 registers to each (416 would leave 128), enough for x_hi (and at C <= 64 x_lo) in registers.
constexpr int kThreads = 384;
constexpr int kSplitters = 96;
constexpr int kCopier = 64;  // the thread that issues the copies (warp 2)
static_assert(kSplitters == 96 && kCopier / 32 == 2, "warps 0, 1 and 3 split (96 threads), warp 2 copies");

/// Shared memory for widths up to kChunks * 32: 32 KB of x per chunk, kStages weight stages of 16 KB (hi and lo),
/// kOutBuffers logit staging buffers of 16 KB per consumer; 208 KB at C <= 64 (5 stages, 2 buffers), 224 KB at
/// C <= 96 (4 stages, 2 buffers) and C <= 128 (4 stages, 1 buffer).
template <int kChunks>
struct Smem {
  static constexpr int kStages = kChunks <= 2 ? 5 : 4;     // weight chunks in flight
  static constexpr int kOutBuffers = kChunks <= 3 ? 2 : 1;  // a tile's stores drain while the next is computed
  float x_lo[kChunks][kBM * kChunk];  // 16 KB each, 1024-byte aligned: the swizzle's period
  float x_hi[kChunks][kBM * kChunk];
  float w_hi[kStages][kBN * kChunk];  // 8 KB each: the copied weights, split in place into hi
  float w_lo[kStages][kBN * kChunk];  // and lo
  float out[2][kOutBuffers][2][64 * kChunk];  // [consumer][buffer][half]: 64 rows x 32 columns, 8 KB each
  std::uint64_t x_full, full[kStages], split[kStages], empty[kStages];
};
/// + aligning the dynamic shared memory base to 1024
template <int kChunks>
constexpr std::size_t kSmemBytes = sizeof(Smem<kChunks>) + 1024;

using namespace wgmma;  // the helpers of wgmma.cuh

#ifdef VTOOLS_WGMMA
__device__ __forceinline__ void tma_store(const CUtensorMap* map, const void* src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(x), "r"(y), "r"(smem_addr(src))
               : "memory");
}

#endif  // VTOOLS_WGMMA

/// Grid: m_tiles x (CTAs per M tile), one CTA per SM; CTA b takes M tile b % m_tiles and every (gridDim.x /
/// m_tiles)-th N tile from b / m_tiles. kTailK8: the 8-float K steps of the last chunk that C reaches (4: all; 2
/// where C ends in its first half, e.g. gpt_nano's 48 = 32 + 16): the wgmmas and the split skip the zeros past it.
/// See the top of the file.
template <int kChunks, int kTailK8>
__global__ void __launch_bounds__(kThreads, 1)
    lm_head_tf32_kernel(const __grid_constant__ CUtensorMap x_map, const __grid_constant__ CUtensorMap w_map,
                        const __grid_constant__ CUtensorMap y_map, int C, int m_tiles, int n_tiles) {
#ifdef VTOOLS_WGMMA
  extern __shared__ unsigned char raw[];
  using Shared = Smem<kChunks>;
  constexpr int kStages = Shared::kStages, kOutBuffers = Shared::kOutBuffers;
  auto& s = aligned_shared<Shared>(raw);
  const int m_tile = blockIdx.x % m_tiles, first_n = blockIdx.x / m_tiles, n_stride = gridDim.x / m_tiles;
  const int my_tiles = first_n < n_tiles ? (n_tiles - first_n + n_stride - 1) / n_stride : 0;
  const int group = threadIdx.x / 128, lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
  if (threadIdx.x == 0) {
    mbar_init(&s.x_full, 1);
    for (int i = 0; i < kStages; ++i) {
      mbar_init(&s.full[i], 1);
      mbar_init(&s.split[i], kSplitters);  // each splitting thread
      mbar_init(&s.empty[i], 8);    // each consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  // Weight chunks this CTA reads, in order: tile by tile, K chunk by chunk (the launch picks the kernel whose kChunks
  // covers C; past C the copies read zeros).
  const int total = my_tiles * kChunks;
  if (threadIdx.x == kCopier) {
    auto load_w = [&](int i) {
      const int st = i % kStages, n = first_n + (i / kChunks) * n_stride;
      mbar_expect_tx(&s.full[st], kBN * kChunk * sizeof(float));
      tma_load(s.w_hi[st], &w_map, (i % kChunks) * kChunk, n * kBN, &s.full[st], 0);
    };
    const int early = total < kStages ? total : kStages;
    for (int i = 0; i < early; ++i) load_w(i);
    asm volatile("griddepcontrol.wait;" ::: "memory");  // x is the kernel before's output
    mbar_expect_tx(&s.x_full, 2 * kChunks * kBM * kChunk * sizeof(float));
    for (int c = 0; c < kChunks; ++c) {
      tma_load(s.x_lo[c], &x_map, c * kChunk, m_tile * kBM, &s.x_full, 0);
      tma_load(s.x_hi[c], &x_map, C + c * kChunk, m_tile * kBM, &s.x_full, 0);
    }
    for (int i = kStages; i < total; ++i) {
      mbar_wait(&s.empty[i % kStages], (i / kStages - 1) & 1);
      load_w(i);
    }
  } else if (threadIdx.x < 128 && warp != 2) {  // w = hi + lo, element by element (the swizzle moves both alike)
    constexpr int kUnits = kBN * kChunk / 4;                           // float4s of a chunk
    constexpr int kPerThread = (kUnits + kSplitters - 1) / kSplitters;  // the last one where at < kUnits
    const int splitter = threadIdx.x < 64 ? threadIdx.x : threadIdx.x - 32;
    for (int i = 0; i < total; ++i) {
      const int st = i % kStages;
      const bool tail = kTailK8 < kChunk / 8 && i % kChunks == kChunks - 1;
      // Whether float4 `at` is read: inside the chunk and, in a tail chunk, among the first 2 kTailK8 16-byte units of
      // K (its unit undoes the 128-byte swizzle); the wgmmas read nothing past them.
      auto wanted = [&](int at) { return at < kUnits && (!tail || ((at % 8) ^ (at / 8 % 8)) < 2 * kTailK8); };
      mbar_wait(&s.full[st], (i / kStages) & 1);
      float4* const hi = reinterpret_cast<float4*>(s.w_hi[st]);
      float4* const lo = reinterpret_cast<float4*>(s.w_lo[st]);
      float4 w[kPerThread];
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {  // every load first: the stores below may not pass them
        const int at = splitter + kSplitters * k;
        w[k] = wanted(at) ? hi[at] : make_float4(0.f, 0.f, 0.f, 0.f);
      }
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int at = splitter + kSplitters * k;
        if (!wanted(at)) continue;
        const float4 h = make_float4(tf32_rna(w[k].x), tf32_rna(w[k].y), tf32_rna(w[k].z), tf32_rna(w[k].w));
        hi[at] = h;
        // w - h is exact; the tensor cores read its top 19 bits (TF32), dropping at most 2^-21 of w
        lo[at] = make_float4(w[k].x - h.x, w[k].y - h.y, w[k].z - h.z, w[k].w - h.w);
      }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the generic writes, visible to wgmma
      mbar_arrive(&s.split[st]);
    }
  } else if (group == 1 || group == 2) {
    const int g = group - 1;  // this consumer's rows: 64 g .. 64 g + 63 of the M tile
    const bool leader = threadIdx.x % 128 == 0;
    auto release = [&](int i) {
      if (lane == 0) mbar_arrive(&s.empty[i % kStages]);
    };
    mbar_wait(&s.x_full, 0);
    // The wgmmas take x_hi (in two of the three products) from registers, loaded once, and at C <= 64 x_lo too:
    // they then read (mostly) only the weights from shared memory, which leaves it to the copies, the split and
    // the stores.
    constexpr bool kRegisterX = kChunks <= 2;
    // 8-float K steps of chunk c: all 4, or kTailK8 in the last one
    constexpr auto k8_steps = [](int c) { return c == kChunks - 1 ? kTailK8 : kChunk / 8; };
    std::uint32_t x_lo[kRegisterX ? kChunks : 1][kChunk / 8][4], x_hi[kChunks][kChunk / 8][4];
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
#pragma unroll
      for (int kk = 0; kk < kChunk / 8; ++kk) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int r = 16 * warp + lane / 4 + 8 * (q & 1), col = 8 * kk + lane % 4 + 4 * (q >> 1);
          const int at = (64 * g + r) * kChunk + (((col / 4) ^ (r % 8)) * 4) + col % 4;  // 128-byte swizzle
          x_hi[c][kk][q] = __float_as_uint(s.x_hi[c][at]);
          if constexpr (kRegisterX) x_lo[c][kk][q] = __float_as_uint(s.x_lo[c][at]);
        }
      }
    }
    int i = 0;
    for (int t = 0; t < my_tiles; ++t) {
      // The two small products (x_lo w_hi, x_hi w_lo) sum apart from the large one, so that they are not rounded
      // at its magnitude along the way.
      float big[32], small[32];
#pragma unroll
      for (int k = 0; k < 32; ++k) big[k] = small[k] = 0.f;
      if constexpr (kRegisterX) {  // the tile's chunks (kChunks of them) at once
        for (int c = 0; c < kChunks; ++c) mbar_wait(&s.split[(i + c) % kStages], ((i + c) / kStages) & 1);
        fence_operands(big);
        fence_operands(small);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {  // unrolled: x's registers are indexed at compile time
          const std::uint64_t hi_w = descriptor(s.w_hi[(i + c) % kStages]);
          const std::uint64_t lo_w = descriptor(s.w_lo[(i + c) % kStages]);
#pragma unroll
          for (int kk = 0; kk < k8_steps(c); ++kk) {  // +32 bytes along K
            wgmma_tf32_k8_rs(small, x_lo[c][kk], hi_w + 2 * kk);
            wgmma_tf32_k8_rs(small, x_hi[c][kk], lo_w + 2 * kk);
          }
        }
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          const std::uint64_t hi_w = descriptor(s.w_hi[(i + c) % kStages]);
#pragma unroll
          for (int kk = 0; kk < k8_steps(c); ++kk) {
            wgmma_tf32_k8_rs(big, x_hi[c][kk], hi_w + 2 * kk);
          }
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        fence_operands(big);
        fence_operands(small);
        for (int c = 0; c < kChunks; ++c) release(i++);
      } else {
        // A chunk at a time, x_lo from shared memory; one group of wgmmas in flight: chunk c's are issued before
        // waiting for chunk c - 1's, whose stage is then released.
#pragma unroll
        for (int c = 0; c < kChunks; ++c, ++i) {  // unrolled: x_hi's registers are indexed at compile time
          const int st = i % kStages;
          mbar_wait(&s.split[st], (i / kStages) & 1);
          fence_operands(big);
          fence_operands(small);
          asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
          const std::uint64_t lo_x = descriptor(s.x_lo[c] + 64 * g * kChunk);
          const std::uint64_t hi_w = descriptor(s.w_hi[st]), lo_w = descriptor(s.w_lo[st]);
#pragma unroll
          for (int kk = 0; kk < k8_steps(c); ++kk) {  // +32 bytes along K
            wgmma_tf32_k8(small, lo_x + 2 * kk, hi_w + 2 * kk);
            wgmma_tf32_k8_rs(small, x_hi[c][kk], lo_w + 2 * kk);
            wgmma_tf32_k8_rs(big, x_hi[c][kk], hi_w + 2 * kk);
          }
          asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
          asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
          fence_operands(big);
          fence_operands(small);
          if (c > 0) release(i - 1);
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        fence_operands(big);
        fence_operands(small);
        release(i - 1);
      }
      // The staging buffer of tile t - 2 is free once its stores have read it (at most one group, tile t - 1's,
      // may still be reading).
      float* const buf = s.out[g][t % kOutBuffers][0];
      if (leader) asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kOutBuffers - 1) : "memory");
      asm volatile("bar.sync %0, 128;" ::"r"(1 + g) : "memory");
      // Accumulators of m64n64: warp w holds rows 16w..16w+15; lane l, per 8 columns j, row 16w + l/4, columns
      // 8j + 2(l%4) + {0, 1} in d[4j], d[4j+1], and the row 8 below in d[4j+2], d[4j+3]. Half j / 4 of the tile,
      // at the 128-byte swizzle: 16-byte unit u of row r sits at unit u ^ (r % 8).
#pragma unroll
      for (int j = 0; j < 8; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = 16 * warp + lane / 4 + 8 * h, col = 8 * (j % 4) + 2 * (lane % 4);
          float* const half = buf + (j / 4) * 64 * kChunk;
          float* const at = half + r * kChunk + (((col / 4) ^ (r % 8)) * 4) + col % 4;
          const int k = 4 * j + 2 * h;
          *reinterpret_cast<float2*>(at) = make_float2(big[k] + small[k], big[k + 1] + small[k + 1]);
        }
      }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the generic writes, visible to the TMA
      asm volatile("bar.sync %0, 128;" ::"r"(1 + g) : "memory");
      if (leader) {
        const int n = first_n + t * n_stride, row = m_tile * kBM + 64 * g;
        tma_store(&y_map, buf, n * kBN, row);
        tma_store(&y_map, buf + 64 * kChunk, n * kBN + kChunk, row);
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
    }
    if (leader) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");  // the logits written before the exit
  }
#endif  // VTOOLS_WGMMA
}

}  // namespace

bool lm_head_tf32_takes(int M, int N, int C, int device) {
  return M >= 1 && N >= kBN && N % kBN == 0 && C >= 4 && C % 4 == 0 && C <= kMaxWidth &&
         wgmma_gemm_available(device);
}

void lm_head_tf32_forward(float* d_y, const float* d_x_split, const float* d_w, int M, int N, int C,
                          cudaStream_t stream) {
  const std::string what = "lm_head_tf32_kernel Y[" + std::to_string(M) + "][" + std::to_string(N) + "] = X[" +
                           std::to_string(M) + "][" + std::to_string(C) + "] W^T (3xTF32)";
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  if (!lm_head_tf32_takes(M, N, C, device)) {
    throw Error(ExitCode::kInternal, "lm_head_tf32_forward does not take " + what);
  }
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute", what);
  const int m_tiles = (M + kBM - 1) / kBM, n_tiles = N / kBN;
  // One CTA per SM, the same number on each M tile; at least one per M tile (more than the SMs then run in waves).
  const int per_m_tile = std::max(1, std::min(sms / m_tiles, n_tiles));
  const CUtensorMap x_map = tensor_map(d_x_split, M, 3 * C, kBM, what), w_map = tensor_map(d_w, N, C, kBN, what);
  const CUtensorMap y_map = tensor_map(d_y, M, N, 64, what);
  auto launch = [&](auto kernel, std::size_t smem, std::atomic<std::uint64_t>& done) {
    if (!kernel_attributes_once(kernel, done, {smem, false, true})) {
      throw Error(ExitCode::kInternal, "the device refuses the shared memory of " + what);
    }
    launch_kernel(kernel, dim3(m_tiles * per_m_tile), dim3(kThreads), smem, stream, true, what.c_str(), x_map, w_map,
                  y_map, C, m_tiles, n_tiles);
  };
  // Each kernel takes exactly kChunks chunks of x (its sequence of wgmmas has no branch). Where x sits in registers
  // (C <= 64), a C that ends in the first half of its last chunk skips the second half's K steps.
  static std::atomic<std::uint64_t> done[6];
  const bool half_tail = (C - 1) % kChunk < kChunk / 2;
  switch ((C + kChunk - 1) / kChunk) {
    case 1:
      return half_tail ? launch(lm_head_tf32_kernel<1, 2>, kSmemBytes<1>, done[0])
                       : launch(lm_head_tf32_kernel<1, 4>, kSmemBytes<1>, done[1]);
    case 2:
      return half_tail ? launch(lm_head_tf32_kernel<2, 2>, kSmemBytes<2>, done[2])
                       : launch(lm_head_tf32_kernel<2, 4>, kSmemBytes<2>, done[3]);
    case 3: return launch(lm_head_tf32_kernel<3, 4>, kSmemBytes<3>, done[4]);
    default: return launch(lm_head_tf32_kernel<4, 4>, kSmemBytes<4>, done[5]);
  }
}

}  // namespace vtools::vbench::cuda
