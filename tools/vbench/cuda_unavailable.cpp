// make_cuda_backend for builds without CUDA: there is no CUDA backend, and `why` says so (exit 69 upstream).
#include "tools/vbench/backend.hpp"

namespace vtools::vbench {

std::unique_ptr<Backend> make_cuda_backend(int gpu, std::string* why, const CudaOptions& options) {
  (void)gpu;
  (void)options;
  if (why) *why = "this vbench was built without CUDA (nvcc not found at configure time)";
  return nullptr;
}

}  // namespace vtools::vbench
