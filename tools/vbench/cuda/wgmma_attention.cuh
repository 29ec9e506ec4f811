// The attention half of the qkv + attention kernels (ops/wgmma_attention.cu, one kernel per layer; and the qkv
// tasks of ops/persistent_forward.cu): from one (batch, head)'s q | k | v accumulators of a wgmma m64n(3*HS) to
// that head's attention output, in the consumer warpgroup (128 threads, named barrier 1), on four 64 x 64 bf16
// tiles in shared memory with the 128-byte swizzle. Device code only where VTOOLS_WGMMA is defined.
#pragma once

#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>

#include "tools/vbench/cuda/wgmma.cuh"

namespace vtools::vbench::cuda::wgmma {

#ifdef VTOOLS_WGMMA
/// The byte offset of element (r, c) in a [rows][64] bf16 tile with the 128-byte swizzle (as TMA writes it and the
/// wgmma descriptors read it): the 16-byte chunk c / 8 of row r sits at chunk (c / 8) ^ (r % 8).
__device__ __forceinline__ int swizzled(int r, int c) { return r * 128 + ((((c >> 3) ^ (r & 7))) << 4) + (c & 7) * 2; }

__device__ __forceinline__ void store_pair(__nv_bfloat16* tile, int r, int c, float v0, float v1) {
  *reinterpret_cast<__nv_bfloat162*>(reinterpret_cast<char*>(tile) + swizzled(r, c)) = __floats2bfloat162_rn(v0, v1);
}
__device__ __forceinline__ void store_one(__nv_bfloat16* tile, int r, int c, float v) {
  *reinterpret_cast<__nv_bfloat16*>(reinterpret_cast<char*>(tile) + swizzled(r, c)) = __float2bfloat16_rn(v);
}

/// The consumer warpgroup's shared-memory writes become visible to its wgmmas (the async proxy): a proxy fence, then
/// a barrier of its 128 threads (named barrier 1; the producer thread never joins it).
__device__ __forceinline__ void consumers_publish() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("bar.sync 1, 128;" ::: "memory");
}

/// d[64][N] = A B^T over the first K columns (K / 16 k16 steps) of two K-major swizzled tiles (A 64 rows, B N rows),
/// waited for.
template <int N, int K>
__device__ __forceinline__ void wgmma_tile(float (&d)[N / 2], const __nv_bfloat16* a, const __nv_bfloat16* b) {
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  fence_operands(d);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  const std::uint64_t da = descriptor(a), db = descriptor(b);
#pragma unroll
  for (int kk = 0; kk < K / 16; ++kk) wgmma_k16<N>(d, da + 2 * kk, db + 2 * kk);  // +32 bytes along K
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  fence_operands(d);
}

/// Steps 2-4 of wgmma_attention.cu's kernel (see there) for head size HS and 64 rows: d holds [q | k | v] without
/// bias for rows 0..63 of one sequence (rows past its length belong to no query that is kept); `bias` points at the
/// head's q bias (its k and v biases C and 2C further); q, k, vt and p are 64 x 64 tiles. Leaves the unnormalised
/// output in o and each row's softmax sum in row_sum (rows r_top and r_top + 8, as the accumulator layout says).
/// mark(5), mark(6), mark(7) after each step: the timeline build's stamps.
template <int HS, typename Mark>
__device__ __forceinline__ void attend_head(const float (&d)[3 * HS / 2], const __nv_bfloat16* bias, int C,
                                            __nv_bfloat16* q_tile, __nv_bfloat16* k_tile, __nv_bfloat16* vt_tile,
                                            __nv_bfloat16* p_tile, int w, int lane, float (&o)[HS / 2],
                                            float (&row_sum)[2], Mark mark) {
  constexpr int kRows = 64;
  // Accumulators of m64nN: warp w holds rows 16w..16w+15; lane l, per 8 columns j, row 16w + l/4, columns
  // 8j + 2(l%4) + {0, 1} in d[4j], d[4j+1], and the row 8 below in d[4j+2], d[4j+3].
  const int r_top = 16 * w + lane / 4, c_lane = 2 * (lane % 4);
  // 2. + bias, into the q, k and v^T tiles.
  const float q_scale = 1.4426950408889634f / std::sqrt(static_cast<float>(HS));  // log2(e) / sqrt(hs)
#pragma unroll
  for (int j = 0; j < 3 * HS / 8; ++j) {
    const int part = j / (HS / 8), c = 8 * (j % (HS / 8)) + c_lane;
    const float2 bb = __bfloat1622float2(__ldg(reinterpret_cast<const __nv_bfloat162*>(bias + part * C + c)));
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = r_top + 8 * half;
      const float v0 = d[4 * j + 2 * half] + bb.x, v1 = d[4 * j + 2 * half + 1] + bb.y;
      if (part == 0) {
        store_pair(q_tile, r, c, v0 * q_scale, v1 * q_scale);
      } else if (part == 1) {
        store_pair(k_tile, r, c, v0, v1);
      } else {
        store_one(vt_tile, c, r, v0);
        store_one(vt_tile, c + 1, r, v1);
      }
    }
  }
  consumers_publish();
  mark(5);
  // 3. Scores (already in log2 units), causal mask, softmax numerators.
  float sc[kRows / 2];
  wgmma_tile<kRows, HS>(sc, q_tile, k_tile);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int t = r_top + 8 * half;
    float m = -INFINITY;
#pragma unroll
    for (int j = 0; j < kRows / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (8 * j + c_lane + e <= t) m = fmaxf(m, sc[4 * j + 2 * half + e]);
      }
    }
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));  // finite: key 0 is in every row
    float l = 0.f;
#pragma unroll
    for (int j = 0; j < kRows / 8; ++j) {
      float p[2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        p[e] = 8 * j + c_lane + e <= t ? exp2f(sc[4 * j + 2 * half + e] - m) : 0.f;
        l += p[e];
      }
      store_pair(p_tile, t, 8 * j + c_lane, p[0], p[1]);
    }
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    row_sum[half] = l;
  }
  consumers_publish();
  mark(6);
  // 4. o = p v (the caller normalises and stores it).
  wgmma_tile<HS, kRows>(o, p_tile, vt_tile);
  mark(7);
}
#endif  // VTOOLS_WGMMA

}  // namespace vtools::vbench::cuda::wgmma
