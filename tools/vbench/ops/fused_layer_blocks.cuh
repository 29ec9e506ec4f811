// The device building blocks of the fused layer step (fused_layer.cu): how each layout spreads a step's rows over
// CTAs (Geometry), a CTA's shared memory, cluster stores and barriers, bulk copies on an mbarrier, the CTA GEMM with
// its epilogues, layer norms of a CTA's rows, one warp's causal attention, and a step's parameters staged into shared
// memory. Included by fused_layer.cu alone: everything here has internal linkage.
//
// Three layouts (FusedLayout, Geometry) spread a step's rows over CTAs; in each, a CTA keeps its rows' residual in
// shared memory for the whole step, and q, k and v go to global memory as fp32, double-buffered by step parity
// (other CTAs still read the previous layer's while a fast one writes the next), as does the residual at the end.
// - Cluster columns: a thread-block cluster of 8 CTAs owns 16 consecutive rows. Every CTA computes 1/8 of each
//   GEMM's columns for all 16 rows and writes them into every CTA's shared memory (distributed shared memory),
//   meeting the others at a cluster barrier: 5 per step. Layer norms are computed by every CTA for all its rows.
//   Weight slices are staged by 4-byte cp.async where they fit at two CTAs per SM, else read from global memory.
// - Block rows: one CTA of 512 threads owns 4 rows and computes every column, with no cluster. Its step's weights,
//   biases and layer-norm parameters are copied whole into shared memory by bulk copies (cp.async.bulk on an
//   mbarrier), as are its residual rows and the q, k, v rows its attention reads (from its sequence's start), so
//   attention waits for one round trip instead of a chain of dependent loads. Each CTA reads the whole layer from
//   L2. Widths whose weights do not fit in shared memory (above 64 in fp32, 80 in bf16) read them from global memory
//   instead; GEMMs of more columns than threads take several passes.
//   Block row pairs are the same with 2 rows per CTA: twice the CTAs and twice the weight reads from L2, so they win
//   where a CTA's chain of L2 round trips is the limit and lose where L2 bandwidth is (large widths).
// Math is fp32 on CUDA cores in every dtype (bf16 weights are widened as loaded), so in bf16 this path is more
// precise than the unfused one. The A operand sits in shared memory transposed ([k][row]), so that one k step reads
// the rows as float4 broadcasts. Small K x N slices leave threads idle; they split K and add up through shared
// memory. The kernels sit at 126-128 registers (512 threads): check ptxas -v for spills before timing a change.
#pragma once

#include <cooperative_groups.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/ops/fused_layer.hpp"

namespace cg = cooperative_groups;

namespace vtools::vbench::cuda {

namespace {
constexpr int kBatch = 8;  // weight loads in flight per thread in a GEMM; every K is a multiple of it

/// How each layout (FusedLayout) spreads a step's rows: kRows rows per cluster of kCluster CTAs of kThreads threads,
/// kBlocksPerSm CTAs per SM.
template <FusedLayout L>
struct Geometry;
template <>
struct Geometry<FusedLayout::kClusterColumns> {
  static constexpr int kRows = 16, kCluster = 8, kThreads = 256;  // 8: the portable cluster maximum
  // Two CTAs per SM: with one, 16 clusters of 8 (B=4, T=64) did not all fit on the H100's GPCs at once and ran in
  // two waves (ncu: SMs active half the elapsed cycles).
  static constexpr int kBlocksPerSm = 2;
};
template <>
struct Geometry<FusedLayout::kBlockRows> {
  // 16 warps: a step is a chain of short dependent phases, and more warps split each one finer.
  static constexpr int kRows = 4, kCluster = 1, kThreads = 512, kBlocksPerSm = 1;
};
template <>
struct Geometry<FusedLayout::kBlockRowPairs> {  // twice the CTAs, each reading the whole layer from L2
  static constexpr int kRows = 2, kCluster = 1, kThreads = 512, kBlocksPerSm = 1;
};

/// Shared memory of one CTA in floats: the residual rows xs[Rows][C], the GEMM input u[C][Rows] (a layer norm's
/// or attention's output, transposed), the MLP hidden h[4C][Rows] and scratch (a GEMM's split-K partials,
/// threads * Rows at most, or each warp's attention probabilities, T per warp; a multiple of 4 floats).
__host__ __device__ constexpr int scratch_floats(int rows, int threads, int T) {
  const int probabilities = (threads / 32 * T + 3) / 4 * 4;
  return threads * rows > probabilities ? threads * rows : probabilities;
}
constexpr int smem_floats(int C, int rows, int threads, int T) {
  return 6 * C * rows + scratch_floats(rows, threads, T);
}
/// When they fit (max_smem_bytes), a step's parameters follow, copied in asynchronously as the step starts, so that
/// no GEMM or layer norm waits on a global load: the four layer-norm vectors ln2_w, ln2_b, ln_w, ln_b (fp32 [C]
/// each), then in the weights' type the CTA's column slices (1/Cluster of the columns) of attn_proj [C][C], fc
/// [C][4C], fc_proj [4C][C] and qkv [C][3C], then their biases' slices.
__host__ __device__ constexpr int staged_elems(int C, int cluster) { return (12 * C * C + 9 * C) / cluster; }
/// Dynamic shared memory a CTA may take at blocks_per_sm CTAs per SM: the H100 has 228 KB per SM, 1 KB of it
/// reserved per block, at most 227 KB per block; kStaticSmem of it stays for the kernel's static variables.
constexpr std::size_t kStaticSmem = 64;
constexpr std::size_t max_smem_bytes(int blocks_per_sm) {
  return (blocks_per_sm == 1 ? 227 * 1024 : 228 * 1024 / blocks_per_sm - 1024) - kStaticSmem;
}

/// Stores v at dst in the shared memory of every CTA of the cluster (dst is this CTA's address).
template <int Cluster>
__device__ __forceinline__ void store_to_cluster(float* dst, float v) {
  if constexpr (Cluster == 1) {
    *dst = v;
  } else {
    cg::cluster_group cluster = cg::this_cluster();
#pragma unroll
    for (int q = 0; q < Cluster; ++q) *cluster.map_shared_rank(dst, q) = v;
  }
}

/// Barrier of the cluster (of the CTA when it has one CTA), ordering shared memory writes before it (local or
/// remote) before reads after it.
template <int Cluster>
__device__ __forceinline__ void sync_cluster() {
  if constexpr (Cluster == 1) {
    __syncthreads();
  } else {
    cg::this_cluster().sync();
  }
}

/// After a cta_gemm: its closing __syncthreads already orders a lone CTA's writes (dropping the second barrier was
/// neutral on the H100, within 1%); a cluster still needs its barrier for the writes into the other CTAs' shared
/// memory.
template <int Cluster>
__device__ __forceinline__ void sync_after_gemm() {
  if constexpr (Cluster > 1) cg::this_cluster().sync();
}

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

extern __shared__ float4 dynamic_smem[];  // the kernel's dynamic shared memory (smem4 there)

/// p, a generic pointer into the dynamic shared memory, rebuilt from the shared array so that the compiler knows its
/// state space: loads through it are LDS with 32-bit addresses instead of generic loads (LD, 64-bit addresses,
/// waited for on the long scoreboard: a quarter of the step's stall samples in ncu when the staged weights and q, k,
/// v rows were read through generic pointers).
template <typename T>
__device__ __forceinline__ const T* in_shared(const T* p) {
  const std::uint32_t offset = shared_address(p) - shared_address(dynamic_smem);
  return reinterpret_cast<const T*>(reinterpret_cast<const char*>(dynamic_smem) + offset);
}

/// Bulk copies (the TMA's one-dimensional form) into shared memory, counted on an mbarrier: one thread calls copy()
/// for each piece and then arrive(); every thread wait()s before reading the pieces.
struct BulkCopies {
  std::uint64_t* barrier;  ///< in shared memory, initialised for one arrival by init()
  __device__ void init() const {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(shared_address(barrier)));
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the async proxy sees the initialised barrier
  }
  /// bytes: a multiple of 16; dst and src 16-byte aligned.
  __device__ void copy(void* dst, const void* src, std::uint32_t bytes) const {
    asm volatile("mbarrier.expect_tx.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     shared_address(dst)),
                 "l"(src), "r"(bytes), "r"(shared_address(barrier))
                 : "memory");
  }
  /// The one arrival the barrier waits for, after the last copy().
  __device__ void arrive() const {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(barrier)) : "memory");
  }
  __device__ void wait() const {
    std::uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(shared_address(barrier))
          : "memory");
    }
  }
};

/// What a GEMM does with each of its outputs v(r, n): add the bias and store to qkv_out (kQkv); add the bias and
/// the residual xs[r][n] and store it to every CTA's xs (kResidual); add the bias, apply GELU and store it to every
/// CTA's h[n][r] (kGelu).
enum class Epilogue { kQkv, kResidual, kGelu };

template <typename P>
struct GemmOutput {
  Epilogue kind;
  const P* bias;  ///< of the CTA's first column
  float* dst;  ///< kQkv: qkv_out; kResidual: xs; kGelu: h (this CTA's; the others' are mapped from it)
  int row0, rows, C;
};

/// cta_gemm for at most Threads columns: a thread per column. Threads split K when Nc is small, and all partial
/// sums pass through `scratch` so that the epilogue is one loop: the kernel's steps run once each, so its code size
/// (instruction fetch) costs more than this. kSharedW: W and out.bias point into shared memory (staged).
template <typename P, int Rows, int Cluster, int Threads, bool kSharedW>
__device__ __forceinline__ void cta_gemm_columns(const float* a, const P* __restrict__ W, int ldw, int K, int n0,
                                                 int Nc, float* scratch, GemmOutput<P> out) {
  if constexpr (kSharedW) W = in_shared(W), out.bias = in_shared(out.bias);
  const int splits = max(1, min(small_div(Threads, Nc), K / kBatch));
  const int chunk = (small_div(K + splits - 1, splits) + kBatch - 1) / kBatch * kBatch;
  const int s = small_div(threadIdx.x, Nc), col = threadIdx.x - s * Nc;
  if (s < splits) {
    float acc[Rows] = {};
    const int k_end = min(K, (s + 1) * chunk);
    const P* w = W + col;
    for (int k0 = s * chunk; k0 < k_end; k0 += kBatch) {
      float wk[kBatch];
#pragma unroll
      for (int i = 0; i < kBatch; ++i) wk[i] = to_float(w[(k0 + i) * ldw]);
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        if constexpr (Rows % 4 == 0) {
          const float4* ak = reinterpret_cast<const float4*>(a + (k0 + i) * Rows);
#pragma unroll
          for (int q = 0; q < Rows / 4; ++q) {
            const float4 v = ak[q];
            acc[4 * q] += v.x * wk[i];
            acc[4 * q + 1] += v.y * wk[i];
            acc[4 * q + 2] += v.z * wk[i];
            acc[4 * q + 3] += v.w * wk[i];
          }
        } else {
          static_assert(Rows == 2, "rows come as float4s, or as one float2");
          const float2 v = *reinterpret_cast<const float2*>(a + (k0 + i) * Rows);
          acc[0] += v.x * wk[i];
          acc[1] += v.y * wk[i];
        }
      }
    }
    float* partial = scratch + (s * Nc + col) * Rows;
    if constexpr (Rows % 4 == 0) {
#pragma unroll
      for (int q = 0; q < Rows / 4; ++q) {
        reinterpret_cast<float4*>(partial)[q] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
      }
    } else {
      *reinterpret_cast<float2*>(partial) = make_float2(acc[0], acc[1]);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < Nc * Rows; i += Threads) {
    const int c = i / Rows, r = i % Rows, n = n0 + c;
    float v = to_float(out.bias[c]);
    for (int t = 0; t < splits; ++t) v += scratch[(t * Nc + c) * Rows + r];
    float* dst = nullptr;
    if (out.kind == Epilogue::kQkv) {
      if (out.row0 + r < out.rows) out.dst[static_cast<long long>(out.row0 + r) * 3 * out.C + n] = v;
      continue;
    } else if (out.kind == Epilogue::kResidual) {
      dst = out.dst + r * out.C + n;
      v += *in_shared<float>(dst);
    } else {
      dst = out.dst + n * Rows + r;
      v = gelu_tanh(v);
    }
    store_to_cluster<Cluster>(dst, v);
  }
  __syncthreads();  // a and scratch are rewritten next
}

/// The CTA's columns [n0, n0 + Nc) of A W for its Rows rows: A is u-shaped ([K][Rows] in shared memory), W points
/// at column n0 of the weights (global [K][N], ldw = N, or with `staged` a slice in shared memory, ldw = Nc); `out`
/// says where each result goes (out.bias at column n0). K a multiple of kBatch; every thread must call. Columns
/// beyond Threads (widths over 128 in the block layouts) are done in further passes.
template <typename P, int Rows, int Cluster, int Threads>
__device__ __noinline__ void cta_gemm(const float* a, const P* __restrict__ W, bool staged, int ldw, int K, int n0,
                                      int Nc, float* scratch, GemmOutput<P> out) {
  for (int c0 = 0; c0 < Nc; c0 += Threads) {
    GemmOutput<P> part = out;
    part.bias = out.bias + c0;
    const int n = min(Threads, Nc - c0);
    if (staged) {
      cta_gemm_columns<P, Rows, Cluster, Threads, true>(a, W + c0, ldw, K, n0 + c0, n, scratch, part);
    } else {
      cta_gemm_columns<P, Rows, Cluster, Threads, false>(a, W + c0, ldw, K, n0 + c0, n, scratch, part);
    }
  }
}

/// Starts cp.async copies of W[k][n0 + j] (W is [K][N]) into dst[k * Nc + j], for k < K, j < Nc, 4 bytes each
/// (Nc and n0 even for bf16).
template <int Threads, typename P>
__device__ __forceinline__ void stage_slice(P* dst, const P* W, int K, int N, int n0, int Nc) {
  constexpr int kPerWord = 4 / sizeof(P);
  const int words = Nc / kPerWord;
  for (int i = threadIdx.x; i < K * words; i += Threads) {
    const int k = i / words, j = (i % words) * kPerWord;
    const auto to = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst + k * Nc + j));
    const P* from = W + static_cast<long long>(k) * N + n0 + j;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(from));
  }
}

/// Layer norm (eps 1e-5, biased variance, as layernorm_forward) of the rows first, first + stride, ... < Rows of
/// xs, one warp per row; calls store(r, c, value) for each value. A lane keeps its columns (lane, lane + 32, ...,
/// kPerLane of them) and their parameters in registers, all loaded at once: with loops over shared memory per pass,
/// the passes' loads ran one after another and a step's layer norm took ~1,250 cycles for 2-4 rows of 48-64. Both
/// moments come from one pass of d = x - x[0] and are summed over the warp together: the two chains of shuffles of a
/// two-pass norm (the second waiting for the mean) were most of the phase. The variance E[d^2] - E[d]^2 loses
/// ~(1 + E[d]^2 / var) * 2^-24 of itself to rounding, so a row whose x[0] lies more than ~3 standard deviations
/// from its mean (E[d]^2 > 8 var: an outlier column, or one of a few rows) takes a second pass, around the mean.
/// (A median of three columns as the shift instead lost half the gain on the H100; the second pass is rare.)
template <int kPerLane, int Rows, int Threads, typename Store>
__device__ __forceinline__ void layernorm_rows_of(const float* xs, int C, const float* __restrict__ weight,
                                                  const float* __restrict__ bias, int first, int stride, Store store) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float inv_c = 1.f / static_cast<float>(C);
  for (int r = first + warp * stride; r < Rows; r += Threads / 32 * stride) {
    const float* x = xs + r * C;
    const float shift = x[0];
    float d[kPerLane], g[kPerLane], b[kPerLane];
    float sum = 0.f, squares = 0.f;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int c = lane + 32 * i;
      const bool in = c < C;
      d[i] = in ? x[c] - shift : 0.f;
      g[i] = in ? weight[c] : 0.f;
      b[i] = in ? bias[c] : 0.f;
      sum += d[i];
      squares += d[i] * d[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      squares += __shfl_xor_sync(0xffffffffu, squares, offset);
    }
    const float mean = sum * inv_c;  // of d
    float var = squares * inv_c - mean * mean;
    if (mean * mean > 8.f * var) {  // the same for the whole warp
      squares = 0.f;
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const float e = lane + 32 * i < C ? d[i] - mean : 0.f;
        squares += e * e;
      }
      var = warp_sum(squares) * inv_c;
    }
    const float rstd = rsqrtf(fmaxf(var, 0.f) + 1e-5f);
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int c = lane + 32 * i;
      if (c < C) store(r, c, (d[i] - mean) * rstd * g[i] + b[i]);
    }
  }
}
/// layernorm_rows_of up to width 128 (4 columns per lane: a kernel at its 128 registers spilled with registers
/// for kMaxFusedWidth, and gpt_micro fp32 ran ~4 us slower, the spilled values reloaded after each GEMM from an L1
/// its weight reads had flushed); wider, a two-pass norm that holds no more.
template <int Rows, int Threads, typename Store>
__device__ __forceinline__ void layernorm_rows(const float* xs, int C, const float* __restrict__ weight,
                                               const float* __restrict__ bias, int first, int stride, Store store) {
  constexpr int kNarrow = 128;
  if (C <= kNarrow) return layernorm_rows_of<kNarrow / 32, Rows, Threads>(xs, C, weight, bias, first, stride, store);
  constexpr int kPerLane = (kMaxFusedWidth + 31) / 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int r = first + warp * stride; r < Rows; r += Threads / 32 * stride) {
    const float* x = xs + r * C;
    float v[kPerLane], g[kPerLane], b[kPerLane];
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int c = lane + 32 * i;
      const bool in = c < C;
      v[i] = in ? x[c] : 0.f;
      g[i] = in ? weight[c] : 0.f;
      b[i] = in ? bias[c] : 0.f;
      sum += v[i];
    }
    const float mean = warp_sum(sum) / C;
    float squares = 0.f;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const float d = lane + 32 * i < C ? v[i] - mean : 0.f;
      squares += d * d;
    }
    const float rstd = rsqrtf(warp_sum(squares) / C + 1e-5f);
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int c = lane + 32 * i;
      if (c < C) store(r, c, (v[i] - mean) * rstd * g[i] + b[i]);
    }
  }
}

/// One warp's causal attention for query row t of batch b, head hd, reading rows [first_row, ...) of [B*T][3C] q,
/// k, v at qkv (global memory, or a copy in shared memory: Index int, and qkv from in_shared). Scores a lane per key
/// into p[0..t] (scaled by log2(e)/sqrt(HS) for exp2f), softmax over the warp, then P V a lane per output dimension
/// (HS = 16: the two half-warps take alternate keys). Lane l returns dimension l % HS (and l + 32 in out[1] when
/// HS = 64).
template <int HS, typename Index>
__device__ __forceinline__ void attend(const float* __restrict__ qkv, int first_row, int b, int t, int T, int C,
                                       int hd, float q_scale, float* p, float (&out)[(HS + 31) / 32]) {
  const int lane = threadIdx.x % 32;
  const Index stride = 3 * static_cast<Index>(C);
  // row j of sequence b: q, then k at +C, v at +2C
  const float* base = qkv + (static_cast<Index>(b) * T - first_row) * stride + hd * HS;
  // A lane per key, each reading its key's HS / 4 float4 chunks in a rotated order: rows are 3C floats apart, a
  // multiple of the 32 banks at most widths, so lanes reading the same chunk of consecutive keys hit the same banks
  // (8-way conflicts at C = 64: attention took twice as long as at C = 48). The 8 lanes of a quarter-warp then read 8
  // different float4 slots of a bank row (8 in all) where they can: with 16-wide heads (4 chunks) and rows 4 slots
  // apart modulo 8 (3C = 144, gpt_nano), lanes l and l + 1 sit 4 slots apart, so the rotation advances every other
  // lane (lane by lane it left 2-way conflicts: gpt_nano fp32 57.8-58.3 -> 57.0-57.3 us); rows a multiple of 8
  // slots apart (C = 64) keep 2-way conflicts either way. q is read chunk by chunk in the same order (a broadcast per
  // chunk), not kept in registers.
  constexpr int kChunks = HS / 4;
  const int rotation = HS == 16 && stride / 4 % 8 == 4 ? lane / 2 : lane;
  const float* q = base + t * stride;
  float m = -INFINITY;
  for (int j = lane; j <= t; j += 32) {
    const float* k = base + j * stride + C;
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
      const int c = 4 * ((i + rotation) % kChunks);
      const float4 qv = *reinterpret_cast<const float4*>(q + c);
      const float4 kv = *reinterpret_cast<const float4*>(k + c);
      s += qv.x * kv.x + qv.y * kv.y + qv.z * kv.z + qv.w * kv.w;
    }
    s *= q_scale;
    p[j] = s;
    m = fmaxf(m, s);
  }
  m = warp_max(m);
  float sum = 0.f;
  for (int j = lane; j <= t; j += 32) {
    const float e = exp2f(p[j] - m);
    p[j] = e;
    sum += e;
  }
  const float inv = 1.f / warp_sum(sum);
  __syncwarp();
  constexpr int kGroups = HS < 32 ? 32 / HS : 1;  // lanes sharing an output dimension, on alternate keys
  // Keys in batches of kUnroll whatever t is, those past t read row t again with weight 0: a loop with a remainder
  // ran its last keys as a chain of dependent loads (one round trip each).
  constexpr int kUnroll = 8;
  const float* v = base + 2 * C + lane % HS;
#pragma unroll 1  // HS = 64 spilled with both dimensions at once while q sat in registers (not re-timed since)
  for (int e = 0; e < (HS + 31) / 32; ++e) {
    float acc[2] = {};
    for (int j0 = lane / HS % kGroups; j0 <= t; j0 += kUnroll * kGroups) {
#pragma unroll
      for (int i = 0; i < kUnroll; ++i) {
        const int j = min(j0 + i * kGroups, t);
        const float weight = j0 + i * kGroups <= t ? p[j] : 0.f;
        acc[i % 2] += weight * v[j * stride + 32 * e];
      }
    }
    float o = acc[0] + acc[1];
    for (int offset = 16; offset >= HS; offset /= 2) o += __shfl_xor_sync(0xffffffffu, o, offset);
    out[e] = o * inv;
  }
}

/// The step's parameters for a CTA: where each GEMM reads its weights (column slice, leading dimension) and bias,
/// and each layer norm its parameters.
template <typename P>
struct StepParams {
  struct Gemm {
    const P* w = nullptr;
    int ldw = 0;
    const P* bias = nullptr;
  };
  Gemm proj, fc, fc_proj, qkv;
  const float *ln2_w, *ln2_b, *ln_w, *ln_b;
};

/// The step's parameters in global memory (the CTA's column slices: rank of Cluster).
template <typename P, int Cluster>
__device__ StepParams<P> global_params(const FusedLayerStep<P>& step, int rank) {
  const int C = step.C, n_proj = C / Cluster, n_fc = 4 * C / Cluster, n_qkv = 3 * C / Cluster;
  StepParams<P> p{};
  p.ln2_w = step.ln2_w, p.ln2_b = step.ln2_b, p.ln_w = step.ln_w, p.ln_b = step.ln_b;
  if (step.tokens == nullptr) {
    p.proj = {step.attn_proj_w + rank * n_proj, C, step.attn_proj_b + rank * n_proj};
    p.fc = {step.fc_w + rank * n_fc, 4 * C, step.fc_b + rank * n_fc};
    p.fc_proj = {step.fc_proj_w + rank * n_proj, C, step.fc_proj_b + rank * n_proj};
  }
  if (step.attn_w != nullptr) p.qkv = {step.attn_w + rank * n_qkv, 3 * C, step.attn_b + rank * n_qkv};
  return p;
}

/// Starts copying the step's parameters into shared memory at `lnp` (see staged_elems) and returns where they
/// will be. Clusters of one CTA copy whole tensors by bulk copies on `bulk` (one thread issues them); wider ones
/// their CTA's column slices by 4-byte cp.async (every thread issues some).
template <typename P, int Cluster, int Threads>
__device__ StepParams<P> stage_params(const FusedLayerStep<P>& step, int rank, float* lnp, const BulkCopies& bulk) {
  const int C = step.C, n_proj = C / Cluster, n_fc = 4 * C / Cluster, n_qkv = 3 * C / Cluster;
  const bool first = step.tokens != nullptr, last = step.attn_w == nullptr;
  StepParams<P> p = global_params<P, Cluster>(step, rank);
  P* s_proj = reinterpret_cast<P*>(lnp + 4 * C);
  P* s_fc = s_proj + C * n_proj;
  P* s_fc_proj = s_fc + C * n_fc;
  P* s_qkv = s_fc_proj + 4 * C * n_proj;
  P* s_bias = s_qkv + C * n_qkv;  // [n_proj | n_fc | n_proj | n_qkv]
  // Copies rows [0, K) and columns [col, col + Nc) of the [K][N] tensor src into dst, [K][Nc]: whole tensors (one
  // CTA per cluster: col 0, Nc = N) as one bulk copy issued by thread 0, column slices by 4-byte cp.async.
  const auto piece = [&](auto* dst, const auto* src, int K, int N, int col, int Nc) {
    if constexpr (Cluster == 1) {
      if (threadIdx.x == 0) bulk.copy(dst, src, static_cast<std::uint32_t>(K * N * sizeof(*src)));
    } else {
      stage_slice<Threads>(dst, src, K, N, col, Nc);
    }
  };
  if (!first) {
    piece(lnp, step.ln2_w, 1, C, 0, C);
    piece(lnp + C, step.ln2_b, 1, C, 0, C);
    piece(s_proj, step.attn_proj_w, C, C, rank * n_proj, n_proj);
    piece(s_fc, step.fc_w, C, 4 * C, rank * n_fc, n_fc);
    piece(s_fc_proj, step.fc_proj_w, 4 * C, C, rank * n_proj, n_proj);
    piece(s_bias, step.attn_proj_b, 1, C, rank * n_proj, n_proj);
    piece(s_bias + n_proj, step.fc_b, 1, 4 * C, rank * n_fc, n_fc);
    piece(s_bias + n_proj + n_fc, step.fc_proj_b, 1, C, rank * n_proj, n_proj);
    p.proj = {s_proj, n_proj, s_bias};
    p.fc = {s_fc, n_fc, s_bias + n_proj};
    p.fc_proj = {s_fc_proj, n_proj, s_bias + n_proj + n_fc};
    p.ln2_w = lnp, p.ln2_b = lnp + C;
  }
  piece(lnp + 2 * C, step.ln_w, 1, C, 0, C);
  piece(lnp + 3 * C, step.ln_b, 1, C, 0, C);
  p.ln_w = lnp + 2 * C, p.ln_b = lnp + 3 * C;
  if (!last) {
    piece(s_qkv, step.attn_w, C, 3 * C, rank * n_qkv, n_qkv);
    piece(s_bias + 2 * n_proj + n_fc, step.attn_b, 1, 3 * C, rank * n_qkv, n_qkv);
    p.qkv = {s_qkv, n_qkv, s_bias + 2 * n_proj + n_fc};
  }
  if (Cluster == 1 && threadIdx.x == 0) bulk.arrive();
  return p;
}
}  // namespace

}  // namespace vtools::vbench::cuda
