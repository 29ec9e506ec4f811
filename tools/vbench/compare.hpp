// Compares two vtools.bench documents config by config: medians, speedup = baseline median / candidate median
// (> 1: the candidate is faster), a 95% CI of that ratio (a bootstrap over the raw samples,
// stats::bootstrap_ratio_of_medians; where both runs have two or more repetitions, vbench run --repetitions, Welch's
// t interval over the logarithms of the repetitions' medians, stats::welch_ratio_interval), and a verdict: "faster" when the CI lies above 1, "slower" below 1, "same" when it contains 1, "untimed" when either
// side has no samples.
#pragma once

#include <string>
#include <vector>

#include "libcommon/document.hpp"
#include "tools/vbench/bench_document.hpp"

namespace vtools::vbench {

struct ConfigComparison {
  std::string config;
  double baseline_median_ms = 0, candidate_median_ms = 0;
  std::size_t baseline_n = 0, candidate_n = 0;
  double speedup = 0;              ///< NaN when untimed
  double ci_low = 0, ci_high = 0;  ///< NaN when untimed
  /// Where both runs have 2 or more repetitions, their medians: the CI is then taken over them, which moves
  /// with what changes from one prepared forward to the next (allocations, the graph, clocks), not only the
  /// samples of one timing, whose CI is far narrower than the drift between runs (bench/RESULTS.md, session 28).
  /// Empty: the CI resamples the samples.
  std::vector<double> baseline_repetition_medians, candidate_repetition_medians;
  /// What the CI was taken over: "repetitions" (their medians) or "samples".
  [[nodiscard]] const char* ci_over() const {
    return baseline_repetition_medians.empty() ? "samples" : "repetitions";
  }
  double change_pct = 0;           ///< (candidate / baseline − 1)·100; positive = slower
  std::string verdict;
  bool regression = false;         ///< "slower" and change_pct > the threshold
  /// How the two runs were set up differently ("dtype fp32 vs bf16, caches warm vs cold"); "" when alike. A speedup
  /// between such runs is still computed: comparing dtypes or warm and cold caches can be the point.
  std::string differs;
  /// The forwards each run's prepare kept (cuda's plan search), where both name one and they differ; else "". A
  /// change then may come from the pick rather than the code.
  std::string baseline_forward, candidate_forward;
};

struct Comparison {
  std::vector<ConfigComparison> configs;     ///< configs present in both, in baseline order
  std::vector<std::string> only_in_baseline, only_in_candidate;
  /// The implementations compared (each side's one backend: "cuda", "hf-gpt2", ...) when they differ, else "": the
  /// table then names its columns after them.
  std::string baseline_backend, candidate_backend;
  double threshold_pct = -1;                 ///< --fail-on-regression; < 0 when not asked
  /// Geometric mean of the speedups of the configs timed on both sides (Google Benchmark's OVERALL_GEOMEAN): one
  /// figure for a sweep or a suite. NaN when none was; `geomean_n` configs went into it.
  double geomean_speedup = 0;
  std::size_t geomean_n = 0;
  [[nodiscard]] bool has_regression() const;
};

/// The settings two runs of a config differ in (dtype, B, T, caches; not the backend), "" when none.
std::string setup_differences(const BenchEntry& baseline, const BenchEntry& candidate);

/// Compares entries; `threshold_pct` < 0 marks no regressions.
Comparison compare_benchmarks(const std::vector<BenchEntry>& baseline, const std::vector<BenchEntry>& candidate,
                              double threshold_pct);

/// vtools.compare: the envelope, baseline/candidate {file, timestamp, device, backend, dtype} and the comparisons.
OrderedJson compare_document(const Comparison& cmp, const OrderedJson& baseline_doc, const std::string& baseline_name,
                             const OrderedJson& candidate_doc, const std::string& candidate_name);

/// A table ("table") or Markdown ("markdown") of the comparison.
void write_compare_table(const Comparison& cmp, const std::string& format, std::ostream& out);

}  // namespace vtools::vbench
