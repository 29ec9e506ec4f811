// Merged byte ranges: the [lo, hi) intervals a block touched in one allocation, kept sorted and disjoint
// (touching intervals merge, so [0,4) + [4,8) is [0,8)).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace vtools::vtrace::access {

class IntervalSet {
 public:
  /// Adds [lo, hi); empty intervals (hi <= lo) are ignored.
  void add(std::uint64_t lo, std::uint64_t hi);
  /// Sorted, disjoint, non-touching intervals.
  [[nodiscard]] std::vector<std::array<std::uint64_t, 2>> ranges() const;
  /// Bytes covered (sum of interval lengths).
  [[nodiscard]] std::uint64_t bytes() const;
  [[nodiscard]] bool empty() const { return by_lo_.empty(); }

 private:
  std::map<std::uint64_t, std::uint64_t> by_lo_;  // lo -> hi
};

}  // namespace vtools::vtrace::access
