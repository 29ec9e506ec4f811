#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace vtools::stats {

static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double mean(std::span<const double> xs) {
  if (xs.empty()) return kNaN;
  double sum = 0;
  for (double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

double sample_std(std::span<const double> xs) {
  if (xs.size() < 2) return 0.0;
  double m = mean(xs);
  double ss = 0;
  for (double x : xs) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(xs.size() - 1));
}

double percentile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return kNaN;
  p = std::clamp(p, 0.0, 100.0);
  double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(rank));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double median(std::span<const double> xs) {
  std::vector<double> s(xs.begin(), xs.end());
  std::sort(s.begin(), s.end());
  return percentile_sorted(s, 50);
}

Summary summarize(std::span<const double> xs) {
  Summary s;
  std::vector<double> v;
  v.reserve(xs.size());
  for (double x : xs) {
    if (std::isnan(x)) ++s.nan_count;
    else v.push_back(x);
  }
  std::sort(v.begin(), v.end());
  s.n = v.size();
  if (v.empty()) {
    s.mean = s.std = s.min = s.max = s.median = s.p5 = s.p25 = s.p75 = s.p95 = s.p99 = kNaN;
    return s;
  }
  s.mean = mean(v);
  s.std = sample_std(v);
  s.min = v.front();
  s.max = v.back();
  s.median = percentile_sorted(v, 50);
  s.p5 = percentile_sorted(v, 5);
  s.p25 = percentile_sorted(v, 25);
  s.p75 = percentile_sorted(v, 75);
  s.p95 = percentile_sorted(v, 95);
  s.p99 = percentile_sorted(v, 99);
  return s;
}

namespace {

/// percentile_sorted(sort(xs), 50), bit for bit, by selection instead of a sort (the bootstrap takes thousands of
/// medians of samples that can be 10^5 long: vtrace diff of two traces of a 173k-launch run). Reorders xs.
double median_by_selection(std::vector<double>& xs) {
  if (xs.empty()) return kNaN;
  const double rank = 0.5 * static_cast<double>(xs.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const double frac = rank - static_cast<double>(lo);
  std::nth_element(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(lo), xs.end());
  const double at_lo = xs[lo];
  if (lo + 1 >= xs.size()) return at_lo + (at_lo - at_lo) * frac;
  const double at_hi = *std::min_element(xs.begin() + static_cast<std::ptrdiff_t>(lo) + 1, xs.end());
  return at_lo + (at_hi - at_lo) * frac;
}

}  // namespace

Interval bootstrap_ratio_of_medians(std::span<const double> a, std::span<const double> b, int resamples,
                                    std::uint64_t seed) {
  if (a.empty() || b.empty() || resamples <= 0) return {kNaN, kNaN};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick_a(0, a.size() - 1), pick_b(0, b.size() - 1);
  std::vector<double> ra(a.size()), rb(b.size()), ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (auto& x : ra) x = a[pick_a(rng)];
    for (auto& x : rb) x = b[pick_b(rng)];
    ratios.push_back(median_by_selection(ra) / median_by_selection(rb));
  }
  std::sort(ratios.begin(), ratios.end());
  return {percentile_sorted(ratios, 2.5), percentile_sorted(ratios, 97.5)};
}

double student_t_975(double df) {
  // t(0.975, df) for df = 1..30 (any statistics table).
  static constexpr double kTable[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                        2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                        2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (!(df >= 1)) df = 1;
  if (df < 31) return kTable[static_cast<int>(std::floor(df)) - 1];
  const double z = 1.959964, z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

Interval welch_ratio_interval(std::span<const double> a, std::span<const double> b) {
  if (a.size() < 2 || b.size() < 2) return {kNaN, kNaN};
  auto logs = [](std::span<const double> xs) {
    std::vector<double> out;
    for (const double x : xs) out.push_back(x > 0 ? std::log(x) : kNaN);  // NaN propagates below
    return out;
  };
  const std::vector<double> la = logs(a), lb = logs(b);
  const double va = std::pow(sample_std(la), 2) / static_cast<double>(la.size());  // squared standard errors
  const double vb = std::pow(sample_std(lb), 2) / static_cast<double>(lb.size());
  const double diff = mean(la) - mean(lb);
  if (!std::isfinite(diff + va + vb)) return {kNaN, kNaN};
  const double se2 = va + vb;
  // Welch-Satterthwaite; with no spread on either side the pooled df (the interval is a point anyway).
  const double df = se2 > 0 ? se2 * se2 / (va * va / static_cast<double>(la.size() - 1) +
                                           vb * vb / static_cast<double>(lb.size() - 1))
                            : static_cast<double>(la.size() + lb.size() - 2);
  const double half = student_t_975(df) * std::sqrt(se2);
  return {std::exp(diff - half), std::exp(diff + half)};
}

namespace {
template <typename Ref>
double relative_l2(std::span<const float> got, std::span<const Ref> ref) {
  double num = 0, den = 0;
  const std::size_t n = std::min(got.size(), ref.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(got[i]) - static_cast<double>(ref[i]);
    num += d * d;
    den += static_cast<double>(ref[i]) * static_cast<double>(ref[i]);
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}
}  // namespace

double relative_l2_error(std::span<const float> got, std::span<const float> ref) { return relative_l2(got, ref); }
double relative_l2_error(std::span<const float> got, std::span<const double> ref) { return relative_l2(got, ref); }

}  // namespace vtools::stats
