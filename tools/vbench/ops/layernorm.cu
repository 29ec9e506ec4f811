// cuda::layernorm_forward: layer norm with the previous sublayer's residual add fused in (peer of cpu
// layernorm_forward). Key decision: the residual stream stays fp32 and is updated in place (`+=`) here, so each
// sublayer's projection writes its output once, as fp32 split-K partial products, and they, the projection's bias and
// the residual are summed here, in the kernel that reads them anyway; mean and variance are fp32.
// One block per row. Kernel 3 (rows up to kThreads * kMaxPerThread values) keeps the row and its weight and bias in
// registers, all loaded at once: one memory round trip per call; kernel 2 (any C) stages the row in shared memory and
// reads weight and bias after the reductions, a second round trip: 2.19 vs 3.47 us per call on gpt2 bf16 B=4 T=64 on
// the H100 (vtrace, 2026-11-22). Kernel 1 (one warp per row, re-reading the row from global memory) took 13.7 us.
#include <cstdint>
#include <string>
#include <type_traits>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/cuda/kernels.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr int kThreads = 256;  // per row
constexpr int kWarps = kThreads / 32;
constexpr int kMaxPerThread = 8;  // kernel 3 takes rows of up to kThreads * kMaxPerThread = 2048 values

/// Sum over the block; every thread gets the result. `scratch` holds kWarps floats.
__device__ __forceinline__ float block_sum(float x, float* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  x = warp_sum(x);
  __syncthreads();  // scratch may still be read from the previous reduction
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  float total = 0.f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) total += scratch[w];
  return total;
}

/// Stores the normalised value v of column c: out[c], or with kSplit (fp32 only) the 3xTF32 row [lo | hi | hi] of
/// 3C values, hi = tf32(v), lo = tf32(v - hi) (cvt.rna, the rounding tf32_round does on the host).
template <bool kSplit, typename A>
__device__ __forceinline__ void store_normalised(A* out_row, int c, int C, float v) {
  if constexpr (kSplit) {
    static_assert(std::is_same_v<A, float>, "the 3xTF32 split is an fp32 layout");
    std::uint32_t hi = 0, lo = 0;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(v));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(lo) : "f"(v - __uint_as_float(hi)));
    out_row[c] = __uint_as_float(lo);
    out_row[C + c] = out_row[2 * C + c] = __uint_as_float(hi);
  } else {
    out_row[c] = from_float<A>(v);
  }
}
}  // namespace

/// The residual row value at column c after adding the sublayer output (kernel 2's one-at-a-time form).
template <typename A>
__device__ __forceinline__ float added(const float* r, const SublayerOutput<A>& add, long long row, int rows, int C,
                                       int c) {
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
  const long long row = blockIdx.x;
  float* r = residual + row * C;
  float sum = 0.f;
  for (int c = threadIdx.x; c < C; c += kThreads) {
    const float x = added(r, add, row, gridDim.x, C, c);
    if (add.partials != nullptr) r[c] = x;
    row_values[c] = x;
    sum += x;
  }
  const float mean = block_sum(sum, scratch) / C;
  float squares = 0.f;
  for (int c = threadIdx.x; c < C; c += kThreads) {
    const float dev = row_values[c] - mean;
    squares += dev * dev;
  }
  const float rstd = rsqrtf(block_sum(squares, scratch) / C + 1e-5f);
  A* o = out + row * (kSplit ? 3 * C : C);
  for (int c = threadIdx.x; c < C; c += kThreads)
    store_normalised<kSplit>(o, c, C, (row_values[c] - mean) * rstd * weight[c] + bias[c]);
}

/// Kernel 2's arithmetic with thread i owning columns i, i + kThreads, ... (N of them) in registers.
template <typename A, int N, bool kSplit>
__global__ void __launch_bounds__(kThreads)
    layernorm_forward_kernel3(A* __restrict__ out, float* __restrict__ residual, SublayerOutput<A> add,
                              const float* __restrict__ weight, const float* __restrict__ bias, int C) {
  __shared__ float scratch[kWarps];
  const long long row = blockIdx.x;
  const long long plane = static_cast<long long>(gridDim.x) * C;  // one partial product [rows][C]
  float* r = residual + row * C;
  const bool adding = add.partials != nullptr;
  float x[N], w[N], b[N], p[kMaxSublayerSplits][N];
  // Every load before any use or store: they are in flight together (predicated, not branched, for the partials).
  // weight and bias do not depend on the row.
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = threadIdx.x + i * kThreads;
    const bool in = c < C;
    x[i] = in ? r[c] : 0.f;
    w[i] = in ? weight[c] : 0.f;
    b[i] = in ? bias[c] : 0.f;
#pragma unroll
    for (int s = 0; s < kMaxSublayerSplits; ++s) {
      p[s][i] = in && adding && s < add.splits ? add.partials[s * plane + row * C + c] : 0.f;
    }
    if (in && adding && add.bias != nullptr) x[i] += to_float(add.bias[c]);
  }
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = threadIdx.x + i * kThreads;
#pragma unroll
    for (int s = 0; s < kMaxSublayerSplits; ++s) x[i] += p[s][i];
    if (c < C) {
      if (adding) r[c] = x[i];
      sum += x[i];
    }
  }
  const float mean = block_sum(sum, scratch) / C;
  float squares = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = threadIdx.x + i * kThreads;
    if (c < C) squares += (x[i] - mean) * (x[i] - mean);
  }
  const float rstd = rsqrtf(block_sum(squares, scratch) / C + 1e-5f);
  A* o = out + row * (kSplit ? 3 * C : C);
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = threadIdx.x + i * kThreads;
    if (c < C) store_normalised<kSplit>(o, c, C, (x[i] - mean) * rstd * w[i] + b[i]);
  }
}

namespace {
/// Launches kernel 3 with N = ceil(C / kThreads) (N <= kMaxPerThread, chosen at run time among the instantiations).
template <typename A, bool kSplit, int N = 1>
void launch_kernel3(A* out, float* residual, SublayerOutput<A> add, const float* weight, const float* bias, int rows,
                    int C, cudaStream_t stream) {
  if constexpr (N < kMaxPerThread) {
    if (C > N * kThreads) {
      launch_kernel3<A, kSplit, N + 1>(out, residual, add, weight, bias, rows, C, stream);
      return;
    }
  }
  layernorm_forward_kernel3<A, N, kSplit><<<rows, kThreads, 0, stream>>>(out, residual, add, weight, bias, C);
}

template <bool kSplit, typename A>
void launch_layernorm(A* d_out, float* d_residual, SublayerOutput<A> add, const float* d_weight, const float* d_bias,
                      int rows, int C, cudaStream_t stream) {
  const std::string shape = "rows=" + std::to_string(rows) + " C=" + std::to_string(C);
  if (add.partials != nullptr && (add.splits < 1 || add.splits > kMaxSublayerSplits)) {
    throw Error(ExitCode::kInternal, "layernorm_forward sums 1.." + std::to_string(kMaxSublayerSplits) +
                                         " partial products, got " + std::to_string(add.splits) + " (" + shape + ")");
  }
  if (rows == 0) return;
  if (C <= kThreads * kMaxPerThread) {
    launch_kernel3<A, kSplit>(d_out, d_residual, add, d_weight, d_bias, rows, C, stream);
    check_launch("layernorm_forward_kernel3", shape);
    return;
  }
  layernorm_forward_kernel2<A, kSplit><<<rows, kThreads, sizeof(float) * C, stream>>>(d_out, d_residual, add,
                                                                                      d_weight, d_bias, C);
  check_launch("layernorm_forward_kernel2", shape);
}
}  // namespace

template <typename A>
void layernorm_forward(A* d_out, float* d_residual, SublayerOutput<A> add, const float* d_weight,
                       const float* d_bias, int rows, int C, cudaStream_t stream) {
  launch_layernorm<false>(d_out, d_residual, add, d_weight, d_bias, rows, C, stream);
}

void layernorm_forward_split_tf32(float* d_out3, float* d_residual, SublayerOutput<float> add,
                                  const float* d_weight, const float* d_bias, int rows, int C, cudaStream_t stream) {
  launch_layernorm<true>(d_out3, d_residual, add, d_weight, d_bias, rows, C, stream);
}

template void layernorm_forward<float>(float*, float*, SublayerOutput<float>, const float*, const float*, int, int,
                                       cudaStream_t);
template void layernorm_forward<__nv_bfloat16>(__nv_bfloat16*, float*, SublayerOutput<__nv_bfloat16>,
                                               const float*, const float*, int, int, cudaStream_t);

}  // namespace vtools::vbench::cuda
