// cuda::small_div_mismatches: kernel_math.cuh's fast division (small_div) against integer division, on the device,
// for its GPU test: a fast path checked against its reference over the whole range the kernels use it in.
#include <string>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/device_buffer.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/ops/kernel_math_check.hpp"

namespace vtools::vbench::cuda {
namespace {

/// Adds to *mismatches the a in [0, a_end) for which small_div(a, b) != a / b, b = blockIdx.y + 1.
__global__ void small_div_check_kernel(int a_end, unsigned long long* mismatches) {
  const int b = static_cast<int>(blockIdx.y) + 1;
  unsigned long long wrong = 0;
  for (int a = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); a < a_end;
       a += static_cast<int>(gridDim.x * blockDim.x)) {
    wrong += small_div(a, b) != a / b;
  }
  if (wrong != 0) atomicAdd(mismatches, wrong);
}

}  // namespace

long long small_div_mismatches(int a_end, int b_end) {
  if (a_end <= 0 || b_end <= 1) return 0;
  DeviceBuffer count(sizeof(unsigned long long), "small_div mismatch count");
  check_cuda(cudaMemset(count.get(), 0, sizeof(unsigned long long)), "cudaMemset", "small_div mismatch count");
  small_div_check_kernel<<<dim3(256, static_cast<unsigned>(b_end - 1)), 256>>>(a_end, count.as<unsigned long long>());
  check_launch("small_div_check_kernel", "a < " + std::to_string(a_end) + ", 0 < b < " + std::to_string(b_end));
  unsigned long long mismatches = 0;
  check_cuda(cudaMemcpy(&mismatches, count.get(), sizeof(mismatches), cudaMemcpyDeviceToHost), "cudaMemcpy",
             "small_div mismatch count");
  return static_cast<long long>(mismatches);
}

}  // namespace vtools::vbench::cuda
