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
    std::sort(ra.begin(), ra.end());
    std::sort(rb.begin(), rb.end());
    ratios.push_back(percentile_sorted(ra, 50) / percentile_sorted(rb, 50));
  }
  std::sort(ratios.begin(), ratios.end());
  return {percentile_sorted(ratios, 2.5), percentile_sorted(ratios, 97.5)};
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
