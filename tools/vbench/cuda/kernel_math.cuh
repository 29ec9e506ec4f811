// Device-side pieces the kernels in tools/vbench/ops/*.cu share: fp32 <-> storage conversions, the 3xTF32 row
// store, warp reductions, cp.async, bf16 tensor-core fragments and programmatic dependent launch.
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

/// GPT-2's tanh GELU, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the one cuBLASLt's GELU epilogue computes.
__device__ __forceinline__ float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  return 0.5f * x * (1.f + tanhf(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

/// Waits for this thread's cp.async copies (then __syncthreads before others read them).
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

/// 16 bytes global -> shared without passing through registers; zeros when !valid (`from` is then not read).
__device__ __forceinline__ void cp_async16(void* to, const void* from, bool valid) {
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(from), "r"(valid ? 16 : 0));
}

/// Closes this thread's group of cp.async copies issued since the last commit (cp_async_wait counts groups).
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/// Waits until at most `kPending` of this thread's committed cp.async groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

/// d += a b on tensor cores: a 16x16 bf16 tile (row), b 16x8 bf16 (col), fp32 accumulators; fragments as PTX's
/// m16n8k16 layout (lane l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) + {0, 1} and + 8).
__device__ __forceinline__ void mma_bf16(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Four 8x8 16-bit matrices from shared memory: lane l gives the address of row l % 8 of matrix l / 8.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

/// ldmatrix_x4 with each matrix transposed (a row-major [k][n] tile read as mma's col-major b fragments).
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row) {
  const auto address = static_cast<std::uint32_t>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// Programmatic dependent launch (launch_dependent in dependent_launch.hpp). A kernel launched as a programmatic
// dependent may start while the kernel before it still runs: it must wait_prerequisites() before reading anything
// an earlier kernel wrote, and before writing anything an earlier kernel reads; every CTA must call it (a CTA that
// never does is not ordered after the earlier kernels at all). Both are no-ops in a kernel launched plainly.

/// Lets the next kernel on the stream, when launched as a programmatic dependent, start launching its CTAs now.
__device__ __forceinline__ void allow_dependents() { asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory"); }

/// Waits until the kernels before this one have completed and their writes are visible.
__device__ __forceinline__ void wait_prerequisites() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }

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
