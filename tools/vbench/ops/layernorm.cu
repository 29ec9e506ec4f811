// cuda::layernorm_forward: layer norm with the previous sublayer's residual add fused in (peer of cpu
// layernorm_forward). Key decision: the residual stream stays fp32 and is updated in place (`+=`) here, so each
// sublayer's output (delta) is written once in the activation dtype and added once; mean and variance are fp32.
// One block per row: the row (after the residual add) is staged in shared memory, so global memory is read once with
// independent loads. Kernel 1 (one warp per row, re-reading the row from global memory) was latency-bound: 13.7 us per
// call on gpt2 bf16 B=4 T=64 on the H100, 40% of the forward (measured with vtrace).
#include <string>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/cuda/kernels.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr int kThreads = 256;  // per row
constexpr int kWarps = kThreads / 32;

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
}  // namespace

template <typename A>
__global__ void layernorm_forward_kernel2(A* __restrict__ out, float* __restrict__ residual,
                                          const A* __restrict__ delta, const float* __restrict__ weight,
                                          const float* __restrict__ bias, int C) {
  extern __shared__ float row_values[];  // [C]
  __shared__ float scratch[kWarps];
  const long long row = blockIdx.x;
  float* r = residual + row * C;
  float sum = 0.f;
  if (delta != nullptr) {
    const A* d = delta + row * C;
    for (int c = threadIdx.x; c < C; c += kThreads) {
      const float x = r[c] + to_float(d[c]);
      r[c] = x;
      row_values[c] = x;
      sum += x;
    }
  } else {
    for (int c = threadIdx.x; c < C; c += kThreads) {
      const float x = r[c];
      row_values[c] = x;
      sum += x;
    }
  }
  const float mean = block_sum(sum, scratch) / C;
  float squares = 0.f;
  for (int c = threadIdx.x; c < C; c += kThreads) {
    const float dev = row_values[c] - mean;
    squares += dev * dev;
  }
  const float rstd = rsqrtf(block_sum(squares, scratch) / C + 1e-5f);
  A* o = out + row * C;
  for (int c = threadIdx.x; c < C; c += kThreads)
    o[c] = from_float<A>((row_values[c] - mean) * rstd * weight[c] + bias[c]);
}

template <typename A>
void layernorm_forward(A* d_out, float* d_residual, const A* d_delta, const float* d_weight, const float* d_bias,
                       int rows, int C, cudaStream_t stream) {
  if (rows == 0) return;
  layernorm_forward_kernel2<A><<<rows, kThreads, sizeof(float) * C, stream>>>(d_out, d_residual, d_delta, d_weight,
                                                                               d_bias, C);
  check_launch("layernorm_forward_kernel2", "rows=" + std::to_string(rows) + " C=" + std::to_string(C));
}

template void layernorm_forward<float>(float*, float*, const float*, const float*, const float*, int, int,
                                       cudaStream_t);
template void layernorm_forward<__nv_bfloat16>(__nv_bfloat16*, float*, const __nv_bfloat16*, const float*,
                                               const float*, int, int, cudaStream_t);

}  // namespace vtools::vbench::cuda
