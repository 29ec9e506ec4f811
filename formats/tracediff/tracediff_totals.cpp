#include "formats/tracediff/tracediff_totals.hpp"

namespace vtools::vtrace {

std::array<DiffTotalRow, 6> diff_total_rows(const TraceDiff& diff) {
  using Unit = DiffTotalRow::Unit;
  const DiffTotals &b = diff.base, &c = diff.candidate;
  const auto counts = [](std::string_view name, std::uint64_t base, std::uint64_t candidate) {
    return DiffTotalRow{name, Unit::kCount, static_cast<double>(base), static_cast<double>(candidate), base, candidate};
  };
  return {{{"busy time", Unit::kNanoseconds, b.busy_ns, c.busy_ns},
           {"GPU time", Unit::kNanoseconds, b.gpu_time_ns, c.gpu_time_ns},
           counts("launches", b.launches, c.launches),
           counts("kernels", b.kernels, c.kernels),
           counts("copies", b.copies, c.copies),
           {"copy time", Unit::kNanoseconds, b.copy_ns, c.copy_ns}}};
}

}  // namespace vtools::vtrace
