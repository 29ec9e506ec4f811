// cuda::layernorm_forward: layer norm with the previous sublayer's residual add fused in (peer of cpu
// layernorm_forward). Key decision: the residual stream stays fp32 and is updated in place (`+=`) here, so each
// sublayer's output (delta) is written once in the activation dtype and added once; mean and variance are fp32.
// One warp per row; a row is read three times (add + sum, squared deviations, normalise), served from L1/L2.
#include <string>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/cuda/kernels.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr int kRowsPerBlock = 8;  // warps per block
}

template <typename A>
__global__ void layernorm_forward_kernel1(A* out, float* residual, const A* delta, const float* weight,
                                          const float* bias, int rows, int C) {
  const int lane = threadIdx.x % 32;
  const int row = blockIdx.x * kRowsPerBlock + threadIdx.x / 32;
  if (row >= rows) return;  // whole warps leave together, so the shuffles below stay full-warp
  float* r = residual + static_cast<long long>(row) * C;
  float sum = 0.f;
  if (delta != nullptr) {
    const A* d = delta + static_cast<long long>(row) * C;
    for (int c = lane; c < C; c += 32) {
      const float x = r[c] + to_float(d[c]);
      r[c] = x;
      sum += x;
    }
  } else {
    for (int c = lane; c < C; c += 32) sum += r[c];
  }
  const float mean = warp_sum(sum) / C;
  float squares = 0.f;
  for (int c = lane; c < C; c += 32) {
    const float dev = r[c] - mean;
    squares += dev * dev;
  }
  const float rstd = rsqrtf(warp_sum(squares) / C + 1e-5f);
  A* o = out + static_cast<long long>(row) * C;
  for (int c = lane; c < C; c += 32) o[c] = from_float<A>((r[c] - mean) * rstd * weight[c] + bias[c]);
}

template <typename A>
void layernorm_forward(A* d_out, float* d_residual, const A* d_delta, const float* d_weight, const float* d_bias,
                       int rows, int C, cudaStream_t stream) {
  if (rows == 0) return;
  const int blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  layernorm_forward_kernel1<A><<<blocks, kRowsPerBlock * 32, 0, stream>>>(d_out, d_residual, d_delta, d_weight,
                                                                          d_bias, rows, C);
  check_launch("layernorm_forward_kernel1", "rows=" + std::to_string(rows) + " C=" + std::to_string(C));
}

template void layernorm_forward<float>(float*, float*, const float*, const float*, const float*, int, int,
                                       cudaStream_t);
template void layernorm_forward<__nv_bfloat16>(__nv_bfloat16*, float*, const __nv_bfloat16*, const float*,
                                               const float*, int, int, cudaStream_t);

}  // namespace vtools::vbench::cuda
