// Axis maths for charts: "nice" tick positions (1-2-5 steps, binary steps for bytes, decades for log axes), the
// data -> pixel mapping, and tick labels with units. No drawing here (see chart_frame.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vtools::vrender {

/// What an axis measures; `unit` "B" gives binary byte ticks ("64 KiB"), "%" percent, "" a plain number.
struct Axis {
  std::string label{};
  std::string unit{};
  bool log = false;  ///< log10 scale; non-positive values are clamped to the lowest decade
  /// When set, ticks only at these values (a sweep's B or T: 1, 4, 16), and the axis spans them with a small margin
  /// instead of whole decades or steps.
  std::vector<double> ticks{};
};

/// Tick values covering [lo, hi]: lo/hi are widened to multiples of `step` (or whole decades on a log axis).
struct Ticks {
  std::vector<double> values{};
  double step = 1;  ///< distance between ticks (ratio 10 on a log axis)
  double lo = 0, hi = 1;
};

/// About `target` ticks over [lo, hi] with steps 1, 2, 2.5 or 5 x 10^k. lo == hi gets a unit-wide range around it.
Ticks nice_ticks(double lo, double hi, int target = 5);
/// Ticks at multiples of 2^k bytes (or 1-2-5 below 8 bytes) so labels read "16 KiB, 32 KiB".
Ticks binary_ticks(double lo, double hi, int target = 5);
/// Decades 10^a .. 10^b covering [lo, hi] (lo > 0; non-positive lo is replaced by hi / 1000).
Ticks log_ticks(double lo, double hi);
/// Ticks at `values` (those inside a margin around [lo, hi] and the values), on a log or linear scale.
Ticks listed_ticks(const std::vector<double>& values, bool log, double lo, double hi);
/// Picks listed/nice/binary/log by `axis`.
Ticks ticks_for(const Axis& axis, double lo, double hi, int target = 5);

/// Maps data [d0, d1] to pixels [r0, r1], linearly or in log10.
struct Scale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  bool log = false;
  [[nodiscard]] double operator()(double v) const;
};

/// Tick label: decimals from `step`, SI suffixes from 10^4 up ("12k", "1.5M"), bytes in binary units, "%" kept.
std::string format_tick(double v, double step, std::string_view unit);

/// Axis title with the unit in parentheses: "latency (ms)".
std::string axis_title(const Axis& axis);

}  // namespace vtools::vrender
