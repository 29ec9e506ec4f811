// The GPU's SM clock and what holds it below its maximum, read through NVML while vbench's timed forwards run, so a
// document says whether its numbers came from a throttled GPU (nvbench-style). NVML (libnvidia-ml.so.1) comes with
// the driver and is opened at run time: a build or machine without it runs on and records nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/vbench/backend.hpp"

namespace vtools::vbench::cuda {

/// NVML's clock event ("throttle") reasons as names: gpu_idle, applications_clocks, sw_power_cap, hw_slowdown,
/// sync_boost, sw_thermal, hw_thermal, hw_power_brake, display_clocks; "0x..." for bits NVML may add later.
std::vector<std::string> clock_limit_names(std::uint64_t reasons);

/// The clocks of CUDA device `device` now; nullopt when NVML is not there or does not answer for it.
std::optional<ClockReading> read_gpu_clocks(int device);

}  // namespace vtools::vbench::cuda
