// cuda::fused_layer_forward: for small models, the forward as n_layer + 1 kernels (and the LM head GEMM) instead of
// 3 + 7 n_layer. At B=4 T=64 every kernel of the unfused forward costs ~2 us however little it computes (gpt_nano
// bf16: 23 kernels of 1.9-2.7 us on the H100), so small models are bound by their launch count, not by their FLOPs.
//
// One launch is a "step": the second half of layer l (attention, its projection and residual add, layer norm 2, the
// MLP and its residual add) and the first half of layer l + 1 (layer norm 1 and the qkv GEMM), or the final layer
// norm after the last layer. Attention needs every earlier row's keys and values, so the kernel boundary sits just
// before it; everything else in a step is row-local. The first step starts with the encoder instead.
//
// A thread-block cluster of kCluster CTAs owns kRows consecutive rows (tokens). Every CTA keeps all kRows residual
// rows in shared memory and computes 1/kCluster of each GEMM's columns for them, then writes its results into
// every CTA's shared memory (distributed shared memory) and meets the others at a cluster barrier: 5 barriers per
// step and no global round trip inside it. Layer norms are computed by every CTA for all of its rows (they are
// tiny). q, k and v go to global memory as fp32, double-buffered by step parity (other clusters still read the
// previous layer's while a fast cluster writes the next), and so does the residual at the end of a step.
//
// Math is fp32 on CUDA cores in every dtype (bf16 weights are widened as loaded), so in bf16 this path is more
// precise than the unfused one. A step's weight slices, biases and layer-norm parameters are copied into shared
// memory by cp.async as it starts where they fit at two CTAs per SM (small widths), else read from global
// memory, kBatch loads in flight per thread. The A operand sits in shared memory transposed ([k][row]), so that one
// k step reads the 16 rows as four float4 broadcasts. Small K x N slices leave threads idle; they split K and add up
// through shared memory.
//
// Measured (H100, B=4 T=64, median of 15 replays at prepare, fused vs unfused): gpt_nano fp32 114.4 vs 127.5 us,
// gpt_tile_small fp32 150.9 vs 169.3; slower in every other seed (gpt_nano bf16 86.5 vs 66.8, gpt_tile_large bf16
// 650 vs 190), so CudaBackend keeps it only where it wins. A step takes ~19 us on gpt_nano: ncu shows chains of
// dependent round trips (global loads, five cluster barriers) and instruction-cache misses ("no instruction" was
// 40% of stalls before the GEMM became one non-inlined function) at 2 warps per scheduler. Tried and dropped: the
// whole body as one kernel with a cluster per sequence (no kernel boundary before attention; 32 CTAs for B=4):
// gpt_nano fp32 220.8 vs 127.6 us, every CTA doing 4x the rows' redundant layer norms and 64-row GEMM slices.
#include <cooperative_groups.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/cuda/kernels.hpp"

namespace cg = cooperative_groups;

namespace vtools::vbench::cuda {

namespace {
constexpr int kRows = 16;    // rows per cluster
constexpr int kCluster = 8;  // CTAs per cluster (the portable maximum)
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kBatch = 8;  // weight loads in flight per thread in a GEMM; every K is a multiple of it

/// Shared memory of one CTA in floats: the residual rows xs[kRows][C], the GEMM input u[C][kRows] (a layer norm's
/// or attention's output, transposed), the MLP hidden h[4C][kRows] and scratch[kThreads * kRows] (a GEMM's split-K
/// partials, or each warp's attention probabilities: kMaxFusedSeq per warp).
constexpr int smem_floats(int C) { return kRows * C + C * kRows + 4 * C * kRows + kThreads * kRows; }
/// When they fit (kMaxSmemBytes), a step's parameters follow, copied in by cp.async as the step starts, so that no
/// GEMM or layer norm waits on a global load: the four layer-norm vectors ln2_w, ln2_b, ln_w, ln_b (fp32 [C] each),
/// then in the weights' type the CTA's slices of attn_proj [C][C/8], fc [C][C/2], fc_proj [4C][C/8] and qkv
/// [C][3C/8], then their biases' slices.
constexpr int staged_elems(int C) { return 3 * C * C / 2 + 9 * C / 8; }
// Two CTAs per SM: with one, 16 clusters of 8 (B=4, T=64) did not all fit on the H100's GPCs at once and ran in two
// waves (ncu: SMs active half the elapsed cycles). The H100 has 228 KB per SM, 1 KB of it reserved per block.
constexpr int kBlocksPerSm = 2;
constexpr std::size_t kMaxSmemBytes = 228 * 1024 / kBlocksPerSm - 1024;
static_assert(kThreads * kRows >= kWarps * kMaxFusedSeq, "the attention probabilities fit in the scratch");

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

/// The CTA's columns [n0, n0 + Nc) of A W for the kRows rows: A is u-shaped ([K][kRows] in shared memory), W points
/// at column n0 of the weights (global [K][N], ldw = N, or a staged slice, ldw = Nc); `out` says where each result
/// goes. Nc <= kThreads, K a multiple of kBatch; every thread must call. Threads split K when Nc is small, and all
/// partial sums pass through `scratch` so that the epilogue is one loop: the kernel's steps run once each, so its
/// code size (instruction fetch) costs more than this.
template <typename P>
__device__ __noinline__ void cta_gemm(const float* a, const P* __restrict__ W, int ldw, int K, int n0, int Nc,
                                      float* scratch, GemmOutput<P> out) {
  const int splits = max(1, min(kThreads / Nc, K / kBatch));
  const int chunk = ((K + splits - 1) / splits + kBatch - 1) / kBatch * kBatch;
  const int col = threadIdx.x % Nc, s = threadIdx.x / Nc;
  if (s < splits) {
    float acc[kRows] = {};
    const int k_end = min(K, (s + 1) * chunk);
    const P* w = W + col;
    for (int k0 = s * chunk; k0 < k_end; k0 += kBatch) {
      float wk[kBatch];
#pragma unroll
      for (int i = 0; i < kBatch; ++i) wk[i] = to_float(w[(k0 + i) * ldw]);
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const float4* ak = reinterpret_cast<const float4*>(a + (k0 + i) * kRows);
#pragma unroll
        for (int q = 0; q < kRows / 4; ++q) {
          const float4 v = ak[q];
          acc[4 * q] += v.x * wk[i];
          acc[4 * q + 1] += v.y * wk[i];
          acc[4 * q + 2] += v.z * wk[i];
          acc[4 * q + 3] += v.w * wk[i];
        }
      }
    }
    float4* partial = reinterpret_cast<float4*>(scratch + (s * Nc + col) * kRows);
#pragma unroll
    for (int q = 0; q < kRows / 4; ++q) {
      partial[q] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    }
  }
  __syncthreads();
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < Nc * kRows; i += kThreads) {
    const int c = i / kRows, r = i % kRows, n = n0 + c;
    float v = to_float(out.bias[c]);
    for (int t = 0; t < splits; ++t) v += scratch[(t * Nc + c) * kRows + r];
    float* dst = nullptr;
    if (out.kind == Epilogue::kQkv) {
      if (out.row0 + r < out.rows) out.dst[static_cast<long long>(out.row0 + r) * 3 * out.C + n] = v;
      continue;
    } else if (out.kind == Epilogue::kResidual) {
      dst = out.dst + r * out.C + n;
      v += *dst;
    } else {
      dst = out.dst + n * kRows + r;
      v = gelu_tanh(v);
    }
#pragma unroll
    for (int q = 0; q < kCluster; ++q) *cluster.map_shared_rank(dst, q) = v;
  }
  __syncthreads();  // a and scratch are rewritten next
}

/// Starts cp.async copies of W[k][n0 + j] (W is [K][N]) into dst[k * Nc + j], for k < K, j < Nc, 4 bytes each
/// (Nc and n0 even for bf16).
template <typename P>
__device__ __forceinline__ void stage_slice(P* dst, const P* W, int K, int N, int n0, int Nc) {
  constexpr int kPerWord = 4 / sizeof(P);
  const int words = Nc / kPerWord;
  for (int i = threadIdx.x; i < K * words; i += kThreads) {
    const int k = i / words, j = (i % words) * kPerWord;
    const auto to = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst + k * Nc + j));
    const P* from = W + static_cast<long long>(k) * N + n0 + j;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(from));
  }
}

/// Layer norm (eps 1e-5, biased variance, as layernorm_forward) of the rows first, first + stride, ... < kRows of
/// xs, one warp per row; calls store(r, c, value) for each value.
template <typename Store>
__device__ __forceinline__ void layernorm_rows(const float* xs, int C, const float* __restrict__ weight,
                                               const float* __restrict__ bias, int first, int stride, Store store) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int r = first + warp * stride; r < kRows; r += kWarps * stride) {
    const float* x = xs + r * C;
    float sum = 0.f;
    for (int c = lane; c < C; c += 32) sum += x[c];
    const float mean = warp_sum(sum) / C;
    float squares = 0.f;
    for (int c = lane; c < C; c += 32) squares += (x[c] - mean) * (x[c] - mean);
    const float rstd = rsqrtf(warp_sum(squares) / C + 1e-5f);
    for (int c = lane; c < C; c += 32) store(r, c, (x[c] - mean) * rstd * weight[c] + bias[c]);
  }
}

/// One warp's causal attention for query row t of batch b, head hd. Scores a lane per key into p[0..t] (scaled by
/// log2(e)/sqrt(HS) for exp2f), softmax over the warp, then P V a lane per output dimension (HS = 16: the two
/// half-warps take alternate keys). Lane l returns dimension l % HS (and l + 32 in out[1] when HS = 64).
template <int HS>
__device__ __forceinline__ void attend(const float* __restrict__ qkv, int b, int t, int T, int C, int hd,
                                       float q_scale, float* p, float (&out)[(HS + 31) / 32]) {
  const int lane = threadIdx.x % 32;
  const long long stride = 3LL * C;
  const float* base = qkv + static_cast<long long>(b) * T * stride + hd * HS;  // row j: q, then k at +C, v at +2C
  float q[HS];
#pragma unroll
  for (int d = 0; d < HS; d += 4) {
    const float4 v = *reinterpret_cast<const float4*>(base + t * stride + d);
    q[d] = v.x * q_scale, q[d + 1] = v.y * q_scale, q[d + 2] = v.z * q_scale, q[d + 3] = v.w * q_scale;
  }
  float m = -INFINITY;
  for (int j = lane; j <= t; j += 32) {
    const float* k = base + j * stride + C;
    float s = 0.f;
#pragma unroll
    for (int d = 0; d < HS; d += 4) {
      const float4 kv = *reinterpret_cast<const float4*>(k + d);
      s += q[d] * kv.x + q[d + 1] * kv.y + q[d + 2] * kv.z + q[d + 3] * kv.w;
    }
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
  const float* v = base + 2 * C + lane % HS;
#pragma unroll
  for (int e = 0; e < (HS + 31) / 32; ++e) {
    float acc = 0.f;
#pragma unroll 16
    for (int j = lane / HS % kGroups; j <= t; j += kGroups) acc += p[j] * v[j * stride + 32 * e];
    for (int offset = 16; offset >= HS; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    out[e] = acc * inv;
  }
}

template <typename P, int HS>
__global__ void __cluster_dims__(kCluster, 1, 1) __launch_bounds__(kThreads, kBlocksPerSm)
    fused_layer_kernel(FusedLayerStep<P> step, bool staged) {
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  const int C = step.C, rows = step.B * step.T;
  float* xs = smem;
  float* u = xs + kRows * C;
  float* h = u + C * kRows;
  float* scratch = h + 4 * C * kRows;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int row0 = static_cast<int>(blockIdx.x / kCluster) * kRows;
  const int n_proj = C / kCluster, n_fc = 4 * C / kCluster, n_qkv = 3 * C / kCluster;
  const bool first = step.tokens != nullptr, last = step.attn_w == nullptr;

  // Where each GEMM reads its weights and bias, and each layer norm its parameters: global memory, or the staged
  // copies (see staged_elems), whose copies start here and are waited for after the attention.
  struct Params {
    const P* w;
    int ldw;
    const P* bias;
  };
  Params proj{}, fc{}, fc_proj{}, qkv{};
  const float *ln2_w = step.ln2_w, *ln2_b = step.ln2_b, *ln_w = step.ln_w, *ln_b = step.ln_b;
  if (!first) {
    proj = {step.attn_proj_w + rank * n_proj, C, step.attn_proj_b + rank * n_proj};
    fc = {step.fc_w + rank * n_fc, 4 * C, step.fc_b + rank * n_fc};
    fc_proj = {step.fc_proj_w + rank * n_proj, C, step.fc_proj_b + rank * n_proj};
  }
  if (!last) qkv = {step.attn_w + rank * n_qkv, 3 * C, step.attn_b + rank * n_qkv};
  if (staged) {
    float* lnp = scratch + kThreads * kRows;
    P* s_proj = reinterpret_cast<P*>(lnp + 4 * C);
    P* s_fc = s_proj + C * n_proj;
    P* s_fc_proj = s_fc + C * n_fc;
    P* s_qkv = s_fc_proj + 4 * C * n_proj;
    P* s_bias = s_qkv + C * n_qkv;  // [n_proj | n_fc | n_proj | n_qkv]
    if (!first) {
      stage_slice(lnp, step.ln2_w, 1, C, 0, C);
      stage_slice(lnp + C, step.ln2_b, 1, C, 0, C);
      stage_slice(s_proj, step.attn_proj_w, C, C, rank * n_proj, n_proj);
      stage_slice(s_fc, step.fc_w, C, 4 * C, rank * n_fc, n_fc);
      stage_slice(s_fc_proj, step.fc_proj_w, 4 * C, C, rank * n_proj, n_proj);
      stage_slice(s_bias, step.attn_proj_b, 1, C, rank * n_proj, n_proj);
      stage_slice(s_bias + n_proj, step.fc_b, 1, 4 * C, rank * n_fc, n_fc);
      stage_slice(s_bias + n_proj + n_fc, step.fc_proj_b, 1, C, rank * n_proj, n_proj);
      proj = {s_proj, n_proj, s_bias};
      fc = {s_fc, n_fc, s_bias + n_proj};
      fc_proj = {s_fc_proj, n_proj, s_bias + n_proj + n_fc};
      ln2_w = lnp, ln2_b = lnp + C;
    }
    stage_slice(lnp + 2 * C, step.ln_w, 1, C, 0, C);
    stage_slice(lnp + 3 * C, step.ln_b, 1, C, 0, C);
    ln_w = lnp + 2 * C, ln_b = lnp + 3 * C;
    if (!last) {
      stage_slice(s_qkv, step.attn_w, C, 3 * C, rank * n_qkv, n_qkv);
      stage_slice(s_bias + 2 * n_proj + n_fc, step.attn_b, 1, 3 * C, rank * n_qkv, n_qkv);
      qkv = {s_qkv, n_qkv, s_bias + 2 * n_proj + n_fc};
    }
  }

  if (first) {  // the encoder
    for (int i = threadIdx.x; i < kRows * C; i += kThreads) {
      const int m = row0 + i / C, c = i % C;
      xs[i] = m < rows ? to_float(step.wte[static_cast<long long>(step.tokens[m]) * C + c]) +
                             to_float(step.wpe[(m % step.T) * C + c])
                       : 0.f;
    }
    cp_async_wait_all();
    __syncthreads();
  } else {
    for (int i = threadIdx.x; i < kRows * C; i += kThreads) {
      const int m = row0 + i / C;
      xs[i] = m < rows ? step.residual[static_cast<long long>(row0) * C + i] : 0.f;
    }
    cluster.sync();  // every CTA of the cluster runs before any writes into its shared memory

    // Attention: the (row, head) pairs spread over the cluster's warps; each output goes to every CTA's u.
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float q_scale = static_cast<float>(M_LOG2E) * rsqrtf(static_cast<float>(HS));
    for (int item = rank * kWarps + warp; item < kRows * step.NH; item += kCluster * kWarps) {
      const int r = item % kRows, hd = item / kRows, m = row0 + r;
      float out[(HS + 31) / 32] = {};
      if (m < rows) attend<HS>(step.qkv_in, m / step.T, m % step.T, step.T, C, hd, q_scale,
                               scratch + warp * kMaxFusedSeq, out);
#pragma unroll
      for (int e = 0; e < (HS + 31) / 32; ++e) {
        const int d = lane % HS + 32 * e;
        if (lane < HS || e > 0) {
          float* dst = u + (hd * HS + d) * kRows + r;
#pragma unroll
          for (int q = 0; q < kCluster; ++q) *cluster.map_shared_rank(dst, q) = out[e];
        }
      }
    }
    cp_async_wait_all();
    cluster.sync();

    // Attention projection, bias and residual add: this CTA's columns of xs, into every CTA's xs.
    cta_gemm(u, proj.w, proj.ldw, C, rank * n_proj, n_proj, scratch,
             GemmOutput<P>{Epilogue::kResidual, proj.bias, xs, row0, rows, C});
    cluster.sync();

    layernorm_rows(xs, C, ln2_w, ln2_b, 0, 1, [&](int r, int c, float v) { u[c * kRows + r] = v; });
    __syncthreads();
    cta_gemm(u, fc.w, fc.ldw, C, rank * n_fc, n_fc, scratch, GemmOutput<P>{Epilogue::kGelu, fc.bias, h, row0, rows, C});
    cluster.sync();

    cta_gemm(h, fc_proj.w, fc_proj.ldw, 4 * C, rank * n_proj, n_proj, scratch,
             GemmOutput<P>{Epilogue::kResidual, fc_proj.bias, xs, row0, rows, C});
    cluster.sync();  // the last remote write: no CTA leaves while another may still write into it
  }

  if (!last) {  // the next layer's first half
    layernorm_rows(xs, C, ln_w, ln_b, 0, 1, [&](int r, int c, float v) { u[c * kRows + r] = v; });
    __syncthreads();
    cta_gemm(u, qkv.w, qkv.ldw, C, rank * n_qkv, n_qkv, scratch,
             GemmOutput<P>{Epilogue::kQkv, qkv.bias, step.qkv_out, row0, rows, C});
    for (int i = threadIdx.x; i < (kRows / kCluster) * C; i += kThreads) {  // rows rank, rank + kCluster, ...
      const int r = rank + kCluster * (i / C), c = i % C, m = row0 + r;
      if (m < rows) step.residual[static_cast<long long>(m) * C + c] = xs[r * C + c];
    }
  } else {  // the final layer norm, rows rank, rank + kCluster, ... written by this CTA
    layernorm_rows(xs, C, ln_w, ln_b, rank, kCluster, [&](int r, int c, float v) {
      const int m = row0 + r;
      if (m >= rows) return;
      if constexpr (std::is_same_v<P, float>) {
        if (step.split_head) return store_normalised<true>(step.head_out + static_cast<long long>(m) * 3 * C, c, C, v);
      }
      step.head_out[static_cast<long long>(m) * C + c] = from_float<P>(v);
    });
  }
}

template <typename P>
using FusedKernel = void (*)(FusedLayerStep<P>, bool);

template <typename P>
FusedKernel<P> fused_kernel_for(int hs) {
  switch (hs) {
    case 16: return fused_layer_kernel<P, 16>;
    case 32: return fused_layer_kernel<P, 32>;
    case 64: return fused_layer_kernel<P, 64>;
    default: return nullptr;
  }
}

/// The kernel for width C, NH heads and sequences of T, or nullptr when fused_layer_forward does not take them.
template <typename P>
FusedKernel<P> kernel_for_shape(int C, int NH, int T) {
  if (NH <= 0 || C <= 0 || C % NH != 0 || C % kCluster != 0 || C > kMaxFusedWidth || T > kMaxFusedSeq) return nullptr;
  return fused_kernel_for<P>(C / NH);
}

/// Shared memory of a CTA with a step's parameters staged (see staged_elems), for width C and weights of `elem`
/// bytes; whether they are staged (it fits kMaxSmemBytes); the bytes a CTA takes.
std::size_t staged_bytes(int C, std::size_t elem) {
  return sizeof(float) * (static_cast<std::size_t>(smem_floats(C)) + 4 * C) + elem * staged_elems(C);
}
bool staged(int C, std::size_t elem) { return staged_bytes(C, elem) <= kMaxSmemBytes; }
std::size_t smem_bytes(int C, std::size_t elem) {
  return staged(C, elem) ? staged_bytes(C, elem) : sizeof(float) * static_cast<std::size_t>(smem_floats(C));
}
}  // namespace

template <typename P>
bool fused_layer_ready(int C, int NH, int T) {
  const FusedKernel<P> kernel = kernel_for_shape<P>(C, NH, T);
  if (kernel == nullptr) return false;
  const std::size_t bytes = smem_bytes(C, sizeof(P));
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) !=
      cudaSuccess) {
    (void)cudaGetLastError();  // too much shared memory for this device: not an error, the unfused forward runs
    return false;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(kCluster);
  config.blockDim = dim3(kThreads);
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
  const std::string shape = "B=" + std::to_string(step.B) + " T=" + std::to_string(step.T) + " C=" +
                            std::to_string(step.C) + " NH=" + std::to_string(step.NH);
  const FusedKernel<P> kernel = kernel_for_shape<P>(step.C, step.NH, step.T);
  if (kernel == nullptr) {
    throw Error(ExitCode::kInternal, "fused_layer_forward does not take " + shape + " (fused_layer_ready says so)");
  }
  const int rows = step.B * step.T;
  if (rows == 0) return;
  const int clusters = (rows + kRows - 1) / kRows;
  kernel<<<clusters * kCluster, kThreads, smem_bytes(step.C, sizeof(P)), stream>>>(step, staged(step.C, sizeof(P)));
  check_launch("fused_layer_kernel", shape);
}

template bool fused_layer_ready<float>(int, int, int);
template bool fused_layer_ready<__nv_bfloat16>(int, int, int);
template void fused_layer_forward<float>(const FusedLayerStep<float>&, cudaStream_t);
template void fused_layer_forward<__nv_bfloat16>(const FusedLayerStep<__nv_bfloat16>&, cudaStream_t);

}  // namespace vtools::vbench::cuda
