#include "tools/vtrace/kernel_filter.hpp"

#include <algorithm>

#include "libcommon/error.hpp"
#include "tools/vtrace/regex_search.hpp"

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
  try {
    return regex_search_any_length(name, *regex_) || regex_search_any_length(mangled_name, *regex_);
  } catch (const std::regex_error& e) {
    throw Error(ExitCode::kUsage, "--kernel '" + pattern_ + "': cannot match a kernel name of " +
                                      std::to_string(std::max(name.size(), mangled_name.size())) +
                                      " characters: " + e.what());
  }
}

}  // namespace vtools::vtrace
