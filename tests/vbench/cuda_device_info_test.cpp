// The roofline formulas of cuda/device_info, the host-side TF32 rounding of cuda/device_weights, and
// make_cuda_backend's answer on this machine (unit label: runs everywhere; without a GPU it checks the "why").
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tools/vbench/backend.hpp"
#include "tools/vbench/cuda/device_info.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/cuda/gpu_clocks.hpp"

namespace vtools::vbench {
namespace {

TEST_CASE("clock_limit_names: NVML's clock event reasons by name, unknown bits in hex; no GPU, no reading") {
  CHECK(cuda::clock_limit_names(0).empty());
  CHECK(cuda::clock_limit_names(0x5) == std::vector<std::string>{"gpu_idle", "sw_power_cap"});
  CHECK(cuda::clock_limit_names(0x1e0) ==
        std::vector<std::string>{"sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks"});
  CHECK(cuda::clock_limit_names(1ull << 40) == std::vector<std::string>{"0x10000000000"});
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) CHECK_FALSE(cuda::read_gpu_clocks(0).has_value());
}

TEST_CASE("driver_version_from_proc: the kernel module's version, proprietary or open; none where there is none") {
  CHECK(cuda::driver_version_from_proc("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct 16 "
                                       "2025\nGCC version:  gcc version 13.3.0\n") == "580.159.04");
  CHECK(cuda::driver_version_from_proc("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release "
                                       "Build  (dvs-builder@U16-I1-N07-12-3)  Thu Jan 23 2025") == "570.86.15");
  CHECK(cuda::driver_version_from_proc("").empty());
  CHECK(cuda::driver_version_from_proc("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n580.1\n").empty());
}

TEST_CASE("tf32_round: nearest TF32 value; hi + tf32(x - hi) recovers x to ~2^-22 (the 3xTF32 LM head split)") {
  auto bits = [](float x) {
    std::uint32_t u = 0;
    std::memcpy(&u, &x, sizeof(u));
    return u;
  };
  CHECK(cuda::tf32_round(1.f) == 1.f);
  CHECK(cuda::tf32_round(1.f + 1.f / 4096) == 1.f);                   // below half an ulp (2^-11): down
  CHECK(cuda::tf32_round(1.f + 3.f / 4096) == 1.f + 1.f / 1024);      // above: up
  CHECK(cuda::tf32_round(-(1.f + 3.f / 4096)) == -(1.f + 1.f / 1024));  // symmetric in sign
  CHECK(std::isinf(cuda::tf32_round(std::numeric_limits<float>::infinity())));
  CHECK(std::isnan(cuda::tf32_round(std::nanf(""))));
  std::mt19937 engine(7);
  std::normal_distribution<float> normal(0.f, 3.f);
  double worst = 0;
  for (int i = 0; i < 10000; ++i) {
    const float x = normal(engine);
    const float hi = cuda::tf32_round(x), lo = cuda::tf32_round(x - hi);
    CHECK((bits(hi) & 0x1fffu) == 0);
    CHECK((bits(lo) & 0x1fffu) == 0);
    worst = std::fmax(worst, std::fabs((static_cast<double>(hi) + lo - x) / x));
  }
  CHECK(worst < 1.0 / (1 << 21));
}

TEST_CASE("device_info: H100 SXM peaks from its attributes") {
  // H100 SXM5: HBM3 at 2619 MHz on a 5120-bit bus = 3.35 TB/s; 132 SMs at 1980 MHz.
  CHECK(cuda::peak_bandwidth_bytes_per_s(2619000, 5120) == doctest::Approx(3.352e12).epsilon(1e-3));
  CHECK(cuda::flops_per_clock_per_sm(9, 0, DType::kBf16) == 4096);
  CHECK(cuda::flops_per_clock_per_sm(9, 0, DType::kTf32) == 2048);
  CHECK(cuda::flops_per_clock_per_sm(9, 0, DType::kFp32) == 256);
  CHECK(132 * 1.98e9 * cuda::flops_per_clock_per_sm(9, 0, DType::kFp32) == doctest::Approx(66.9e12).epsilon(1e-2));
  CHECK(cuda::flops_per_clock_per_sm(8, 0, DType::kBf16) == 2048);  // A100: 108 SMs x 1.41 GHz x 2048 = 312 TF
  CHECK(cuda::flops_per_clock_per_sm(7, 5, DType::kBf16) == 0);     // not listed: unknown, not a guess
}

TEST_CASE("device_info: make_cuda_backend says why when there is no usable GPU") {
  int count = 0;
  const bool have_gpu = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  std::string why;
  const auto backend = make_cuda_backend(-1, &why);
  CHECK((backend != nullptr) == have_gpu);
  // A device past the last one is refused with the ones there are.
  std::string past;
  CHECK(make_cuda_backend(have_gpu ? count : 0, &past) == nullptr);
  if (have_gpu) {
    CHECK(past == "there is no CUDA device " + std::to_string(count) + " (" + std::to_string(count) + " visible: 0" +
                      (count > 1 ? ".." + std::to_string(count - 1) : "") + ")");
    CHECK(backend->device().gpu_index == 0);
    CHECK(backend->device().pci_bus_id.size() >= 12);  // "0000:19:00.0"
  }
  if (!have_gpu) {
    const bool explained = why.rfind("cudaGetDeviceCount failed: ", 0) == 0 ||
                           why.rfind("the CUDA driver library libcuda.so.1 cannot be loaded", 0) == 0 ||
                           why == "no CUDA device found (cudaGetDeviceCount returned 0)";
    CHECK_MESSAGE(explained, why);
  }
}

}  // namespace
}  // namespace vtools::vbench
