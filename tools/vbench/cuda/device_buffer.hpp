// One owned device allocation (cudaMalloc / cudaFree), move-only, with checked uploads. cudaMalloc aligns to at least
// 256 bytes, which is what cuBLASLt's heuristics assume by default (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "tools/vbench/cuda/cuda_error.hpp"

namespace vtools::vbench::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates `bytes` (none when 0); `what` names the buffer in errors ("h.3.mlp.c_fc.weight").
  DeviceBuffer(std::size_t bytes, const std::string& what) : bytes_(bytes) {
    if (bytes > 0) check_cuda(cudaMalloc(&ptr_, bytes), "cudaMalloc", what + " (" + std::to_string(bytes) + " bytes)");
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);  // no throw from a destructor; a failed free leaks at worst
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      if (ptr_ != nullptr) cudaFree(ptr_);
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }

  template <typename T>
  [[nodiscard]] T* as() const { return static_cast<T*>(ptr_); }
  [[nodiscard]] void* get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

  /// Synchronous copy of `bytes` (≤ bytes()) from host memory.
  void upload(const void* host, std::size_t bytes, const std::string& what) {
    if (bytes > 0) check_cuda(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (host to device)", what);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace vtools::vbench::cuda
