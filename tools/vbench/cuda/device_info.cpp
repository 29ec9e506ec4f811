// GPU identity, versions and roofline peaks (see device_info.hpp).
#include "tools/vbench/cuda/device_info.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "tools/vbench/cuda/cuda_error.hpp"

namespace vtools::vbench::cuda {

namespace {

/// "13.0" from CUDA's 1000 * major + 10 * minor encoding.
std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

int attribute(cudaDeviceAttr attr, int device, const char* name) {
  int value = 0;
  check_cuda(cudaDeviceGetAttribute(&value, attr, device), "cudaDeviceGetAttribute", name);
  return value;
}

}  // namespace

double flops_per_clock_per_sm(int major, int minor, DType dtype) {
  // Dense (no sparsity) per SM per clock, 2 FLOPs per FMA. Sources: A100, H100 and Blackwell whitepapers; GA10x/AD10x
  // (8.6, 8.9, 12.x) have half of A100's tensor rate per SM and twice its FP32 lanes.
  struct Row { int major, minor; double fp32, tf32, bf16; };
  static constexpr Row kTable[] = {
      {8, 0, 128, 1024, 2048}, {8, 6, 256, 512, 1024}, {8, 7, 256, 512, 1024}, {8, 9, 256, 512, 1024},
      {9, 0, 256, 2048, 4096}, {10, 0, 256, 4096, 8192}, {12, 0, 256, 512, 1024},
  };
  for (const Row& row : kTable) {
    if (row.major == major && row.minor == minor) {
      switch (dtype) {
        case DType::kFp32: return row.fp32;
        case DType::kTf32: return row.tf32;
        case DType::kBf16: return row.bf16;
      }
    }
  }
  return 0;
}

double peak_bandwidth_bytes_per_s(double memory_clock_khz, int bus_width_bits) {
  return 2.0 * memory_clock_khz * 1e3 * bus_width_bits / 8.0;
}

std::string driver_version_from_proc(const std::string& text) {
  const std::size_t module = text.find("Kernel Module");
  if (module == std::string::npos) return "";
  // The first word after it made of digits and dots, with a dot ("for" and "x86_64" are passed over).
  const std::size_t end = text.find('\n', module);
  std::istringstream words(text.substr(module, end == std::string::npos ? std::string::npos : end - module));
  for (std::string word; words >> word;) {
    if (std::isdigit(static_cast<unsigned char>(word.front())) && word.find('.') != std::string::npos &&
        word.find_first_not_of("0123456789.") == std::string::npos)
      return word;
  }
  return "";
}

DeviceInfo query_device_info(int device, DType dtype) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  DeviceInfo info;
  info.name = prop.name;
  info.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  info.sm_count = prop.multiProcessorCount;
  info.memory_bytes = prop.totalGlobalMem;
  int driver = 0, runtime = 0;
  check_cuda(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  std::ifstream proc("/proc/driver/nvidia/version");
  const std::string module = driver_version_from_proc(std::string(std::istreambuf_iterator<char>(proc), {}));
  info.driver_version = module.empty() ? "CUDA " + cuda_version_string(driver)
                                       : module + " (CUDA " + cuda_version_string(driver) + ")";
  info.runtime_version = cuda_version_string(runtime);
  const std::size_t blas = cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  info.blas_version = "cuBLASLt " + std::to_string(blas / 10000) + "." + std::to_string(blas / 100 % 100) + "." +
                      std::to_string(blas % 100);
  const int memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device, "cudaDevAttrMemoryClockRate");
  const int bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device, "cudaDevAttrGlobalMemoryBusWidth");
  const int sm_clock_khz = attribute(cudaDevAttrClockRate, device, "cudaDevAttrClockRate");
  info.peak_bandwidth_bytes_per_s = peak_bandwidth_bytes_per_s(memory_clock_khz, bus_width_bits);
  info.peak_flops = info.sm_count * (sm_clock_khz * 1e3) * flops_per_clock_per_sm(prop.major, prop.minor, dtype);
  info.gpu_index = device;
  char pci[32] = {};
  if (cudaDeviceGetPCIBusId(pci, sizeof pci, device) == cudaSuccess) info.pci_bus_id = pci;
  return info;
}

}  // namespace vtools::vbench::cuda
