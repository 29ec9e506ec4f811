// cuda::attention_forward: fused causal multi-head attention (peer of cpu attention_forward), flash-style: no T x T
// score matrix is stored. A block takes kQueryRows consecutive query rows of one (batch, head), one row per warp, and
// walks the keys 0..last row in tiles of 32 (one key per lane) staged in shared memory as fp32. Per tile a warp
// computes 32 scores (lane j: q . k_j), updates the running max m and sum l with two warp reductions (online softmax,
// scores pre-scaled by log2(e)/sqrt(hs) so exp2f does the exponentials), rescales its accumulator and adds
// p_j * v_j, each lane owning head dimensions lane, lane+32, ... (so hs <= kMaxHeadSize = 4 x 32).
// Kernels 2 and 3 below: the same algorithm specialised by head size; kernel 3 (bf16) runs on tensor cores.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_fp16.h>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/ops/attention.hpp"
#include "tools/vbench/cuda/programmatic.cuh"

namespace vtools::vbench::cuda {

namespace {
constexpr int kQueryRows = 8;  // warps per block, one query row each
constexpr int kKeyTile = 32;   // keys per shared-memory tile, one per lane
constexpr int kDimsPerLane = kMaxHeadSize / 32;
constexpr int kLoadBatch = 8;  // tile elements each thread loads before storing any
}  // namespace

/// Where a block's warp stands: its query row t of (batch b, head h), the block's last row, and the row of Q of
/// this (b, h) in qkv, whose K and V follow at +C and +2C. Both kernels share it.
template <typename A>
struct QueryRow {
  int warp, lane, b, h, t, last_t;
  long long row_stride;
  const A* base;
  __device__ QueryRow(const A* qkv, int T, int C, int NH, int hs) {
    warp = threadIdx.x / 32;
    lane = threadIdx.x % 32;
    b = blockIdx.y / NH;
    h = blockIdx.y % NH;
    const int t0 = blockIdx.x * kQueryRows;
    t = t0 + warp;
    last_t = min(t0 + kQueryRows, T) - 1;
    row_stride = 3LL * C;
    base = qkv + static_cast<long long>(b) * T * row_stride + h * hs;
  }
  /// Loads this warp's (scaled) query row into q[0..hs).
  __device__ void load_query(float* q, int T, int hs, float q_scale) const {
    if (t < T) {
      for (int d = lane; d < hs; d += 32) q[d] = to_float(base[t * row_stride + d]) * q_scale;
    }
  }
};

template <typename A>
__global__ void attention_forward_kernel1(A* out, const A* qkv, int T, int C, int NH, float q_scale) {
  extern __shared__ float smem[];
  programmatic_start();
  const int hs = C / NH;
  float* k_tile = smem;                          // [kKeyTile][hs + 1]: the pad keeps lanes on distinct banks
  float* v_tile = k_tile + kKeyTile * (hs + 1);  // [kKeyTile][hs]
  float* q_rows = v_tile + kKeyTile * hs;        // [kQueryRows][hs]
  const QueryRow<A> row(qkv, T, C, NH, hs);
  const int warp = row.warp, lane = row.lane, b = row.b, h = row.h, t = row.t, last_t = row.last_t;
  const long long row_stride = row.row_stride;
  const A* base = row.base;
  float* q = q_rows + warp * hs;
  row.load_query(q, T, hs, q_scale);
  float m = -INFINITY;  // running max of the (log2-scaled) scores
  float l = 0.f;        // running sum of exp2(score - m)
  float acc[kDimsPerLane] = {};

  for (int k0 = 0; k0 <= last_t; k0 += kKeyTile) {
    __syncthreads();  // the previous tile is consumed (and, on the first pass, q is visible)
    const int keys = min(kKeyTile, last_t + 1 - k0);
    // Loads first, stores after, kLoadBatch elements per thread per step: the loads are in flight together instead
    // of each waiting for the previous store (the one-at-a-time loop made the kernel latency-bound, 13 us per call
    // on gpt2 bf16 B=4 T=64, measured with vtrace).
    const int elements = keys * hs;
    for (int i0 = threadIdx.x; i0 < elements; i0 += kLoadBatch * blockDim.x) {
      float k_val[kLoadBatch], v_val[kLoadBatch];
#pragma unroll
      for (int u = 0; u < kLoadBatch; ++u) {
        const int i = i0 + u * blockDim.x;
        if (i < elements) {
          const A* row = base + (k0 + i / hs) * row_stride + i % hs;
          k_val[u] = to_float(row[C]);
          v_val[u] = to_float(row[2 * C]);
        }
      }
#pragma unroll
      for (int u = 0; u < kLoadBatch; ++u) {
        const int i = i0 + u * blockDim.x;
        if (i < elements) {
          k_tile[(i / hs) * (hs + 1) + i % hs] = k_val[u];
          v_tile[i] = v_val[u];  // [j][hs] row-major: index j * hs + d == i
        }
      }
    }
    __syncthreads();
    if (t < T && k0 <= t) {  // uniform per warp: t is the warp's row
      const bool visible = k0 + lane <= t;
      float s = -INFINITY;
      if (visible) {
        const float* k = k_tile + lane * (hs + 1);
        float dot = 0.f;
        for (int d = 0; d < hs; ++d) dot += q[d] * k[d];
        s = dot;
      }
      const float m_new = fmaxf(m, warp_max(s));  // finite: key k0 <= t is always visible
      const float p = visible ? exp2f(s - m_new) : 0.f;
      const float correction = exp2f(m - m_new);  // 0 on the first tile (m = -inf)
      l = l * correction + warp_sum(p);
#pragma unroll
      for (int i = 0; i < kDimsPerLane; ++i) acc[i] *= correction;
      const int n = min(kKeyTile, t - k0 + 1);
      for (int j = 0; j < n; ++j) {
        const float pj = __shfl_sync(0xffffffffu, p, j);
        const float* v = v_tile + j * hs;
#pragma unroll
        for (int i = 0; i < kDimsPerLane; ++i) {
          const int d = lane + 32 * i;
          if (d < hs) acc[i] += pj * v[d];
        }
      }
      m = m_new;
    }
  }
  if (t < T) {
    A* o = out + (static_cast<long long>(b) * T + t) * C + h * hs;
    const float inv_l = 1.f / l;
#pragma unroll
    for (int i = 0; i < kDimsPerLane; ++i) {
      const int d = lane + 32 * i;
      if (d < hs) o[d] = from_float<A>(acc[i] * inv_l);
    }
  }
}

// Kernel 2: kernel 1's algorithm for the head sizes the configs use (16, 32, 64), with the head size known at
// compile time: 16-byte tile loads, float4 dot products with four partial sums, the P.V loop unrolled with each lane
// owning HS/32 adjacent dims. Kernel 1 took 16.9 us per call on gpt2 bf16 B=4 T=64 on the H100 (a third of the
// forward, measured with vtrace): runtime-sized loops left every shared-memory load's latency exposed.
template <typename A, int HS>
__global__ void __launch_bounds__(kQueryRows * 32)
    attention_forward_kernel2(A* __restrict__ out, const A* __restrict__ qkv, int T, int C, int NH, float q_scale) {
  constexpr int kRow = HS + 4;             // k_tile row stride in floats: 16-byte rows, conflict-free float4 reads
  constexpr int kDims = HS >= 32 ? HS / 32 : 1;  // head dims per lane in P.V
  constexpr int kVec = 16 / sizeof(A);     // elements per 16-byte load
  constexpr int kChunksPerRow = HS / kVec;
  static_assert(HS % kVec == 0 && HS % 4 == 0 && HS <= kMaxHeadSize && (HS < 32 || HS % 32 == 0));
  programmatic_start();
  __shared__ __align__(16) float k_tile[kKeyTile * kRow];
  __shared__ __align__(16) float v_tile[kKeyTile * HS];
  __shared__ __align__(16) float q_rows[kQueryRows * HS];
  const QueryRow<A> row(qkv, T, C, NH, HS);
  const int warp = row.warp, lane = row.lane, b = row.b, h = row.h, t = row.t, last_t = row.last_t;
  const long long row_stride = row.row_stride;
  const A* base = row.base;
  float* q = q_rows + warp * HS;
  row.load_query(q, T, HS, q_scale);
  float m = -INFINITY;
  float l = 0.f;
  float acc[kDims] = {};

  for (int k0 = 0; k0 <= last_t; k0 += kKeyTile) {
    __syncthreads();
    const int chunks = min(kKeyTile, last_t + 1 - k0) * kChunksPerRow;
    for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
      const int j = c / kChunksPerRow, d0 = (c % kChunksPerRow) * kVec;
      const A* row = base + (k0 + j) * row_stride + d0;
      alignas(16) A k_val[kVec];
      alignas(16) A v_val[kVec];
      *reinterpret_cast<uint4*>(k_val) = *reinterpret_cast<const uint4*>(row + C);
      *reinterpret_cast<uint4*>(v_val) = *reinterpret_cast<const uint4*>(row + 2 * C);
      // float4 stores: scalar ones hit the same banks from lanes kChunksPerRow apart (ncu: 5.5-way conflicts).
#pragma unroll
      for (int e = 0; e < kVec; e += 4) {
        *reinterpret_cast<float4*>(k_tile + j * kRow + d0 + e) =
            make_float4(to_float(k_val[e]), to_float(k_val[e + 1]), to_float(k_val[e + 2]), to_float(k_val[e + 3]));
        *reinterpret_cast<float4*>(v_tile + j * HS + d0 + e) =
            make_float4(to_float(v_val[e]), to_float(v_val[e + 1]), to_float(v_val[e + 2]), to_float(v_val[e + 3]));
      }
    }
    __syncthreads();
    if (t < T && k0 <= t) {  // uniform per warp
      const bool visible = k0 + lane <= t;
      float s = -INFINITY;
      if (visible) {
        const float4* k4 = reinterpret_cast<const float4*>(k_tile + lane * kRow);
        const float4* q4 = reinterpret_cast<const float4*>(q);
        float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
#pragma unroll
        for (int d = 0; d < HS / 4; ++d) {
          const float4 a = q4[d], k = k4[d];
          s0 += a.x * k.x;
          s1 += a.y * k.y;
          s2 += a.z * k.z;
          s3 += a.w * k.w;
        }
        s = (s0 + s1) + (s2 + s3);
      }
      const float m_new = fmaxf(m, warp_max(s));
      const float p = visible ? exp2f(s - m_new) : 0.f;
      const float correction = exp2f(m - m_new);
      l = l * correction + warp_sum(p);
#pragma unroll
      for (int i = 0; i < kDims; ++i) acc[i] *= correction;
      const int n = min(kKeyTile, t - k0 + 1);  // keys past n hold stale values: never read
#pragma unroll
      for (int j = 0; j < kKeyTile; ++j) {
        if (j < n) {  // uniform per warp
          const float pj = __shfl_sync(0xffffffffu, p, j);
          const float* v = v_tile + j * HS + lane * kDims;
          if (HS >= 32 || lane < HS) {
#pragma unroll
            for (int i = 0; i < kDims; ++i) acc[i] += pj * v[i];
          }
        }
      }
      m = m_new;
    }
  }
  if (t < T && (HS >= 32 || lane < HS)) {
    A* o = out + (static_cast<long long>(b) * T + t) * C + h * HS + lane * kDims;
    const float inv_l = 1.f / l;
#pragma unroll
    for (int i = 0; i < kDims; ++i) o[i] = from_float<A>(acc[i] * inv_l);
  }
}

// Kernel 3: bf16 on tensor cores, for head sizes 16, 32 and 64 (the bf16 configs; gpt2 at B=4 T=64 spent 12 x 8.0 us
// per forward in kernel 2, which ncu found latency-bound with ~5.3k instructions per scheduler). A block takes
// kTcRows = 16 query rows of one (b, h); its kTcWarps warps split the keys those rows see into contiguous ranges
// (flash-decoding style), so even the last rows of a short sequence are spread over 4 warps and the grid fills the
// GPU. A warp walks its range in tiles of kTcKeys keys staged in its own shared memory: S = Q K^T by mma.sync
// m16n8k16 (bf16 in, fp32 accumulate), the online softmax in fp32 on the accumulator fragments (a row's values sit in
// the four lanes of a quad), and O += P V by mma.sync in fp16: V is converted when staged (exact for bf16 values in
// fp16's normal range) and P in [0, 1] keeps 11 bits, not bf16's 8. The warps' partial (max, sum, O) are then
// combined through shared memory.
namespace {
constexpr int kTcWarps = 4;
constexpr int kTcRows = 16;  // query rows per block: one mma row tile
constexpr int kTcKeys = 32;  // keys per staged tile

__device__ __forceinline__ void mma_bf16(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void mma_f16(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                        std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Four 8x8 16-bit matrices from shared memory, transposed: lane l gives the address of row l % 8 of matrix l / 8.
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row) {
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

__device__ __forceinline__ std::uint32_t load_pair(const __nv_bfloat16* p) {
  return *reinterpret_cast<const std::uint32_t*>(p);
}

__device__ __forceinline__ std::uint32_t half_pair(float lo, float hi) {
  const __half2 pair = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const std::uint32_t*>(&pair);
}

/// 16 bytes global -> shared without passing through registers; zeros when !valid (`from` is then not read).
__device__ __forceinline__ void cp_async16(void* to, const void* from, bool valid) {
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(from), "r"(valid ? 16 : 0));
}

/// 8 bf16 values as 8 fp16 values (16 bytes each way).
__device__ __forceinline__ uint4 bf16x8_to_half(uint4 v) {
  const auto* in = reinterpret_cast<const __nv_bfloat162*>(&v);
  uint4 out;
  auto* words = reinterpret_cast<std::uint32_t*>(&out);
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const float2 f = __bfloat1622float2(in[e]);
    words[e] = half_pair(f.x, f.y);
  }
  return out;
}

/// Shared memory of kernel 3: queries, and per warp its key/value tile; after the key loop the same bytes hold the
/// warps' partial results.
template <int HS>
struct TcShared {
  static constexpr int kStride = HS + 8;  // elements per row: 16-byte aligned rows, conflict-free fragment loads
  struct Tiles {
    __nv_bfloat16 k[kTcWarps][kTcKeys * kStride];
    __half v[kTcWarps][kTcKeys * kStride];
  };
  struct Partials {
    float o[kTcWarps][kTcRows][HS];
    float m[kTcWarps][kTcRows];
    float l[kTcWarps][kTcRows];
  };
  __nv_bfloat16 q[kTcRows * kStride];
  union {
    Tiles tiles;
    Partials partials;
  };
};
}  // namespace

template <int HS>
__global__ void __launch_bounds__(kTcWarps * 32)
    attention_forward_kernel3(__nv_bfloat16* __restrict__ out, const __nv_bfloat16* __restrict__ qkv, int T, int C,
                              int NH, float q_scale) {
  using Shared = TcShared<HS>;
  constexpr int kStride = Shared::kStride;
  programmatic_start();
  constexpr int kChunks = HS / 8;     // 16-byte chunks per row
  constexpr int kSteps = HS / 16;     // mma k-steps of S = Q K^T
  constexpr int kDimTiles = HS / 8;   // mma n-tiles of O
  static_assert(HS % 16 == 0 && HS <= 64);
  __shared__ __align__(16) Shared sm;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, quad_lane = lane % 4;  // mma fragments: rows g and g + 8, columns 2 * quad_lane + {0, 1}
  const int b = blockIdx.y / NH, h = blockIdx.y % NH;
  const int q0 = blockIdx.x * kTcRows;
  const int t_lo = q0 + g, t_hi = t_lo + 8;
  const int q_last = min(q0 + kTcRows, T) - 1;
  const long long row_stride = 3LL * C;
  const __nv_bfloat16* base = qkv + static_cast<long long>(b) * T * row_stride + h * HS;

  // This warp's keys [k_begin, k_end): the rows' visible keys 0..q_last split into 16-aligned ranges. Every range
  // starts at or before q0 (see the rounding), so each row sees the first key of every tile it gets: maxima stay
  // finite.
  const int keys = q_last + 1;
  const int range = (keys + 16 * kTcWarps - 1) / (16 * kTcWarps) * 16;
  const int k_begin = min(warp * range, keys), k_end = min(k_begin + range, keys);
  __nv_bfloat16* k_s = sm.tiles.k[warp];
  __half* v_s = sm.tiles.v[warp];
  // Stages keys k0.. of this warp's tile: rows up to k_end rounded up to 16 (a P.V step), zeros past T (stale shared
  // memory could hold NaN bits, and 0 * NaN is NaN). cp.async puts every load in flight at once (a load-then-store
  // loop waits for each load in turn: ncu measured 14k cycles per call that way); V arrives as bf16 and is converted
  // to fp16 in place once it is there. Returns the rows staged.
  auto stage = [&](int k0) {
    const int rows = min(kTcKeys, (k_end - k0 + 15) / 16 * 16);
    for (int c = lane; c < rows * kChunks; c += 32) {
      const int r = c / kChunks, d0 = (c % kChunks) * 8;
      const bool valid = k0 + r < T;
      const __nv_bfloat16* key = base + (valid ? (k0 + r) * row_stride : 0) + C + d0;
      cp_async16(k_s + r * kStride + d0, key, valid);
      cp_async16(v_s + r * kStride + d0, key + C, valid);
    }
    return rows;
  };
  auto convert_values = [&](int rows) {
    cp_async_wait_all();
    __syncwarp();
    for (int c = lane; c < rows * kChunks; c += 32) {
      uint4* chunk = reinterpret_cast<uint4*>(v_s + (c / kChunks) * kStride + (c % kChunks) * 8);
      *chunk = bf16x8_to_half(*chunk);
    }
    __syncwarp();
  };
  for (int c = threadIdx.x; c < kTcRows * kChunks; c += blockDim.x) {
    const int r = c / kChunks, d0 = (c % kChunks) * 8;
    const bool valid = q0 + r < T;
    cp_async16(sm.q + r * kStride + d0, base + (valid ? (q0 + r) * row_stride : 0) + d0, valid);
  }
  const int first_rows = k_begin < k_end ? stage(k_begin) : 0;
  cp_async_wait_all();
  __syncthreads();  // the queries are in
  convert_values(first_rows);
  std::uint32_t qa[kSteps][4];
#pragma unroll
  for (int kk = 0; kk < kSteps; ++kk) {
    const __nv_bfloat16* lo = sm.q + g * kStride + kk * 16 + 2 * quad_lane;
    const __nv_bfloat16* hi = lo + 8 * kStride;
    qa[kk][0] = load_pair(lo);
    qa[kk][1] = load_pair(hi);
    qa[kk][2] = load_pair(lo + 8);
    qa[kk][3] = load_pair(hi + 8);
  }

  float o[kDimTiles][4] = {};
  float m_lo = -INFINITY, m_hi = -INFINITY;  // running row maxima (log2-scaled scores)
  float l_lo = 0.f, l_hi = 0.f;              // running sums of this lane's exp2(s - m); the quad adds them later
  for (int k0 = k_begin; k0 < k_end; k0 += kTcKeys) {
    if (k0 > k_begin) {
      __syncwarp();  // the previous tile is consumed
      convert_values(stage(k0));
    }
    // S = Q K^T for 16 rows x kTcKeys keys; key groups past the rows or the range are skipped (uniform per warp).
    float s[kTcKeys / 8][4];
    float max_lo = -INFINITY, max_hi = -INFINITY;
#pragma unroll
    for (int n = 0; n < kTcKeys / 8; ++n) {
      s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
      if (k0 + n * 8 < k_end) {
        const __nv_bfloat16* key = k_s + (n * 8 + g) * kStride + 2 * quad_lane;
#pragma unroll
        for (int kk = 0; kk < kSteps; ++kk) {
          mma_bf16(s[n], qa[kk], load_pair(key + kk * 16), load_pair(key + kk * 16 + 8));
        }
      }
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = k0 + n * 8 + 2 * quad_lane + e;
        s[n][e] = key <= t_lo && key < k_end ? s[n][e] * q_scale : -INFINITY;
        s[n][2 + e] = key <= t_hi && key < k_end ? s[n][2 + e] * q_scale : -INFINITY;
        max_lo = fmaxf(max_lo, s[n][e]);
        max_hi = fmaxf(max_hi, s[n][2 + e]);
      }
    }
#pragma unroll
    for (int offset = 1; offset < 4; offset *= 2) {
      max_lo = fmaxf(max_lo, __shfl_xor_sync(0xffffffffu, max_lo, offset));
      max_hi = fmaxf(max_hi, __shfl_xor_sync(0xffffffffu, max_hi, offset));
    }
    const float m_new_lo = fmaxf(m_lo, max_lo), m_new_hi = fmaxf(m_hi, max_hi);
    const float corr_lo = exp2f(m_lo - m_new_lo), corr_hi = exp2f(m_hi - m_new_hi);  // 0 on the first tile
    m_lo = m_new_lo;
    m_hi = m_new_hi;
    l_lo *= corr_lo;
    l_hi *= corr_hi;
#pragma unroll
    for (int n = 0; n < kTcKeys / 8; ++n) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        s[n][e] = exp2f(s[n][e] - m_lo);
        s[n][2 + e] = exp2f(s[n][2 + e] - m_hi);
        l_lo += s[n][e];
        l_hi += s[n][2 + e];
      }
    }
#pragma unroll
    for (int nd = 0; nd < kDimTiles; ++nd) {
      o[nd][0] *= corr_lo;
      o[nd][1] *= corr_lo;
      o[nd][2] *= corr_hi;
      o[nd][3] *= corr_hi;
    }
    // O += P V, 16 keys per step: the S accumulators of key groups 2kk and 2kk+1 are P's A fragment as they lie.
#pragma unroll
    for (int kk = 0; kk < kTcKeys / 16; ++kk) {
      if (k0 + kk * 16 >= k_end) break;  // uniform per warp
      const std::uint32_t pa[4] = {half_pair(s[2 * kk][0], s[2 * kk][1]), half_pair(s[2 * kk][2], s[2 * kk][3]),
                                   half_pair(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                   half_pair(s[2 * kk + 1][2], s[2 * kk + 1][3])};
      const int matrix = lane / 8;  // 0, 1: keys +0 / +8 of dims nd*8; 2, 3: the same of dims nd*8 + 8
#pragma unroll
      for (int nd = 0; nd < kDimTiles; nd += 2) {
        std::uint32_t vb[4];
        ldmatrix_x4_trans(vb, v_s + (kk * 16 + (matrix % 2) * 8 + lane % 8) * kStride + (nd + matrix / 2) * 8);
        mma_f16(o[nd], pa, vb[0], vb[1]);
        mma_f16(o[nd + 1], pa, vb[2], vb[3]);
      }
    }
  }
#pragma unroll
  for (int offset = 1; offset < 4; offset *= 2) {
    l_lo += __shfl_xor_sync(0xffffffffu, l_lo, offset);
    l_hi += __shfl_xor_sync(0xffffffffu, l_hi, offset);
  }
  __syncthreads();  // every warp is done with its tiles: the partials take their place
  auto& part = sm.partials;
#pragma unroll
  for (int nd = 0; nd < kDimTiles; ++nd) {
    const int d = nd * 8 + 2 * quad_lane;
    part.o[warp][g][d] = o[nd][0];
    part.o[warp][g][d + 1] = o[nd][1];
    part.o[warp][g + 8][d] = o[nd][2];
    part.o[warp][g + 8][d + 1] = o[nd][3];
  }
  if (quad_lane == 0) {
    part.m[warp][g] = m_lo;
    part.m[warp][g + 8] = m_hi;
    part.l[warp][g] = l_lo;
    part.l[warp][g + 8] = l_hi;
  }
  __syncthreads();
  // out = sum_w 2^(m_w - m) O_w / sum_w 2^(m_w - m) l_w with m = max_w m_w (a warp without keys has m_w = -inf).
  for (int i = threadIdx.x; i < kTcRows * HS / 2; i += blockDim.x) {
    const int r = i / (HS / 2), d = (i % (HS / 2)) * 2;
    if (q0 + r >= T) continue;
    float m = -INFINITY;
#pragma unroll
    for (int w = 0; w < kTcWarps; ++w) m = fmaxf(m, part.m[w][r]);
    float sum = 0.f, o0 = 0.f, o1 = 0.f;
#pragma unroll
    for (int w = 0; w < kTcWarps; ++w) {
      const float scale = exp2f(part.m[w][r] - m);
      sum += scale * part.l[w][r];
      o0 += scale * part.o[w][r][d];
      o1 += scale * part.o[w][r][d + 1];
    }
    *reinterpret_cast<__nv_bfloat162*>(out + (static_cast<long long>(b) * T + q0 + r) * C + h * HS + d) =
        __floats2bfloat162_rn(o0 / sum, o1 / sum);
  }
}

template <typename A>
void attention_forward(A* d_out, const A* d_qkv, int B, int T, int C, int NH, cudaStream_t stream,
                       bool programmatic) {
  const std::string shape = "B=" + std::to_string(B) + " T=" + std::to_string(T) + " C=" + std::to_string(C) +
                            " NH=" + std::to_string(NH);
  if (NH <= 0 || C % NH != 0) throw Error(ExitCode::kUsage, "n_embd must be a multiple of n_head (" + shape + ")");
  const int hs = C / NH;
  if (hs > kMaxHeadSize) {
    throw Error(ExitCode::kUnavailable, "the cuda attention kernel supports head sizes up to " +
                                            std::to_string(kMaxHeadSize) + ", got " + std::to_string(hs) + " (" +
                                            shape + ")");
  }
  if (B == 0 || T == 0) return;
  const dim3 grid((T + kQueryRows - 1) / kQueryRows, B * NH);
  const float q_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)) * M_LOG2E);
  const bool aligned = reinterpret_cast<std::uintptr_t>(d_qkv) % 16 == 0;
  auto launch2 = [&](auto kernel) {
    launch_kernel(kernel, grid, kQueryRows * 32, 0, stream, programmatic, "attention_forward_kernel2", d_out, d_qkv, T,
                  C, NH, q_scale);
    check_launch("attention_forward_kernel2", shape);
  };
  if constexpr (std::is_same_v<A, __nv_bfloat16>) {
    if (aligned && (hs == 16 || hs == 32 || hs == 64)) {
      const dim3 grid3((T + kTcRows - 1) / kTcRows, B * NH);
      auto kernel = hs == 16 ? attention_forward_kernel3<16>
                             : hs == 32 ? attention_forward_kernel3<32> : attention_forward_kernel3<64>;
      launch_kernel(kernel, grid3, kTcWarps * 32, 0, stream, programmatic, "attention_forward_kernel3", d_out, d_qkv,
                    T, C, NH, q_scale);
      check_launch("attention_forward_kernel3", shape);
      return;
    }
  }
  if (aligned && hs == 16) return launch2(attention_forward_kernel2<A, 16>);
  if (aligned && hs == 32) return launch2(attention_forward_kernel2<A, 32>);
  if (aligned && hs == 64) return launch2(attention_forward_kernel2<A, 64>);
  const std::size_t smem_bytes = sizeof(float) * (kKeyTile * (hs + 1) + kKeyTile * hs + kQueryRows * hs);
  launch_kernel(attention_forward_kernel1<A>, grid, kQueryRows * 32, smem_bytes, stream, programmatic,
                "attention_forward_kernel1", d_out, d_qkv, T, C, NH, q_scale);
  check_launch("attention_forward_kernel1", shape);
}

template void attention_forward<float>(float*, const float*, int, int, int, int, cudaStream_t, bool);
template void attention_forward<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*, int, int, int, int,
                                               cudaStream_t, bool);

}  // namespace vtools::vbench::cuda
