#include "tools/vtrace/access/interval_set.hpp"

#include <algorithm>

namespace vtools::vtrace::access {

void IntervalSet::add(std::uint64_t lo, std::uint64_t hi) {
  if (hi <= lo) return;
  // Start from the first interval that could touch [lo, hi): the one before lo if it reaches lo.
  auto it = by_lo_.upper_bound(lo);
  if (it != by_lo_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= lo) it = prev;
  }
  while (it != by_lo_.end() && it->first <= hi) {
    lo = std::min(lo, it->first);
    hi = std::max(hi, it->second);
    it = by_lo_.erase(it);
  }
  by_lo_.emplace(lo, hi);
}

std::vector<std::array<std::uint64_t, 2>> IntervalSet::ranges() const {
  std::vector<std::array<std::uint64_t, 2>> out;
  out.reserve(by_lo_.size());
  for (const auto& [lo, hi] : by_lo_) out.push_back({lo, hi});
  return out;
}

std::uint64_t IntervalSet::bytes() const {
  std::uint64_t n = 0;
  for (const auto& [lo, hi] : by_lo_) n += hi - lo;
  return n;
}

}  // namespace vtools::vtrace::access
