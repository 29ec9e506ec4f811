#include "tools/vtrace/kernel_filter.hpp"

#include "libcommon/error.hpp"

namespace vtools::vtrace {

KernelFilter::KernelFilter(const std::string& pattern) : pattern_(pattern) {
  if (pattern.empty()) return;
  try {
    regex_.emplace(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw Error(ExitCode::kUsage, "--kernel: invalid regular expression '" + pattern + "': " + e.what());
  }
}

bool KernelFilter::keeps(const std::string& name, const std::string& mangled_name) const {
  if (!regex_) return true;
  return std::regex_search(name, *regex_) || std::regex_search(mangled_name, *regex_);
}

}  // namespace vtools::vtrace
