#include "formats/tracediff/tracediff_totals.hpp"

namespace vtools::vtrace {

std::array<DiffTotalRow, 6> diff_total_rows(const TraceDiff& diff) {
  using Unit = DiffTotalRow::Unit;
  const DiffTotals &b = diff.base, &c = diff.candidate;
  const auto count = [](std::uint64_t n) { return static_cast<double>(n); };
  return {{{"busy time", Unit::kNanoseconds, b.busy_ns, c.busy_ns},
           {"GPU time", Unit::kNanoseconds, b.gpu_time_ns, c.gpu_time_ns},
           {"launches", Unit::kCount, count(b.launches), count(c.launches)},
           {"kernels", Unit::kCount, count(b.kernels), count(c.kernels)},
           {"copies", Unit::kCount, count(b.copies), count(c.copies)},
           {"copy time", Unit::kNanoseconds, b.copy_ns, c.copy_ns}}};
}

}  // namespace vtools::vtrace
