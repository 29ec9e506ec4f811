// cuda::layernorm_forward: layer norm with the previous sublayer's residual add fused in (peer of cpu
// layernorm_forward). The decision: the residual stream stays fp32 and is updated in place (`+=`) here, so each
// sublayer's projection writes its output once, as fp32 split-K partial products, and they, the projection's bias and
// the residual are summed here, in the kernel that reads them anyway; mean and variance are fp32.
// One block per row. Kernel 3 (rows up to kThreads * kMaxPerThread values) keeps the row and its weight and bias in
// registers, all loaded at once (one memory round trip per call; 4 consecutive values a load where C is a multiple
// of 4); kernel 2 (any C) stages the row in shared memory and reads weight and bias after the reductions. Rows of up
// to 1024 values (a multiple of 4) also run in fitted blocks (LayerNormBlocks::kFitted): as many warps as the row's
// groups of 4 need, at most 2 blocks per SM; which pays depends on the model (layernorm.hpp). Per-call times of each
// kernel: bench/RESULTS.md, sessions 3 and 4.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/ops/layernorm.hpp"
#include "tools/vbench/cuda/programmatic.cuh"

namespace vtools::vbench::cuda {

namespace {
constexpr int kThreads = 256;  // per row in kernel 2, the most per row in kernel 3
constexpr int kWarps = kThreads / 32;
constexpr int kMaxPerThread = 8;  // kernel 3 takes rows of up to kThreads * kMaxPerThread = 2048 values

/// Sum over the block of R threads; every thread gets the result. `scratch` holds R / 32 floats.
template <int R>
__device__ __forceinline__ float block_sum(float x, float* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  x = warp_sum(x);
  if constexpr (R == 32) return x;
  __syncthreads();  // scratch may still be read from the previous reduction
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  float total = 0.f;
#pragma unroll
  for (int w = 0; w < R / 32; ++w) total += scratch[w];
  return total;
}

/// v[0..V) = p[0..V) as floats, one 16-byte (fp32) or 8-byte (bf16) load when V is 4 (p then aligned to it).
template <int V, typename T>
__device__ __forceinline__ void load_vec(float (&v)[V], const T* p) {
  if constexpr (V == 4 && std::is_same_v<T, float>) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else if constexpr (V == 4) {
    const uint2 q = *reinterpret_cast<const uint2*>(p);
    const float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&q.x));
    const float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&q.y));
    v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] = to_float(p[e]);
  }
}

/// p[0..V) = v as A, one store when V is 4 (the 3xTF32 row: see store_normalised).
template <bool kSplit, int V, typename A>
__device__ __forceinline__ void store_vec(A* out_row, int c, int C, const float (&v)[V]) {
  if constexpr (V == 4 && !kSplit && std::is_same_v<A, float>) {
    *reinterpret_cast<float4*>(out_row + c) = make_float4(v[0], v[1], v[2], v[3]);
  } else if constexpr (V == 4 && !kSplit) {
    uint2 q;
    *reinterpret_cast<__nv_bfloat162*>(&q.x) = __floats2bfloat162_rn(v[0], v[1]);
    *reinterpret_cast<__nv_bfloat162*>(&q.y) = __floats2bfloat162_rn(v[2], v[3]);
    *reinterpret_cast<uint2*>(out_row + c) = q;
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) store_normalised<kSplit>(out_row, c + e, C, v[e]);
  }
}
}  // namespace

/// The residual row value at column c after adding the sublayer output (kernel 2's one-at-a-time form).
template <typename A>
__device__ __forceinline__ float added(const float* r, const SublayerOutput<A>& add, long long row, int rows, int C,
                                       int c) {
  if (add.tokens != nullptr) {
    return to_float(add.wte[add.tokens[row] * static_cast<long long>(C) + c]) +
           to_float(add.wpe[(row % add.T) * C + c]);
  }
  float x = r[c];
  if (add.partials != nullptr) {
    if (add.bias != nullptr) x += to_float(add.bias[c]);
    for (int s = 0; s < add.splits; ++s) x += add.partials[(s * static_cast<long long>(rows) + row) * C + c];
  }
  return x;
}

template <typename A, bool kSplit>
__global__ void layernorm_forward_kernel2(A* __restrict__ out, float* __restrict__ residual, SublayerOutput<A> add,
                                          const float* __restrict__ weight, const float* __restrict__ bias, int C) {
  extern __shared__ float row_values[];  // [C]
  __shared__ float scratch[kWarps];
  programmatic_start();
  const long long row = blockIdx.x;
  float* r = residual + row * C;
  float sum = 0.f;
  for (int c = threadIdx.x; c < C; c += kThreads) {
    const float x = added(r, add, row, gridDim.x, C, c);
    if (add.partials != nullptr || add.tokens != nullptr) r[c] = x;
    row_values[c] = x;
    sum += x;
  }
  const float mean = block_sum<kThreads>(sum, scratch) / C;
  float squares = 0.f;
  for (int c = threadIdx.x; c < C; c += kThreads) {
    const float dev = row_values[c] - mean;
    squares += dev * dev;
  }
  const float rstd = rsqrtf(block_sum<kThreads>(squares, scratch) / C + 1e-5f);
  A* o = out + row * (kSplit ? 3 * C : C);
  for (int c = threadIdx.x; c < C; c += kThreads)
    store_normalised<kSplit>(o, c, C, (row_values[c] - mean) * rstd * weight[c] + bias[c]);
}

/// Kernel 2's arithmetic with R threads per row, thread i owning columns i*V.., (i + R)*V.., ... (N groups of V
/// consecutive ones; V = 4, vector loads, when C is a multiple of 4) in registers.
template <typename A, int N, int V, bool kSplit, bool kEmbed, int R>
__global__ void __launch_bounds__(R)
    layernorm_forward_kernel3(A* __restrict__ out, float* __restrict__ residual, SublayerOutput<A> add,
                              const float* __restrict__ weight, const float* __restrict__ bias, int C) {
  __shared__ float scratch[R / 32];
  // The parameters (never written) into L2 before the wait for the kernel before, by the first block only: as a
  // programmatic dependent it starts during that kernel's tail, so their first, cold read is off the critical path.
  // (Loading them into registers there, in every block, made gpt2 bf16 8 us slower on the H100.)
  if (blockIdx.x == 0) {
    const int line = 32 * threadIdx.x;  // 128 bytes: 32 floats, 64 bf16; 32 * R >= C
    if (line < C) {
      asm volatile("prefetch.global.L2 [%0];" ::"l"(weight + line));
      asm volatile("prefetch.global.L2 [%0];" ::"l"(bias + line));
      if (add.bias != nullptr && line % 64 == 0) asm volatile("prefetch.global.L2 [%0];" ::"l"(add.bias + line));
    }
  }
  programmatic_start();
  const long long row = blockIdx.x;
  const long long plane = static_cast<long long>(gridDim.x) * C;  // one partial product [rows][C]
  float* r = residual + row * C;
  const bool adding = add.partials != nullptr;
  // The embedding rows (the token id is the one dependent load before them). A template parameter, not a branch
  // on add.tokens: the branch changed the code of every other layer norm, and gpt_tile_large bf16 got 5 us slower.
  const A* wte_row = kEmbed ? add.wte + add.tokens[row] * static_cast<long long>(C) : nullptr;
  const A* wpe_row = kEmbed ? add.wpe + (row % add.T) * C : nullptr;
  float x[N][V], w[N][V], b[N][V], p[kMaxSublayerSplits][N][V];
  // Every load before any use or store: they are in flight together (predicated, not branched, for the partials).
  // weight and bias do not depend on the row.
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = (threadIdx.x + i * R) * V;
    const bool in = c < C;  // C is a multiple of V
#pragma unroll
    for (int e = 0; e < V; ++e) x[i][e] = w[i][e] = b[i][e] = 0.f;
#pragma unroll
    for (int s = 0; s < kMaxSublayerSplits; ++s) {
#pragma unroll
      for (int e = 0; e < V; ++e) p[s][i][e] = 0.f;
      if (in && adding && s < add.splits) load_vec(p[s][i], add.partials + s * plane + row * C + c);
    }
    if constexpr (kEmbed) {
      if (in) {
        float pos[V];
        load_vec(x[i], wte_row + c);
        load_vec(pos, wpe_row + c);
#pragma unroll
        for (int e = 0; e < V; ++e) x[i][e] += pos[e];
      }
    }
    if (in) {
      if constexpr (!kEmbed) load_vec(x[i], r + c);
      load_vec(w[i], weight + c);
      load_vec(b[i], bias + c);
    }
    if (in && adding && add.bias != nullptr) {
      float pb[V];
      load_vec(pb, add.bias + c);
#pragma unroll
      for (int e = 0; e < V; ++e) x[i][e] += pb[e];
    }
  }
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = (threadIdx.x + i * R) * V;
#pragma unroll
    for (int s = 0; s < kMaxSublayerSplits; ++s) {
#pragma unroll
      for (int e = 0; e < V; ++e) x[i][e] += p[s][i][e];
    }
    if (c < C) {
      if (adding || kEmbed) store_vec<false>(r, c, C, x[i]);
#pragma unroll
      for (int e = 0; e < V; ++e) sum += x[i][e];
    }
  }
  const float mean = block_sum<R>(sum, scratch) / C;
  float squares = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = (threadIdx.x + i * R) * V;
    if (c < C) {
#pragma unroll
      for (int e = 0; e < V; ++e) squares += (x[i][e] - mean) * (x[i][e] - mean);
    }
  }
  const float rstd = rsqrtf(block_sum<R>(squares, scratch) / C + 1e-5f);
  A* o = out + row * (kSplit ? 3 * C : C);
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = (threadIdx.x + i * R) * V;
    if (c < C) {
      float y[V];
#pragma unroll
      for (int e = 0; e < V; ++e) y[e] = (x[i][e] - mean) * rstd * w[i][e] + b[i][e];
      store_vec<kSplit>(o, c, C, y);
    }
  }
}

namespace {
/// Dynamic shared memory that lets at most kFittedBlocksPerSm blocks of `kernel` share an SM, with the kernel's
/// attributes set for it once per device (`done`: kernel_attributes_once) (LayerNormBlocks::kFitted).
constexpr int kFittedBlocksPerSm = 2;
template <typename Kernel>
std::size_t fitted_padding(Kernel kernel, std::atomic<std::uint64_t>& done) {
  int device = 0, per_sm = 0, reserved = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice", "layernorm_forward");
  check_cuda(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
             "cudaDeviceGetAttribute", "layernorm_forward");
  check_cuda(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device),
             "cudaDeviceGetAttribute", "layernorm_forward");
  // One more block would need more than the SM has; kFittedBlocksPerSm of them (with <= 64 bytes of static
  // scratch each) fit.
  const auto smem = static_cast<std::size_t>(per_sm / (kFittedBlocksPerSm + 1) - reserved + 128);
  if (!kernel_attributes_once(kernel, done, {smem, false, true})) {
    throw Error(ExitCode::kInternal, "the device refuses the shared memory of layernorm_forward_kernel3 in fitted "
                                     "blocks (" + std::to_string(smem) + " bytes)");
  }
  return smem;
}

/// Launches kernel 3 with R threads per row and N = ceil(C / (R * V)) (N * V <= kMaxPerThread, chosen at run
/// time among the instantiations).
template <typename A, bool kSplit, bool kEmbed, int V, int R, int N = 1>
void launch_kernel3(A* out, float* residual, SublayerOutput<A> add, const float* weight, const float* bias, int rows,
                    int C, cudaStream_t stream, bool programmatic) {
  if constexpr ((N + 1) * V <= kMaxPerThread) {
    if (C > N * V * R) {
      launch_kernel3<A, kSplit, kEmbed, V, R, N + 1>(out, residual, add, weight, bias, rows, C, stream,
                                                      programmatic);
      return;
    }
  }
  launch_kernel(layernorm_forward_kernel3<A, N, V, kSplit, kEmbed, R>, rows, R, 0, stream, programmatic,
                "layernorm_forward_kernel3", out, residual, add, weight, bias, C);
}

/// Kernel 3 in fitted blocks (LayerNormBlocks::kFitted): one group of 4 values per thread, as many warps as the row
/// needs (C <= 1024, a multiple of 4), at most kFittedBlocksPerSm blocks per SM. Why both, and why not a row over
/// fewer threads with more groups each (gpt2: 4-35 us slower per forward): bench/RESULTS.md, session 16.
template <typename A, bool kSplit, bool kEmbed, int W = 1>
void launch_kernel3_fitted(A* out, float* residual, SublayerOutput<A> add, const float* weight, const float* bias,
                           int rows, int C, cudaStream_t stream, bool programmatic) {
  if constexpr (W < kWarps) {
    if (C > W * 32 * 4) {
      launch_kernel3_fitted<A, kSplit, kEmbed, W + 1>(out, residual, add, weight, bias, rows, C, stream,
                                                       programmatic);
      return;
    }
  }
  const auto kernel = layernorm_forward_kernel3<A, 1, 4, kSplit, kEmbed, 32 * W>;
  static std::atomic<std::uint64_t> attributes_done{0};  // one per instantiation, i.e. per kernel
  launch_kernel(kernel, rows, 32 * W, fitted_padding(kernel, attributes_done), stream, programmatic,
                "layernorm_forward_kernel3", out, residual, add, weight, bias, C);
}

template <bool kSplit, typename A, bool kEmbed>
void launch_kernel3_rows(A* out, float* residual, SublayerOutput<A> add, const float* weight, const float* bias,
                         int rows, int C, cudaStream_t stream, bool programmatic, LayerNormBlocks blocks) {
  if (blocks == LayerNormBlocks::kFitted && fitted_layernorm_applies(C)) {  // C <= kThreads * 4
    launch_kernel3_fitted<A, kSplit, kEmbed>(out, residual, add, weight, bias, rows, C, stream, programmatic);
  } else if (C % 4 == 0) {
    launch_kernel3<A, kSplit, kEmbed, 4, kThreads>(out, residual, add, weight, bias, rows, C, stream, programmatic);
  } else {
    launch_kernel3<A, kSplit, kEmbed, 1, kThreads>(out, residual, add, weight, bias, rows, C, stream, programmatic);
  }
}

template <bool kSplit, typename A>
void launch_layernorm(A* d_out, float* d_residual, SublayerOutput<A> add, const float* d_weight, const float* d_bias,
                      int rows, int C, cudaStream_t stream, bool programmatic, LayerNormBlocks blocks) {
  const std::string shape = "rows=" + std::to_string(rows) + " C=" + std::to_string(C);
  if (add.partials != nullptr && (add.splits < 1 || add.splits > kMaxSublayerSplits)) {
    throw Error(ExitCode::kInternal, "layernorm_forward sums 1.." + std::to_string(kMaxSublayerSplits) +
                                         " partial products, got " + std::to_string(add.splits) + " (" + shape + ")");
  }
  if (rows == 0) return;
  if (C <= kThreads * kMaxPerThread) {
    if (add.tokens != nullptr) {
      launch_kernel3_rows<kSplit, A, true>(d_out, d_residual, add, d_weight, d_bias, rows, C, stream, programmatic,
                                           blocks);
    } else {
      launch_kernel3_rows<kSplit, A, false>(d_out, d_residual, add, d_weight, d_bias, rows, C, stream, programmatic,
                                            blocks);
    }
    check_launch("layernorm_forward_kernel3", shape);
    return;
  }
  launch_kernel(layernorm_forward_kernel2<A, kSplit>, rows, kThreads, sizeof(float) * C, stream, programmatic,
                "layernorm_forward_kernel2", d_out, d_residual, add, d_weight, d_bias, C);
  check_launch("layernorm_forward_kernel2", shape);
}
}  // namespace

template <typename A>
void layernorm_forward(A* d_out, float* d_residual, SublayerOutput<A> add, const float* d_weight,
                       const float* d_bias, int rows, int C, cudaStream_t stream, bool programmatic,
                       LayerNormBlocks blocks) {
  launch_layernorm<false>(d_out, d_residual, add, d_weight, d_bias, rows, C, stream, programmatic, blocks);
}

void layernorm_forward_split_tf32(float* d_out3, float* d_residual, SublayerOutput<float> add,
                                  const float* d_weight, const float* d_bias, int rows, int C, cudaStream_t stream,
                                  LayerNormBlocks blocks) {
  launch_layernorm<true>(d_out3, d_residual, add, d_weight, d_bias, rows, C, stream, false, blocks);
}

template void layernorm_forward<float>(float*, float*, SublayerOutput<float>, const float*, const float*, int, int,
                                       cudaStream_t, bool, LayerNormBlocks);
template void layernorm_forward<__nv_bfloat16>(__nv_bfloat16*, float*, SublayerOutput<__nv_bfloat16>,
                                               const float*, const float*, int, int, cudaStream_t, bool,
                                               LayerNormBlocks);

}  // namespace vtools::vbench::cuda
