// Device-side pieces the kernels in tools/vbench/ops/*.cu share: fp32 <-> storage conversions and warp reductions.
#pragma once

#include <cuda_bf16.h>

namespace vtools::vbench::cuda {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

/// Sum over the 32 lanes of a full warp; every lane gets the result.
__device__ __forceinline__ float warp_sum(float x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

/// Maximum over the 32 lanes of a full warp; every lane gets the result.
__device__ __forceinline__ float warp_max(float x) {
  for (int offset = 16; offset > 0; offset /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

}  // namespace vtools::vbench::cuda
