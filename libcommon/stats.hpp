// The one statistics module of vtools. Each function states its definition and edge cases; tools never loop over
// samples themselves (nvbench's statistics.cuh is the model).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vtools::stats {

/// Arithmetic mean. n = 0 -> NaN.
double mean(std::span<const double> xs);

/// Sample standard deviation (divisor n - 1). n < 2 -> 0 (one sample has no spread we can estimate; callers that
/// must distinguish check n).
double sample_std(std::span<const double> xs);

/// Percentile `p` in [0, 100] of *sorted* data by linear interpolation between closest ranks (rank = p/100·(n-1),
/// NumPy's default "linear", Hyndman-Fan type 7). n = 0 -> NaN; n = 1 -> the sample. p outside [0,100] is clamped.
double percentile_sorted(std::span<const double> sorted, double p);

/// Median = percentile 50 (mean of the two middle values for even n).
double median(std::span<const double> xs);

/// Everything a timing summary reports. NaN samples are dropped first and counted in `nan_count`.
struct Summary {
  std::size_t n = 0;
  std::size_t nan_count = 0;
  double mean = 0, std = 0, min = 0, max = 0, median = 0, p5 = 0, p25 = 0, p75 = 0, p95 = 0, p99 = 0;
};

/// Summary of `xs`. n = 0 -> all fields NaN except counts.
Summary summarize(std::span<const double> xs);

/// Relative L2 error ‖got − ref‖₂ / ‖ref‖₂ over the first min(sizes) values, in double; ‖got − ref‖₂ when ref is
/// all zeros; NaN when either holds a NaN (a kernel that left outputs unwritten over a NaN fill shows).
double relative_l2_error(std::span<const float> got, std::span<const float> ref);
double relative_l2_error(std::span<const float> got, std::span<const double> ref);

/// A two-sided confidence interval.
struct Interval {
  double low = 0, high = 0;
};

/// Percentile bootstrap 95% CI of median(a) / median(b): `resamples` times, resample a and b with replacement
/// (independently), take the ratio of medians; the interval is the 2.5th..97.5th percentile of those ratios.
/// Deterministic for a given `seed`. Either input empty -> {NaN, NaN}.
Interval bootstrap_ratio_of_medians(std::span<const double> a, std::span<const double> b, int resamples = 2000,
                                    std::uint64_t seed = 0x5eed);

/// 95% CI of geomean(a) / geomean(b) by Welch's t interval on the logarithms (unequal variances, Welch-Satterthwaite
/// degrees of freedom, the t quantile taken at the whole degrees below them: never narrower). For few values, such
/// as the medians of a handful of repetitions, where a bootstrap is far too narrow: resampling 3 values against 3
/// can put the whole interval on one side of 1 when no test at 95% could. Fewer than 2 values on a side, or a value
/// <= 0 or NaN -> {NaN, NaN}.
Interval welch_ratio_interval(std::span<const double> a, std::span<const double> b);

/// The 97.5th percentile of Student's t with `df` degrees of freedom (df >= 1), for two-sided 95% intervals:
/// exact to 3 decimals at whole df up to 30, a Cornish-Fisher expansion above.
double student_t_975(double df);

/// Whether a change of `change_pct` percent exceeds a gate's `threshold_pct` ("slower by more than PCT percent"):
/// a change computed as exactly the threshold (1.05 / 1 - 1 = 5.000000000000004 %) does not; a negative threshold
/// is no gate.
inline bool exceeds_threshold(double change_pct, double threshold_pct) {
  return threshold_pct >= 0 && change_pct > threshold_pct * (1 + 1e-12) + 1e-12;
}

}  // namespace vtools::stats
