// Turns CUDA runtime and cuBLASLt statuses into vtools::Error naming the call, the status and (for GEMMs) the shape,
// so the cuda backend never exits the host process (STYLE.md "vtools should" 9 and 10).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <string_view>

namespace vtools::vbench::cuda {

/// Throws Error when `status` is not cudaSuccess: "cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)"
/// plus " for <context>" when given. No device, no driver and out of memory are kUnavailable (69), the rest
/// kInternal (70). Clears the sticky last error so later calls report their own failures.
void check_cuda(cudaError_t status, std::string_view call, std::string_view context = {});

/// Throws Error(kInternal) when `status` is not CUBLAS_STATUS_SUCCESS, naming the call, the status and the GEMM
/// `shape` ("Y[256][2304] = X[256][768] * W[768][2304] + bias, bf16").
void check_cublas(cublasStatus_t status, std::string_view call, std::string_view shape);

/// Checks the launch of `kernel` (cudaGetLastError) and names the kernel and its problem size.
void check_launch(std::string_view kernel, std::string_view shape);

}  // namespace vtools::vbench::cuda
