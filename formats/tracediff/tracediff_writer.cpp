#include "formats/tracediff/tracediff_writer.hpp"

#include <cmath>
#include <utility>

namespace vtools::vtrace {

namespace {

OrderedJson number_or_null(double v) { return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr); }
/// A sum or difference of whole nanoseconds, summed as doubles: written whole (55002137, not 55002137.00000001).
OrderedJson whole_ns(double v) {
  return std::isfinite(v) && std::fabs(v) < 9e18 ? OrderedJson(std::llround(v)) : number_or_null(v);
}

OrderedJson totals_json(const std::string& file, const DiffTotals& t) {
  return OrderedJson{{"file", file},           {"launches", t.launches}, {"kernels", t.kernels},
                     {"gpu_time_ns", t.gpu_time_ns}, {"busy_ns", t.busy_ns}, {"copies", t.copies},
                     {"copy_ns", t.copy_ns}};
}

OrderedJson shape_or_null(const std::string& shape) { return shape.empty() ? OrderedJson(nullptr) : OrderedJson(shape); }

OrderedJson replays_json(const ReplayDiff& r) {
  return OrderedJson{{"base", {{"graph_id", r.base_graph}, {"replays", r.base_replays},
                               {"median_ns", r.base_median_ns}}},
                     {"candidate", {{"graph_id", r.candidate_graph}, {"replays", r.candidate_replays},
                                    {"median_ns", r.candidate_median_ns}}},
                     {"ratio", number_or_null(r.ratio)},
                     {"ci_low", number_or_null(r.interval.low)},
                     {"ci_high", number_or_null(r.interval.high)},
                     {"interval_over", r.interval_over},
                     {"change_pct", number_or_null(r.change_pct)},
                     {"verdict", r.verdict},
                     {"regression", r.regression}};
}

}  // namespace

OrderedJson trace_diff_document(const TraceDiff& d) {
  OrderedJson j = new_document(kTraceDiffFormat, "vtrace");
  j["base"] = totals_json(d.base_source, d.base);
  j["candidate"] = totals_json(d.candidate_source, d.candidate);
  j["gpu_time_change_pct"] = number_or_null(change_pct(d.base.gpu_time_ns, d.candidate.gpu_time_ns));
  j["busy_change_pct"] = number_or_null(change_pct(d.base.busy_ns, d.candidate.busy_ns));
  j["threshold_pct"] = d.threshold_pct >= 0 ? OrderedJson(d.threshold_pct) : OrderedJson(nullptr);
  j["busy_regression"] = d.busy_regression;
  j["regression"] = d.has_regression();
  j["replays"] = d.replays ? replays_json(*d.replays) : OrderedJson(nullptr);
  j["kernels"] = OrderedJson::array();
  for (const KernelDiff& k : d.kernels)
    j["kernels"].push_back(OrderedJson{
        {"name", k.name},
        {"launch_shape", shape_or_null(k.launch_shape)},
        {"base", {{"calls", k.base_calls}, {"total_ns", whole_ns(k.base_total_ns)}, {"median_ns", k.base_median_ns},
                  {"exposed_ns", k.base_exposed_ns}}},
        {"candidate", {{"calls", k.candidate_calls}, {"total_ns", whole_ns(k.candidate_total_ns)},
                       {"median_ns", k.candidate_median_ns}, {"exposed_ns", k.candidate_exposed_ns}}},
        {"ratio", number_or_null(k.ratio)},
        {"ci_low", number_or_null(k.interval.low)},
        {"ci_high", number_or_null(k.interval.high)},
        {"interval_over", k.interval_over},
        {"change_pct", number_or_null(k.change_pct)},
        {"total_change_ns", whole_ns(k.total_change_ns)},
        {"verdict", k.verdict},
        {"code", k.code},
        {"likely_cause", k.likely_cause},
        {"regression", k.regression}});
  for (const auto& [key, list] : {std::pair{"added", &d.added}, std::pair{"removed", &d.removed}}) {
    j[key] = OrderedJson::array();
    for (const KernelOnly& k : *list)
      j[key].push_back(OrderedJson{{"name", k.name}, {"launch_shape", shape_or_null(k.launch_shape)},
                                   {"calls", k.calls}, {"total_ns", whole_ns(k.total_ns)}, {"median_ns", k.median_ns}});
  }
  return j;
}

}  // namespace vtools::vtrace
