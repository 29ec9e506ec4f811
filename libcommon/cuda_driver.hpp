// Whether this machine has an NVIDIA driver, asked the same way by every tool, so vtrace and vbench say the same
// thing when there is none ("libcuda.so.1 cannot be loaded (no NVIDIA driver on this machine?)") instead of the CUDA
// runtime's "CUDA driver version is insufficient", which reads like an upgrade is due.
#pragma once

#include <optional>
#include <string>

namespace vtools {

/// Why `libcuda` cannot be loaded, quoting dlerror(); nullopt when it can.
std::optional<std::string> cuda_driver_unavailable(const std::string& libcuda = "libcuda.so.1");

}  // namespace vtools
