// Reads the SASS listing `nvdisasm -c` prints for a cubin into per-function instruction texts by PC offset, so a
// finding can show the instruction it came from ("LDG.E R2, desc[UR4][R2.64]"). Lines it does not understand are
// skipped: the listing is a tool's human output, not a format with a specification.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace vtools::vtrace {

class SassListing {
 public:
  /// Parses nvdisasm's output. Instructions belong to the function of the last `.section .text.<name>` or
  /// `.text.<name>:` label before them; an instruction line is `/*<hex offset>*/ <text> ;`.
  static SassListing parse(std::string_view text);

  /// The instruction text at `offset` bytes into `mangled_function`, nullptr when the listing has none there.
  [[nodiscard]] const std::string* instruction(std::string_view mangled_function, std::uint64_t offset) const;
  [[nodiscard]] std::size_t function_count() const { return functions_.size(); }

 private:
  std::map<std::string, std::map<std::uint64_t, std::string>, std::less<>> functions_;
};

}  // namespace vtools::vtrace
