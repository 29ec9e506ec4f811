#include "tools/vbench/cuda_options.hpp"

#include <cstdlib>
#include <string_view>

namespace vtools::vbench {

CudaOptions cuda_options_from_environment(const EnvironmentLookup& lookup) {
  CudaOptions o;
  if (const char* wgmma = lookup("VTOOLS_VBENCH_WGMMA"); wgmma != nullptr) {
    if (std::string_view(wgmma) == "0") o.wgmma = WgmmaTrials::kNone;
    if (std::string_view(wgmma) == "all") o.wgmma = WgmmaTrials::kAll;
  }
  const auto off = [&](const char* name) {
    const char* value = lookup(name);
    return value != nullptr && std::string_view(value) == "0";
  };
  o.programmatic = !off("VTOOLS_VBENCH_PROGRAMMATIC");
  o.persistent = !off("VTOOLS_VBENCH_PERSISTENT");
  if (const char* trace = lookup("VTOOLS_VBENCH_PERSISTENT_TRACE"); trace != nullptr) o.persistent_trace = trace;
  return o;
}

CudaOptions cuda_options_from_environment() {
  return cuda_options_from_environment([](const char* name) { return std::getenv(name); });
}

}  // namespace vtools::vbench
