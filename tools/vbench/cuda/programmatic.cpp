// programmatic_launches_allowed (programmatic.hpp): the one place that reads VTOOLS_VBENCH_PROGRAMMATIC.
#include <cstdlib>
#include <string_view>

#include "tools/vbench/cuda/programmatic.hpp"

namespace vtools::vbench::cuda {

bool programmatic_launches_allowed() {
  static const bool allowed = [] {
    const char* env = std::getenv("VTOOLS_VBENCH_PROGRAMMATIC");
    return env == nullptr || std::string_view(env) != "0";
  }();
  return allowed;
}

}  // namespace vtools::vbench::cuda
