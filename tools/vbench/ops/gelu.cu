// cuda::bias_gelu_forward: bias add and tanh GELU in place (peer of cpu gelu_forward), for any epilogue cuBLASLt has
// no fused algorithm for. GELU(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), GPT-2's approximation, the one
// cuBLASLt's GELU epilogue computes too.
#include <string>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/ops/gelu.hpp"

namespace vtools::vbench::cuda {

template <typename A>
__global__ void bias_gelu_forward_kernel1(A* x, const A* bias, bool gelu, int rows, int N) {
  const long long n = static_cast<long long>(rows) * N;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float v = to_float(x[i]);
    if (bias != nullptr) v += to_float(bias[i % N]);
    if (gelu) v = gelu_tanh(v);
    x[i] = from_float<A>(v);
  }
}

template <typename A>
void bias_gelu_forward(A* d_x, const A* d_bias, bool gelu, int rows, int N, cudaStream_t stream) {
  const long long n = static_cast<long long>(rows) * N;
  if (n == 0 || (d_bias == nullptr && !gelu)) return;
  constexpr int kThreads = 256;
  const long long blocks = (n + kThreads - 1) / kThreads;
  bias_gelu_forward_kernel1<A><<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kThreads, 0, stream>>>(
      d_x, d_bias, gelu, rows, N);
  check_launch("bias_gelu_forward_kernel1", "rows=" + std::to_string(rows) + " N=" + std::to_string(N));
}

template void bias_gelu_forward<float>(float*, const float*, bool, int, int, cudaStream_t);
template void bias_gelu_forward<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*, bool, int, int, cudaStream_t);

}  // namespace vtools::vbench::cuda
