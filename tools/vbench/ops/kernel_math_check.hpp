// The device check of kernel_math.cuh's fast division (ops/kernel_math_check.cu), for its GPU test.
#pragma once

#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// How many (a, b) with 0 <= a < a_end and 0 < b < b_end kernel_math.cuh's small_div (the fused step's fast
/// division) gets wrong against integer division, computed on the device: its GPU test.
long long small_div_mismatches(int a_end, int b_end);

}  // namespace vtools::vbench::cuda
