#include "tools/vbench/cuda/gpu_clocks.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>

namespace vtools::vbench::cuda {

namespace {

// The few NVML entry points used, declared from its public C API (no nvml.h on the build machines): an opaque
// device handle, NVML_SUCCESS = 0, clock type NVML_CLOCK_SM = 1.
using NvmlDevice = void*;
using InitFn = int (*)();
using HandleByPciFn = int (*)(const char*, NvmlDevice*);
using ClockFn = int (*)(NvmlDevice, int, unsigned*);
using ReasonsFn = int (*)(NvmlDevice, unsigned long long*);
constexpr int kNvmlSuccess = 0;
constexpr int kClockSm = 1;

struct Nvml {
  HandleByPciFn handle_by_pci = nullptr;
  ClockFn clock = nullptr, max_clock = nullptr;
  ReasonsFn reasons = nullptr;
  bool ready = false;
};

/// Opened and initialised once per process; never closed (NVML keeps state until exit, as nvidia-smi does).
const Nvml& nvml() {
  static const Nvml lib = [] {
    Nvml n;
    void* so = ::dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (so == nullptr) return n;
    auto sym = [&](const char* name) { return ::dlsym(so, name); };
    auto init = reinterpret_cast<InitFn>(sym("nvmlInit_v2"));
    n.handle_by_pci = reinterpret_cast<HandleByPciFn>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    n.clock = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetClockInfo"));
    n.max_clock = reinterpret_cast<ClockFn>(sym("nvmlDeviceGetMaxClockInfo"));
    // Renamed in CUDA 12.2's NVML ("clock events"); the old name stays for older drivers.
    n.reasons = reinterpret_cast<ReasonsFn>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
    if (n.reasons == nullptr) n.reasons = reinterpret_cast<ReasonsFn>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
    n.ready = init != nullptr && n.handle_by_pci != nullptr && n.clock != nullptr && n.max_clock != nullptr &&
              n.reasons != nullptr && init() == kNvmlSuccess;
    return n;
  }();
  return lib;
}

}  // namespace

std::vector<std::string> clock_limit_names(std::uint64_t reasons) {
  static constexpr const char* kNames[] = {"gpu_idle",   "applications_clocks", "sw_power_cap",
                                           "hw_slowdown", "sync_boost",          "sw_thermal",
                                           "hw_thermal",  "hw_power_brake",      "display_clocks"};
  std::vector<std::string> names;
  for (unsigned bit = 0; bit < 64; ++bit) {
    if ((reasons >> bit & 1u) == 0) continue;
    if (bit < sizeof kNames / sizeof kNames[0]) {
      names.emplace_back(kNames[bit]);
    } else {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", 1ull << bit);
      names.emplace_back(hex);
    }
  }
  return names;
}

std::optional<ClockReading> read_gpu_clocks(int device) {
  const Nvml& n = nvml();
  if (!n.ready) return std::nullopt;
  char pci[32] = {};
  if (cudaDeviceGetPCIBusId(pci, sizeof pci, device) != cudaSuccess) return std::nullopt;
  NvmlDevice handle = nullptr;
  unsigned sm = 0, sm_max = 0;
  unsigned long long reasons = 0;
  if (n.handle_by_pci(pci, &handle) != kNvmlSuccess || n.clock(handle, kClockSm, &sm) != kNvmlSuccess ||
      n.max_clock(handle, kClockSm, &sm_max) != kNvmlSuccess || n.reasons(handle, &reasons) != kNvmlSuccess)
    return std::nullopt;
  ClockReading r;
  r.sm_mhz = static_cast<int>(sm);
  r.sm_max_mhz = static_cast<int>(sm_max);
  r.limits = clock_limit_names(reasons);
  return r;
}

}  // namespace vtools::vbench::cuda
