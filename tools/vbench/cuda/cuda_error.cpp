// CUDA and cuBLASLt statuses as vtools::Error (see cuda_error.hpp).
#include "tools/vbench/cuda/cuda_error.hpp"

#include <string>

#include "libcommon/error.hpp"

namespace vtools::vbench::cuda {

void check_cuda(cudaError_t status, std::string_view call, std::string_view context) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // reset a non-sticky error so the next call is judged on its own
  std::string what = std::string(call) + " failed: " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")";
  if (!context.empty()) what += " for " + std::string(context);
  const bool unavailable = status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver ||
                           status == cudaErrorMemoryAllocation || status == cudaErrorInitializationError ||
                           status == cudaErrorSystemDriverMismatch || status == cudaErrorCompatNotSupportedOnDevice;
  throw Error(unavailable ? ExitCode::kUnavailable : ExitCode::kInternal, what);
}

void check_cublas(cublasStatus_t status, std::string_view call, std::string_view shape) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(ExitCode::kInternal, std::string(call) + " failed: " + cublasLtGetStatusString(status) + " (" +
                                       cublasLtGetStatusName(status) + ") for " + std::string(shape));
}

void check_launch(std::string_view kernel, std::string_view shape) {
  check_cuda(cudaGetLastError(), std::string("launch of ") + std::string(kernel), shape);
}

}  // namespace vtools::vbench::cuda
