// Device-side pieces the kernels in tools/vbench/ops/*.cu share: fp32 <-> storage conversions, the 3xTF32 row
// store and warp reductions.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

namespace vtools::vbench::cuda {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

/// x rounded to TF32 (10 mantissa bits, ties away from zero: cvt.rna, the rounding tf32_round does on the host),
/// as an fp32 value whose low 13 bits are zero. On sm_90 the same add and mask as a bit trick, plus a NaN/inf guard.
__device__ __forceinline__ float tf32_rna(float x) {
  std::uint32_t bits = 0;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
}

/// Stores the normalised value v of column c: out[c], or with kSplit (fp32 only) the 3xTF32 row [lo | hi | hi] of
/// 3C values, hi = tf32(v), lo = tf32(v - hi).
template <bool kSplit, typename A>
__device__ __forceinline__ void store_normalised(A* out_row, int c, int C, float v) {
  if constexpr (kSplit) {
    static_assert(std::is_same_v<A, float>, "the 3xTF32 split is an fp32 layout");
    const float hi = tf32_rna(v);
    out_row[c] = tf32_rna(v - hi);
    out_row[C + c] = out_row[2 * C + c] = hi;
  } else {
    out_row[c] = from_float<A>(v);
  }
}

/// GPT-2's tanh GELU, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the one cuBLASLt's GELU epilogue computes.
__device__ __forceinline__ float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  return 0.5f * x * (1.f + tanhf(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

/// gelu_tanh with the hardware's tanh.approx.f32 (relative error about 2^-11): for epilogues that round to bf16
/// (2^-8), where tanhf's instruction chain, run by one warp per scheduler, took longer than the GEMM's main loop.
__device__ __forceinline__ float gelu_tanh_bf16(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
  return 0.5f * x * (1.f + t);
}

/// Waits for this thread's cp.async copies (then __syncthreads before others read them).
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

/// a / b for 0 <= a < 2^20 and b > 0 (thread, column and K counts), through the fast float division: two
/// instructions instead of an integer division's ~20. Exact in that range: (a + 0.5) / b is at least 0.5 / b away
/// from an integer, and __fdividef's error (2 ulp, under 2^-21 relative) is below that while a + 0.5 < 2^21.
__device__ __forceinline__ int small_div(int a, int b) {
  return __float2int_rz(__fdividef(static_cast<float>(a) + 0.5f, static_cast<float>(b)));
}

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
