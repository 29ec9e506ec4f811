// cuda::attention_forward: fused causal multi-head attention (peer of cpu attention_forward), flash-style: no T x T
// score matrix is stored. A block takes kQueryRows consecutive query rows of one (batch, head), one row per warp, and
// walks the keys 0..last row in tiles of 32 (one key per lane) staged in shared memory as fp32. Per tile a warp
// computes 32 scores (lane j: q . k_j), updates the running max m and sum l with two warp reductions (online softmax,
// scores pre-scaled by log2(e)/sqrt(hs) so exp2f does the exponentials), rescales its accumulator and adds
// p_j * v_j, each lane owning head dimensions lane, lane+32, ... (so hs <= kMaxHeadSize = 4 x 32).
#include <cmath>
#include <cstdint>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/cuda/kernels.hpp"

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

template <typename A>
void attention_forward(A* d_out, const A* d_qkv, int B, int T, int C, int NH, cudaStream_t stream) {
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
    kernel<<<grid, kQueryRows * 32, 0, stream>>>(d_out, d_qkv, T, C, NH, q_scale);
    check_launch("attention_forward_kernel2", shape);
  };
  if (aligned && hs == 16) return launch2(attention_forward_kernel2<A, 16>);
  if (aligned && hs == 32) return launch2(attention_forward_kernel2<A, 32>);
  if (aligned && hs == 64) return launch2(attention_forward_kernel2<A, 64>);
  const std::size_t smem_bytes = sizeof(float) * (kKeyTile * (hs + 1) + kKeyTile * hs + kQueryRows * hs);
  attention_forward_kernel1<A><<<grid, kQueryRows * 32, smem_bytes, stream>>>(d_out, d_qkv, T, C, NH, q_scale);
  check_launch("attention_forward_kernel1", shape);
}

template void attention_forward<float>(float*, const float*, int, int, int, int, cudaStream_t);
template void attention_forward<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*, int, int, int, int,
                                               cudaStream_t);

}  // namespace vtools::vbench::cuda
