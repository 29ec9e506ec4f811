#include "libcommon/cuda_driver.hpp"

#include <dlfcn.h>

namespace vtools {

std::optional<std::string> cuda_driver_unavailable(const std::string& libcuda) {
  if (void* cuda = ::dlopen(libcuda.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(cuda);
    return std::nullopt;
  }
  const char* err = ::dlerror();
  return "the CUDA driver library " + libcuda + " cannot be loaded (no NVIDIA driver on this machine?): " +
         (err ? err : "unknown error");
}

}  // namespace vtools
