// cuda::fused_layer_forward: for small models, the forward as n_layer + 1 kernels (and the LM head GEMM) instead of
// 3 + 7 n_layer. The decision: small models are bound by their launch count, not by their FLOPs (every kernel of the
// unfused forward costs ~2 us however little it computes), so a step does a layer's worth of work in one kernel.
//
// One launch is a "step": the second half of layer l (attention, its projection and residual add, layer norm 2, the
// MLP and its residual add) and the first half of layer l + 1 (layer norm 1 and the qkv GEMM), or the final layer
// norm after the last layer. Attention needs every earlier row's keys and values, so the kernel boundary sits just
// before it; everything else in a step is row-local. The first step starts with the encoder instead.
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
// Every step is launched as a programmatic dependent of the one before: it lets the next one launch as it starts,
// and the next one's CTAs take idle SMs and copy in their parameters, then griddepcontrol.wait before reading
// anything a previous kernel wrote.
//
// Math is fp32 on CUDA cores in every dtype (bf16 weights are widened as loaded), so in bf16 this path is more
// precise than the unfused one. The A operand sits in shared memory transposed ([k][row]), so that one k step reads
// the rows as float4 broadcasts. Small K x N slices leave threads idle; they split K and add up through shared
// memory. The kernels sit at 126-128 registers (512 threads): check ptxas -v for spills before timing a change.
// ForwardSearch times every layout against the unfused forward and keeps the fastest. Figures, the per-phase
// timeline (bench/fused_timeline.sh) and what was tried and dropped (a kernel per whole body, clusters of 4 CTAs,
// deeper weight prefetch, more copying threads, persistent clusters): bench/RESULTS.md, sessions 5-6 and 20-23.
#include <cooperative_groups.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/ops/fused_layer.hpp"
#include "tools/vbench/ops/layernorm.hpp"
#include "tools/vbench/cuda/programmatic.cuh"

namespace cg = cooperative_groups;

#ifdef VTOOLS_FUSED_TIMELINE
__device__ unsigned int g_fused_calls;
__device__ __forceinline__ unsigned long long ftl_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#define FTL(i) (threadIdx.x == 0 ? (void)(ftl[i] = clock64(), ftg[i] = ftl_now()) : (void)0)
#else
#define FTL(i) ((void)0)
#endif

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
template <typename P, int HS, FusedLayout L>
__global__ void __cluster_dims__(Geometry<L>::kCluster, 1, 1)
    __launch_bounds__(Geometry<L>::kThreads, Geometry<L>::kBlocksPerSm)
    fused_layer_kernel(FusedLayerStep<P> step, bool staged, int qkv_offset) {
  constexpr int Rows = Geometry<L>::kRows, Cluster = Geometry<L>::kCluster, kThreads = Geometry<L>::kThreads;
  constexpr int kWarps = kThreads / 32;
  extern __shared__ float4 smem4[];
  __shared__ std::uint64_t bulk_barriers[2];
  float* smem = reinterpret_cast<float*>(smem4);
#ifdef VTOOLS_FUSED_TIMELINE
  long long ftl[16] = {};
  unsigned long long ftg[16] = {};
#endif
  FTL(0);
  const int C = step.C, rows = step.B * step.T;
  float* xs = smem;
  float* u = xs + Rows * C;
  float* h = u + C * Rows;
  float* scratch = h + 4 * C * Rows;
  const int rank = Cluster == 1 ? 0 : static_cast<int>(cg::this_cluster().block_rank());
  const int row0 = static_cast<int>(blockIdx.x / Cluster) * Rows;
  const int n_proj = C / Cluster, n_fc = 4 * C / Cluster, n_qkv = 3 * C / Cluster;
  const bool first = step.tokens != nullptr, last = step.attn_w == nullptr;
  const BulkCopies bulk{&bulk_barriers[0]};  // the step's parameters (one CTA per cluster)
  // One CTA per cluster: its residual rows and, with staged_qkv, the rows [key_lo, key_hi) of qkv_in that attention
  // reads (from the first row's sequence start), all by bulk copies, so that attention waits for one round trip
  // instead of a chain of them.
  const BulkCopies early{&bulk_barriers[1]};
  const int key_lo = row0 / step.T * step.T, key_hi = min(row0 + Rows, rows);
  float* const lnp = scratch + scratch_floats(Rows, kThreads, step.T);
  // Where the host put them (base_bytes: after the parameters when those are staged), or not staged (< 0).
  const bool staged_qkv = qkv_offset >= 0;
  float* const qkv_s = reinterpret_cast<float*>(reinterpret_cast<char*>(smem4) + (staged_qkv ? qkv_offset : 0));
  // The next step may launch now (fused_layer_forward launches steps as programmatic dependents): its CTAs take
  // idle SMs and copy in their parameters while this step runs, and wait below until it has completed.
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  if (Cluster == 1 && threadIdx.x == 0) {  // before any thread waits: a __syncthreads follows below
    bulk.init();
    early.init();
  }

  // The parameters' copies start here and are waited for (wait_params) before the first GEMM or layer norm.
  const StepParams<P> params = staged ? stage_params<P, Cluster, kThreads>(step, rank, lnp, bulk)
                                      : global_params<P, Cluster>(step, rank);
  // Everything after this reads what the previous kernels wrote (tokens, the residual, q, k, v): wait until they
  // have completed and their writes are visible.
  FTL(1);
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  FTL(2);
  if (Cluster == 1 && threadIdx.x == 0) {
    if (!first && row0 < rows) {
      early.copy(xs, step.residual + static_cast<long long>(row0) * C, (key_hi - row0) * C * sizeof(float));
      if (staged_qkv) {
        early.copy(qkv_s, step.qkv_in + static_cast<long long>(key_lo) * 3 * C,
                   (key_hi - key_lo) * 3 * C * sizeof(float));
      }
    }
    early.arrive();
  }
  const auto wait_params = [&] {
    if (!staged) return;
    if constexpr (Cluster == 1) {
      bulk.wait();
    } else {
      cp_async_wait_all();
    }
  };
  const auto store_u = [&](int r, int c, float v) { u[c * Rows + r] = v; };
  // This CTA's n columns [rank * n, (rank + 1) * n) of a x g.w for its rows (scalars captured by value: with [&] the
  // cluster kernels spilled more registers).
  const auto gemm = [scratch, rank, row0, rows, C, staged](const float* a, const typename StepParams<P>::Gemm& g,
                                                           int K, int n, Epilogue kind, float* dst) {
    cta_gemm<P, Rows, Cluster, kThreads>(a, g.w, staged, g.ldw, K, rank * n, n, scratch,
                                         GemmOutput<P>{kind, g.bias, dst, row0, rows, C});
  };

  if (first) {  // the encoder
    for (int i = threadIdx.x; i < Rows * C; i += kThreads) {
      const int m = row0 + i / C, c = i % C;
      xs[i] = m < rows ? to_float(step.wte[static_cast<long long>(step.tokens[m]) * C + c]) +
                             to_float(step.wpe[(m % step.T) * C + c])
                       : 0.f;
    }
    __syncthreads();  // also: the bulk copies' barrier is initialised before anyone waits on it
    wait_params();
    __syncthreads();
  } else {
    if constexpr (Cluster == 1) {
      for (int i = max(0, rows - row0) * C + threadIdx.x; i < Rows * C; i += kThreads) xs[i] = 0.f;  // no rows
      __syncthreads();
      early.wait();
      FTL(3);
    } else {
      for (int i = threadIdx.x; i < Rows * C; i += kThreads) {
        const int m = row0 + i / C;
        xs[i] = m < rows ? step.residual[static_cast<long long>(row0) * C + i] : 0.f;
      }
    }
    sync_cluster<Cluster>();  // every CTA of the cluster runs before any writes into its shared memory

    // Attention: the (row, head) pairs spread over the cluster's warps; each output goes to every CTA's u.
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float q_scale = static_cast<float>(M_LOG2E) * rsqrtf(static_cast<float>(HS));
    for (int item = rank * kWarps + warp; item < Rows * step.NH; item += Cluster * kWarps) {
      const int r = item % Rows, hd = item / Rows, m = row0 + r;
      float out[(HS + 31) / 32] = {};
      if (m < rows && staged_qkv) {
        attend<HS, int>(in_shared(qkv_s), key_lo, m / step.T, m % step.T, step.T, C, hd, q_scale,
                        scratch + warp * step.T, out);
      } else if (m < rows) {
        attend<HS, long long>(step.qkv_in, 0, m / step.T, m % step.T, step.T, C, hd, q_scale, scratch + warp * step.T,
                              out);
      }
#pragma unroll
      for (int e = 0; e < (HS + 31) / 32; ++e) {
        const int d = lane % HS + 32 * e;
        if (lane < HS || e > 0) store_to_cluster<Cluster>(u + (hd * HS + d) * Rows + r, out[e]);
      }
    }
    FTL(4);
    wait_params();
    sync_cluster<Cluster>();
    FTL(5);

    // Attention projection, bias and residual add: this CTA's columns of xs, into every CTA's xs.
    gemm(u, params.proj, C, n_proj, Epilogue::kResidual, xs);
    sync_after_gemm<Cluster>();
    FTL(6);

    layernorm_rows<Rows, kThreads>(xs, C, params.ln2_w, params.ln2_b, 0, 1, store_u);
    __syncthreads();
    FTL(7);
#ifdef VTOOLS_FUSED_TIMELINE
    layernorm_rows<Rows, kThreads>(xs, C, params.ln2_w, params.ln2_b, 0, 1, store_u);
    __syncthreads();
#endif
    FTL(8);
    gemm(u, params.fc, C, n_fc, Epilogue::kGelu, h);
    sync_after_gemm<Cluster>();
    FTL(9);
#ifdef VTOOLS_FUSED_TIMELINE
    gemm(u, params.fc, C, n_fc, Epilogue::kGelu, h);
    sync_after_gemm<Cluster>();
#endif
    FTL(10);

    gemm(h, params.fc_proj, 4 * C, n_proj, Epilogue::kResidual, xs);
    sync_after_gemm<Cluster>();  // the last remote write: no CTA leaves while another may still write into it
    FTL(11);
  }

  if (!last) {  // the next layer's first half
    layernorm_rows<Rows, kThreads>(xs, C, params.ln_w, params.ln_b, 0, 1, store_u);
    __syncthreads();
    FTL(12);
    gemm(u, params.qkv, C, n_qkv, Epilogue::kQkv, step.qkv_out);
    FTL(13);
    for (int i = threadIdx.x; i < (Rows / Cluster) * C; i += kThreads) {  // rows rank, rank + Cluster, ...
      const int r = rank + Cluster * (i / C), c = i % C, m = row0 + r;
      if (m < rows) step.residual[static_cast<long long>(m) * C + c] = xs[r * C + c];
    }
  } else {  // the final layer norm, rows rank, rank + Cluster, ... written by this CTA
    layernorm_rows<Rows, kThreads>(xs, C, params.ln_w, params.ln_b, rank, Cluster, [&](int r, int c, float v) {
      const int m = row0 + r;
      if (m >= rows) return;
      if constexpr (std::is_same_v<P, float>) {
        if (step.split_head) return store_normalised<true>(step.head_out + static_cast<long long>(m) * 3 * C, c, C, v);
      }
      step.head_out[static_cast<long long>(m) * C + c] = from_float<P>(v);
    });
  }
#ifdef VTOOLS_FUSED_TIMELINE
  FTL(14);
  if (threadIdx.x == 0 && (blockIdx.x == 0 || blockIdx.x == gridDim.x - 1)) {
    const unsigned call = atomicAdd(&g_fused_calls, 1);
    if (call % 97 < 16) {
      long long d[15], prev = ftl[0];
      for (int i = 1; i < 15; ++i) {
        d[i] = ftl[i] ? ftl[i] - prev : -1;
        if (ftl[i]) prev = ftl[i];
      }
      printf("FTL call %u blk %d/%d first %d last %d C %d rows %d g0 %llu gwait %llu gend %llu | stage %lld wait %lld "
             "early %lld attn %lld params %lld proj %lld ln2 %lld ln2b %lld fc %lld fcb %lld fcproj %lld ln1 %lld "
             "qkv %lld out %lld\n",
             call, blockIdx.x, gridDim.x, first, last, C, Rows, ftg[0] % 100000000ull, ftg[2] - ftg[0],
             ftg[14] - ftg[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13],
             d[14]);
    }
  }
#endif
}

template <typename P>
using FusedKernel = void (*)(FusedLayerStep<P>, bool, int);

template <typename P, FusedLayout L>
FusedKernel<P> fused_kernel_for(int hs) {
  switch (hs) {
    case 16: return fused_layer_kernel<P, 16, L>;
    case 32: return fused_layer_kernel<P, 32, L>;
    case 64: return fused_layer_kernel<P, 64, L>;
    default: return nullptr;
  }
}

/// Rows per cluster, CTAs per cluster, threads per CTA and CTAs per SM of `layout`.
struct Shape {
  int rows, cluster, threads, blocks_per_sm;
};
template <FusedLayout L>
Shape shape() {
  using G = Geometry<L>;
  return {G::kRows, G::kCluster, G::kThreads, G::kBlocksPerSm};
}
Shape shape_of(FusedLayout layout) {
  switch (layout) {
    case FusedLayout::kBlockRows: return shape<FusedLayout::kBlockRows>();
    case FusedLayout::kBlockRowPairs: return shape<FusedLayout::kBlockRowPairs>();
    default: return shape<FusedLayout::kClusterColumns>();
  }
}
/// Shared memory of a CTA without staged parameters, in floats.
int smem_floats(FusedLayout layout, int C, int T) {
  const Shape g = shape_of(layout);
  return smem_floats(C, g.rows, g.threads, T);
}

/// Shared memory of a CTA with a step's parameters staged (see staged_elems), for width C and weights of `elem`
/// bytes; whether they are staged (it fits); the bytes a CTA takes.
std::size_t staged_bytes(FusedLayout layout, int C, int T, std::size_t elem) {
  const Shape g = shape_of(layout);
  return sizeof(float) * (static_cast<std::size_t>(smem_floats(layout, C, T)) + 4 * C) +
         elem * staged_elems(C, g.cluster);
}
bool staged(FusedLayout layout, int C, int T, std::size_t elem) {
  return staged_bytes(layout, C, T, elem) <= max_smem_bytes(shape_of(layout).blocks_per_sm);
}
/// Bytes of the attention's q, k, v rows staged after the rest of a block layout's shared memory (base_bytes): its
/// rows' sequence up to them.
std::size_t qkv_bytes(FusedLayout layout, int C, int T) {
  return sizeof(float) * (T + shape_of(layout).rows - 1) * 3 * static_cast<std::size_t>(C);
}
/// Shared memory of a CTA before the staged q, k, v rows: with its parameters when they fit, else without.
std::size_t base_bytes(FusedLayout layout, int C, int T, std::size_t elem) {
  return staged(layout, C, T, elem) ? staged_bytes(layout, C, T, elem)
                                    : sizeof(float) * static_cast<std::size_t>(smem_floats(layout, C, T));
}
/// Whether a block layout stages them too (they fit beside the rest).
bool staged_qkv(FusedLayout layout, int C, int T, std::size_t elem) {
  return shape_of(layout).cluster == 1 &&
         base_bytes(layout, C, T, elem) + qkv_bytes(layout, C, T) <= max_smem_bytes(shape_of(layout).blocks_per_sm);
}
std::size_t smem_bytes(FusedLayout layout, int C, int T, std::size_t elem) {
  return base_bytes(layout, C, T, elem) + (staged_qkv(layout, C, T, elem) ? qkv_bytes(layout, C, T) : 0);
}

/// The kernel for `layout`, width C, NH heads and sequences of T, or nullptr when fused_layer_forward does not take
/// them.
template <typename P>
FusedKernel<P> kernel_for_shape(FusedLayout layout, int C, int NH, int T) {
  if (NH <= 0 || C <= 0 || C % NH != 0 || C % 8 != 0 || C > kMaxFusedWidth || T > kMaxFusedSeq) return nullptr;
  switch (layout) {
    case FusedLayout::kBlockRows: return fused_kernel_for<P, FusedLayout::kBlockRows>(C / NH);
    case FusedLayout::kBlockRowPairs: return fused_kernel_for<P, FusedLayout::kBlockRowPairs>(C / NH);
    default: return fused_kernel_for<P, FusedLayout::kClusterColumns>(C / NH);
  }
}
}  // namespace

template <typename P>
bool fused_layer_ready(FusedLayout layout, int C, int NH, int T) {
  const FusedKernel<P> kernel = kernel_for_shape<P>(layout, C, NH, T);
  if (kernel == nullptr) return false;
  // The kernel may take up to 227 KB (the bytes of a launch depend on T): a larger limit than any launch needs.
  const std::size_t bytes = smem_bytes(layout, C, T, sizeof(P));
  const int cap = static_cast<int>(max_smem_bytes(1));
  if (bytes > max_smem_bytes(1) ||
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, cap) != cudaSuccess) {
    (void)cudaGetLastError();  // too much shared memory for this device: not an error, the unfused forward runs
    return false;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(shape_of(layout).cluster);
  config.blockDim = dim3(shape_of(layout).threads);
  config.dynamicSmemBytes = bytes;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return clusters > 0;
}

template <typename P>
void fused_layer_forward(const FusedLayerStep<P>& step, cudaStream_t stream) {
  const std::string shape = std::string(fused_layout_name(step.layout)) + " B=" + std::to_string(step.B) +
                            " T=" + std::to_string(step.T) + " C=" + std::to_string(step.C) +
                            " NH=" + std::to_string(step.NH);
  const FusedKernel<P> kernel = kernel_for_shape<P>(step.layout, step.C, step.NH, step.T);
  if (kernel == nullptr) {
    throw Error(ExitCode::kInternal, "fused_layer_forward does not take " + shape + " (fused_layer_ready says so)");
  }
  const int rows = step.B * step.T;
  if (rows == 0) return;
  const Shape g = shape_of(step.layout);
  const int clusters = (rows + g.rows - 1) / g.rows;
  const int qkv_offset = staged_qkv(step.layout, step.C, step.T, sizeof(P))
                             ? static_cast<int>(base_bytes(step.layout, step.C, step.T, sizeof(P)))
                             : -1;
  // Every step after the first is a programmatic dependent of the one before (see griddepcontrol in the kernel). The
  // cluster shape is the kernel's own (__cluster_dims__).
  const std::string what = "fused_layer_kernel " + shape;
  launch_kernel(kernel, dim3(clusters * g.cluster), dim3(g.threads), smem_bytes(step.layout, step.C, step.T, sizeof(P)),
                stream, step.tokens == nullptr, what.c_str(), step, staged(step.layout, step.C, step.T, sizeof(P)),
                qkv_offset);
}

const char* fused_layout_name(FusedLayout layout) {
  switch (layout) {
    case FusedLayout::kBlockRows: return "block rows";
    case FusedLayout::kBlockRowPairs: return "block row pairs";
    default: return "cluster columns";
  }
}

template bool fused_layer_ready<float>(FusedLayout, int, int, int);
template bool fused_layer_ready<__nv_bfloat16>(FusedLayout, int, int, int);
template void fused_layer_forward<float>(const FusedLayerStep<float>&, cudaStream_t);
template void fused_layer_forward<__nv_bfloat16>(const FusedLayerStep<__nv_bfloat16>&, cudaStream_t);

}  // namespace vtools::vbench::cuda
