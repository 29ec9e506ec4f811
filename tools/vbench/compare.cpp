#include "tools/vbench/compare.hpp"

#include <algorithm>
#include <cmath>

#include "formats/bench/benchmark_key.hpp"
#include "libcommon/stats.hpp"

namespace vtools::vbench {

bool Comparison::has_regression() const {
  return std::any_of(configs.begin(), configs.end(), [](const ConfigComparison& c) { return c.regression; });
}

std::string setup_differences(const BenchEntry& a, const BenchEntry& b) {
  std::string out;
  auto add = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y) out += (out.empty() ? "" : ", ") + std::string(what) + " " + x + " vs " + y;
  };
  add("dtype", a.dtype, b.dtype);
  add("B", std::to_string(a.batch_size), std::to_string(b.batch_size));
  add("T", std::to_string(a.seq_len), std::to_string(b.seq_len));
  add("caches", a.caches, b.caches);
  return out;
}

Comparison compare_benchmarks(const std::vector<BenchEntry>& baseline, const std::vector<BenchEntry>& candidate,
                              double threshold_pct) {
  Comparison cmp;
  cmp.threshold_pct = threshold_pct;
  auto one_backend = [](const std::vector<BenchEntry>& v) {
    for (const auto& e : v)
      if (e.backend != v.front().backend) return std::string();
    return v.empty() ? std::string() : v.front().backend;
  };
  if (const std::string a = one_backend(baseline), b = one_backend(candidate); !a.empty() && !b.empty() && a != b) {
    cmp.baseline_backend = a;
    cmp.candidate_backend = b;
  }
  // By name; failing that, a plain config name and a sweep's key of the same config and shape are the same
  // benchmark (formats/bench paired_benchmark), so a single run compares with a sweep.
  auto shapes_of = [](const std::vector<BenchEntry>& v) {
    std::vector<BenchmarkShape> shapes;
    for (const auto& e : v) shapes.push_back({e.name, e.batch_size, e.seq_len});
    return shapes;
  };
  const std::vector<BenchmarkShape> baseline_shapes = shapes_of(baseline), candidate_shapes = shapes_of(candidate);
  auto find = [](const std::vector<BenchEntry>& v, const std::vector<BenchmarkShape>& shapes,
                 const BenchEntry& x) -> const BenchEntry* {
    const std::optional<std::size_t> i = paired_benchmark(shapes, {x.name, x.batch_size, x.seq_len});
    return i ? &v[*i] : nullptr;
  };
  for (const auto& b : baseline) {
    const BenchEntry* c = find(candidate, candidate_shapes, b);
    if (!c) {
      cmp.only_in_baseline.push_back(b.name);
      continue;
    }
    ConfigComparison r;
    r.config = b.name.size() >= c->name.size() ? b.name : c->name;  // the sweep's key where one side has it
    r.differs = setup_differences(b, *c);
    if (!b.kept_forward.empty() && !c->kept_forward.empty() && b.kept_forward != c->kept_forward) {
      r.baseline_forward = b.kept_forward;
      r.candidate_forward = c->kept_forward;
    }
    r.baseline_n = b.samples_ms.size();
    r.candidate_n = c->samples_ms.size();
    r.baseline_median_ms = b.samples_ms.empty() ? b.median_ms : stats::median(b.samples_ms);
    r.candidate_median_ms = c->samples_ms.empty() ? c->median_ms : stats::median(c->samples_ms);
    r.speedup = r.ci_low = r.ci_high = r.change_pct = NAN;
    if (b.samples_ms.empty() || c->samples_ms.empty()) {
      r.verdict = "untimed";
    } else {
      r.speedup = r.baseline_median_ms / r.candidate_median_ms;
      r.change_pct = (r.candidate_median_ms / r.baseline_median_ms - 1.0) * 100.0;
      if (b.repetitions.size() > 1 && c->repetitions.size() > 1) {
        r.baseline_repetition_medians = repetition_medians(b.repetitions);
        r.candidate_repetition_medians = repetition_medians(c->repetitions);
      }
      // Over repetitions: a handful of medians, too few for a bootstrap's percentiles (welch_ratio_interval).
      const stats::Interval ci =
          r.baseline_repetition_medians.empty()
              ? stats::bootstrap_ratio_of_medians(b.samples_ms, c->samples_ms)
              : stats::welch_ratio_interval(r.baseline_repetition_medians, r.candidate_repetition_medians);
      r.ci_low = ci.low;
      r.ci_high = ci.high;
      r.verdict = ci.low > 1.0 ? "faster" : ci.high < 1.0 ? "slower" : "same";
      r.regression = r.verdict == "slower" && stats::exceeds_threshold(r.change_pct, threshold_pct);
    }
    cmp.configs.push_back(r);
  }
  for (const auto& c : candidate)
    if (!find(baseline, baseline_shapes, c)) cmp.only_in_candidate.push_back(c.name);
  double log_sum = 0;
  for (const ConfigComparison& c : cmp.configs) {
    if (!(std::isfinite(c.speedup) && c.speedup > 0)) continue;
    log_sum += std::log(c.speedup);
    ++cmp.geomean_n;
  }
  cmp.geomean_speedup = cmp.geomean_n > 0 ? std::exp(log_sum / static_cast<double>(cmp.geomean_n)) : NAN;
  return cmp;
}

namespace {
OrderedJson number_or_null(double v) { return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr); }

OrderedJson side_json(const OrderedJson& doc, const std::string& name) {
  const OrderedJson meta = doc.contains("metadata") && doc["metadata"].is_object() ? doc["metadata"] : OrderedJson();
  auto get = [&](const char* key) { return meta.is_object() && meta.contains(key) ? meta[key] : OrderedJson(nullptr); };
  return {{"file", name},          {"timestamp", get("timestamp")}, {"gpu_name", get("gpu_name")},
          {"device_name", get("device_name")}, {"backend", get("backend")}, {"dtype", get("dtype")},
          {"batch_size", get("batch_size")},   {"seq_len", get("seq_len")},
          {"caches", get("caches").is_null() ? OrderedJson("warm") : get("caches")}};  // absent: before --caches
}
}  // namespace

OrderedJson compare_document(const Comparison& cmp, const OrderedJson& baseline_doc, const std::string& baseline_name,
                             const OrderedJson& candidate_doc, const std::string& candidate_name) {
  OrderedJson doc = new_document(kCompareFormat, "vbench");
  doc["baseline"] = side_json(baseline_doc, baseline_name);
  doc["candidate"] = side_json(candidate_doc, candidate_name);
  doc["confidence"] = 0.95;
  doc["regression_threshold_pct"] = cmp.threshold_pct >= 0 ? OrderedJson(cmp.threshold_pct) : OrderedJson(nullptr);
  OrderedJson rows = OrderedJson::array();
  for (const auto& c : cmp.configs) {
    rows.push_back({{"config", c.config},
                    {"baseline_median_ms", number_or_null(c.baseline_median_ms)},
                    {"candidate_median_ms", number_or_null(c.candidate_median_ms)},
                    {"baseline_n", c.baseline_n},
                    {"candidate_n", c.candidate_n},
                    {"speedup", number_or_null(c.speedup)},
                    {"ci_low", number_or_null(c.ci_low)},
                    {"ci_high", number_or_null(c.ci_high)},
                    {"ci_over", c.ci_over()},
                    {"baseline_repetitions", c.baseline_repetition_medians.size()},
                    {"candidate_repetitions", c.candidate_repetition_medians.size()},
                    {"baseline_repetition_medians_ms", c.baseline_repetition_medians},
                    {"candidate_repetition_medians_ms", c.candidate_repetition_medians},
                    {"change_pct", number_or_null(c.change_pct)},
                    {"verdict", c.verdict},
                    {"regression", c.regression},
                    {"differs", c.differs.empty() ? OrderedJson(nullptr) : OrderedJson(c.differs)},
                    {"kept_forwards", c.baseline_forward.empty()
                                          ? OrderedJson(nullptr)
                                          : OrderedJson{{"baseline", c.baseline_forward},
                                                        {"candidate", c.candidate_forward}}}});
  }
  doc["comparisons"] = rows;
  doc["geomean_speedup"] = number_or_null(cmp.geomean_speedup);
  doc["geomean_configs"] = cmp.geomean_n;
  doc["only_in_baseline"] = cmp.only_in_baseline;
  doc["only_in_candidate"] = cmp.only_in_candidate;
  return doc;
}

}  // namespace vtools::vbench
