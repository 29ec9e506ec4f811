// The vtools.compare document (vbench compare's output) as its readers see it: the two sides' fields as the
// document lists them, and one row per config compared. Absent or null numbers read as NaN, absent strings as "".
// Shape: schemas/vtools.compare.schema.json.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace vtools::vbench {

/// One scalar field of a side (or of its metadata): a string (an array of strings joined by spaces), an integer, a
/// float or a boolean, as the document holds it. Null fields are left out.
struct CompareSideField {
  std::string key;
  std::variant<std::string, std::int64_t, double, bool> value;
};

/// baseline / candidate: which document each side was, and how it ran (file, timestamp, device, backend, ...).
struct CompareSide {
  std::vector<CompareSideField> fields;  ///< the side's own, then its metadata's (older documents), in order
  std::string backend;                   ///< the `backend` field; "" when absent
};

/// comparisons[i]: one config in both documents.
struct CompareRow {
  std::string config;
  double baseline_median_ms = NAN, candidate_median_ms = NAN;
  double speedup = NAN, ci_low = NAN, ci_high = NAN, change_pct = NAN;
  std::string verdict;  ///< "faster", "slower", "same", "untimed"; "" when absent
  std::string ci_over;  ///< "samples" or "repetitions"; "" when absent
  std::int64_t baseline_repetitions = 0, candidate_repetitions = 0;
  std::vector<double> baseline_repetition_medians_ms, candidate_repetition_medians_ms;  ///< NaN for a null
  std::string differs;  ///< how the two runs were set up differently; "" when alike
  bool has_kept_forwards = false;  ///< kept_forwards present: prepare kept different forwards
  std::string baseline_forward, candidate_forward;
};

struct CompareDocument {
  CompareSide baseline, candidate;
  std::vector<CompareRow> comparisons;
  double geomean_speedup = NAN;
  std::int64_t geomean_configs = 0;
  std::vector<std::string> only_in_baseline, only_in_candidate;
};

}  // namespace vtools::vbench
