// Unions of [start, end) time intervals, for the analyses that ask how long something was busy or idle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace vtools::vtrace {

using TimeInterval = std::pair<std::uint64_t, std::uint64_t>;

/// The sorted, disjoint union of `intervals`: empty ones dropped, overlapping and touching ones joined.
inline std::vector<TimeInterval> interval_union(std::vector<TimeInterval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<TimeInterval> out;
  for (const auto& [start, end] : intervals) {
    if (end <= start) continue;
    if (!out.empty() && start <= out.back().second) out.back().second = std::max(out.back().second, end);
    else out.emplace_back(start, end);
  }
  return out;
}

/// Length of the union of `intervals`.
inline std::uint64_t union_ns(std::vector<TimeInterval> intervals) {
  std::uint64_t total = 0;
  for (const auto& [start, end] : interval_union(std::move(intervals))) total += end - start;
  return total;
}

}  // namespace vtools::vtrace
