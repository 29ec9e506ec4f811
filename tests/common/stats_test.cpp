#include "libcommon/stats.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <random>
#include <vector>

using namespace vtools::stats;

TEST_CASE("stats: mean and sample std against hand-computed values") {
  std::vector<double> xs{2, 4, 4, 4, 5, 5, 7, 9};
  CHECK(mean(xs) == doctest::Approx(5.0));
  // sum of squared deviations = 32, n - 1 = 7
  CHECK(sample_std(xs) == doctest::Approx(std::sqrt(32.0 / 7.0)));
}

TEST_CASE("stats: edge cases n = 0 and n = 1") {
  std::vector<double> none, one{3.5};
  CHECK(std::isnan(mean(none)));
  CHECK(sample_std(none) == 0.0);
  CHECK(sample_std(one) == 0.0);
  CHECK(std::isnan(percentile_sorted(none, 50)));
  CHECK(percentile_sorted(one, 99) == 3.5);
  auto s = summarize(none);
  CHECK(s.n == 0);
  CHECK(std::isnan(s.median));
}

TEST_CASE("stats: percentiles interpolate linearly between closest ranks (NumPy 'linear')") {
  std::vector<double> xs{1, 2, 3, 4};  // rank = p/100 * 3
  CHECK(percentile_sorted(xs, 50) == doctest::Approx(2.5));
  CHECK(percentile_sorted(xs, 5) == doctest::Approx(1.15));
  CHECK(percentile_sorted(xs, 95) == doctest::Approx(3.85));
  CHECK(percentile_sorted(xs, 0) == 1);
  CHECK(percentile_sorted(xs, 100) == 4);
  CHECK(percentile_sorted(xs, 150) == 4);  // clamped
  CHECK(median(std::vector<double>{5, 1, 3}) == 3);
}

TEST_CASE("stats: summary is ordered and drops NaN") {
  std::vector<double> xs;
  for (int i = 0; i < 101; ++i) xs.push_back(static_cast<double>((i * 37) % 101));
  xs.push_back(NAN);
  auto s = summarize(xs);
  CHECK(s.n == 101);
  CHECK(s.nan_count == 1);
  CHECK(s.min == 0);
  CHECK(s.max == 100);
  CHECK(s.median == 50);
  CHECK(s.p5 == doctest::Approx(5));
  CHECK(s.p99 == doctest::Approx(99));
  CHECK(s.min <= s.p5);
  CHECK(s.p5 <= s.median);
  CHECK(s.median <= s.p95);
  CHECK(s.p95 <= s.p99);
  CHECK(s.p99 <= s.max);
}

TEST_CASE("stats: bootstrap CI of a ratio of medians brackets the true ratio and is deterministic") {
  std::vector<double> a, b;
  for (int i = 0; i < 50; ++i) {
    a.push_back(2.0 + 0.01 * (i % 7));
    b.push_back(1.0 + 0.005 * (i % 5));
  }
  auto ci = bootstrap_ratio_of_medians(a, b, 1000, 42);
  double ratio = median(a) / median(b);
  CHECK(ci.low <= ratio);
  CHECK(ratio <= ci.high);
  CHECK(ci.low > 1.9);
  CHECK(ci.high < 2.1);
  auto again = bootstrap_ratio_of_medians(a, b, 1000, 42);
  CHECK(again.low == ci.low);
  CHECK(again.high == ci.high);
  CHECK(std::isnan(bootstrap_ratio_of_medians({}, b).low));
}

TEST_CASE("stats: Welch's interval of a ratio of geometric means, by hand and against the bootstrap for few values") {
  // log a = 0.01, 0.03, 0.02 (mean 0.02, sample variance 1e-4), b all 1: se = sqrt(1e-4 / 3), df = 2, t = 4.303.
  const std::vector<double> a = {std::exp(0.01), std::exp(0.03), std::exp(0.02)}, ones = {1, 1, 1};
  const Interval ci = welch_ratio_interval(a, ones);
  const double half = 4.303 * std::sqrt(1e-4 / 3);
  CHECK(ci.low == doctest::Approx(std::exp(0.02 - half)).epsilon(1e-9));
  CHECK(ci.high == doctest::Approx(std::exp(0.02 + half)).epsilon(1e-9));
  CHECK(student_t_975(2.9) == 4.303);  // whole degrees below: never narrower
  CHECK(student_t_975(40) == doctest::Approx(2.021).epsilon(1e-3));
  CHECK(student_t_975(1000) == doctest::Approx(1.962).epsilon(1e-3));
  CHECK(std::isnan(welch_ratio_interval({{1.0}}, ones).low));
  CHECK(std::isnan(welch_ratio_interval({{1.0, 0.0}}, ones).high));
  // Repetition medians of one gpt_nano bf16 config on an H100 (us), two runs of the same code: no 3 of one lie
  // among the other's, which a percentile bootstrap took for "slower"; no test at 95% can tell 3 from 3 that way.
  const std::vector<double> run1 = {45.22, 45.41, 45.17}, run2 = {45.47, 45.52, 45.49};
  CHECK(bootstrap_ratio_of_medians(run1, run2).high < 1.0);
  const Interval welch = welch_ratio_interval(run1, run2);
  CHECK(welch.low < 1.0);
  CHECK(welch.high > 1.0);
  // Coverage: 3 against 3 draws of one distribution, 2000 times. Welch's interval holds the true ratio (1) about
  // 95% of the time (98% here: its df are rounded down); the bootstrap's about 90%.
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(100.0, 1.0);
  int welch_hits = 0, bootstrap_hits = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x(3), y(3);
    for (double& v : x) v = noise(rng);
    for (double& v : y) v = noise(rng);
    const Interval w = welch_ratio_interval(x, y), bs = bootstrap_ratio_of_medians(x, y, 200);
    welch_hits += w.low <= 1.0 && 1.0 <= w.high;
    bootstrap_hits += bs.low <= 1.0 && 1.0 <= bs.high;
  }
  MESSAGE("coverage of 95% intervals, 3 against 3: Welch ", welch_hits / double(trials), ", bootstrap ",
          bootstrap_hits / double(trials));
  CHECK(welch_hits >= 0.95 * trials);
  CHECK(bootstrap_hits < 0.92 * trials);
}

TEST_CASE("stats: relative L2 error") {
  const std::vector<float> ref = {3.f, 4.f}, got = {3.f, 4.5f};
  CHECK(vtools::stats::relative_l2_error(got, ref) == doctest::Approx(0.1));  // 0.5 / 5
  CHECK(vtools::stats::relative_l2_error(ref, ref) == 0.0);
  const std::vector<double> ref64 = {3.0, 4.0};
  CHECK(vtools::stats::relative_l2_error(got, ref64) == doctest::Approx(0.1));
  const std::vector<float> zeros = {0.f, 0.f};
  CHECK(vtools::stats::relative_l2_error(got, zeros) == doctest::Approx(std::sqrt(9.0 + 20.25)));  // absolute
  const std::vector<float> nan = {3.f, std::nanf("")};
  CHECK(std::isnan(vtools::stats::relative_l2_error(nan, ref)));
  CHECK(vtools::stats::relative_l2_error(std::vector<float>{3.f}, ref) == 0.0);  // the common prefix only
}

TEST_CASE("stats: a gate's threshold is exceeded only past it, float rounding aside") {
  CHECK_FALSE(exceeds_threshold((1.05 / 1.0 - 1) * 100, 5));  // 5.000000000000004: exactly the threshold
  CHECK(exceeds_threshold(5.001, 5));
  CHECK_FALSE(exceeds_threshold(4.999, 5));
  CHECK(exceeds_threshold(0.001, 0));
  CHECK_FALSE(exceeds_threshold(0, 0));
  CHECK_FALSE(exceeds_threshold(1e9, -1));  // a negative threshold: no gate
}
