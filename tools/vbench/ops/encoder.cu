// cuda::encoder_forward: token + position embeddings into the fp32 residual stream (peer of cpu encoder_forward).
// One thread per output element; the residual stays fp32 in every dtype, so bf16 only rounds the stored tables.
#include <string>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/ops/encoder.hpp"
#include "tools/vbench/cuda/programmatic.cuh"

namespace vtools::vbench::cuda {

template <typename P>
__global__ void encoder_forward_kernel1(float* residual, const int* tokens, const P* wte, const P* wpe, int BT, int T,
                                        int C) {
  programmatic_start();
  const long long n = static_cast<long long>(BT) * C;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int bt = static_cast<int>(i / C);
    const int c = static_cast<int>(i % C);
    const int t = bt % T;
    const long long token = tokens[bt];
    residual[i] = to_float(wte[token * C + c]) + to_float(wpe[static_cast<long long>(t) * C + c]);
  }
}

template <typename P>
void encoder_forward(float* d_residual, const int* d_tokens, const P* d_wte, const P* d_wpe, int B, int T, int C,
                     cudaStream_t stream, bool programmatic) {
  const long long n = static_cast<long long>(B) * T * C;
  if (n == 0) return;
  constexpr int kThreads = 256;
  const long long blocks = (n + kThreads - 1) / kThreads;
  launch_kernel(encoder_forward_kernel1<P>, static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kThreads, 0,
                stream, programmatic, "encoder_forward_kernel1", d_residual, d_tokens, d_wte, d_wpe, B * T, T, C);
  check_launch("encoder_forward_kernel1", "B=" + std::to_string(B) + " T=" + std::to_string(T) + " C=" + std::to_string(C));
}

template void encoder_forward<float>(float*, const int*, const float*, const float*, int, int, int, cudaStream_t,
                                     bool);
template void encoder_forward<__nv_bfloat16>(float*, const int*, const __nv_bfloat16*, const __nv_bfloat16*, int, int,
                                             int, cudaStream_t, bool);

}  // namespace vtools::vbench::cuda
