// `--kernel REGEX`: which kernels a trace keeps. The regex (ECMAScript) is searched in the demangled name and in
// the mangled name; an empty pattern keeps everything.
#pragma once

#include <optional>
#include <regex>
#include <string>

namespace vtools::vtrace {

class KernelFilter {
 public:
  /// Throws Error(kUsage) naming the bad pattern and std::regex's reason.
  explicit KernelFilter(const std::string& pattern);
  [[nodiscard]] bool keeps(const std::string& name, const std::string& mangled_name) const;
  [[nodiscard]] const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::optional<std::regex> regex_;
};

}  // namespace vtools::vtrace
