// The rows of a trace diff's totals, in the order every view prints them: vtrace diff's totals table
// (tools/vtrace/trace_diff_writer) and vrender's trace diff page (tools/vrender/tracediff_page) both list these, so
// a total added here shows in both. Each view formats the values and the change its own way; the graph replays,
// present with --graph only, each view adds after these.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "formats/tracediff/tracediff_model.hpp"

namespace vtools::vtrace {

/// One total of both sides: a time in ns, or a count (held exactly as a double: counts stay far below 2^53).
struct DiffTotalRow {
  enum class Unit { kNanoseconds, kCount };
  std::string_view name;  ///< "busy time", "GPU time", ...
  Unit unit;
  double base, candidate;
  /// kCount: the exact counts, for display (a count past 2^53 is not exact as a double, and one near 2^64 cannot be
  /// cast back); base and candidate hold them as doubles for change().
  std::uint64_t base_count = 0, candidate_count = 0;
  /// change_pct(base, candidate).
  [[nodiscard]] double change() const { return change_pct(base, candidate); }
};

/// busy time, GPU time, launches, kernels, copies, copy time: DiffTotals' members in that order.
std::array<DiffTotalRow, 6> diff_total_rows(const TraceDiff& diff);

}  // namespace vtools::vtrace
