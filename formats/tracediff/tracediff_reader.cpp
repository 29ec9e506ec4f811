#include "formats/tracediff/tracediff_reader.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "libcommon/field_reader.hpp"

namespace vtools::vtrace {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

const std::vector<std::string> kVerdicts = {"faster", "slower", "same", "ambiguous"};
const std::vector<std::string> kIntervalsOver = {"launches", "few launches", "none"};
const std::vector<std::string> kCodes = {"same", "changed", "unknown"};
const std::vector<std::string> kLikelyCauses = {"", "code", "environment"};

double required_number(const FieldReader& f, std::string_view key) {
  const std::optional<double> v = f.optional_number(key);
  if (!v) f.missing(key, "a number");
  return *v;
}

/// A time or other amount the schema bounds below by 0.
double non_negative(const FieldReader& f, std::string_view key) {
  const double v = required_number(f, key);
  if (v < 0) f.expected(key, "a number of at least 0", *f.find(key));
  return v;
}

bool required_boolean(const FieldReader& f, std::string_view key) {
  const std::optional<bool> v = f.optional_boolean(key);
  if (!v) f.missing(key, "true or false");
  return *v;
}

std::string required_one_of(const FieldReader& f, std::string_view key, const std::vector<std::string>& names) {
  if (!f.has(key)) f.missing(key, "a string");
  return f.one_of(key, names);
}

std::uint64_t calls(const FieldReader& f) { return f.required_integer<std::uint64_t>("calls", 1, kU64Max); }

DiffTotals read_totals(const FieldReader& f, std::string& file) {
  DiffTotals t;
  file = f.required_string("file");
  t.launches = f.required_integer<std::uint64_t>("launches");
  t.kernels = f.required_integer<std::uint64_t>("kernels");
  t.gpu_time_ns = non_negative(f, "gpu_time_ns");
  t.busy_ns = non_negative(f, "busy_ns");
  t.copies = f.required_integer<std::uint64_t>("copies");
  t.copy_ns = non_negative(f, "copy_ns");
  return t;
}

ReplayDiff read_replays(const FieldReader& f) {
  ReplayDiff r;
  const FieldReader base = f.required_object("base");
  r.base_graph = base.required_integer<std::uint32_t>("graph_id", 1, std::numeric_limits<std::uint32_t>::max());
  r.base_replays = base.required_integer<std::uint64_t>("replays");
  r.base_median_ns = non_negative(base, "median_ns");
  const FieldReader cand = f.required_object("candidate");
  r.candidate_graph = cand.required_integer<std::uint32_t>("graph_id", 1, std::numeric_limits<std::uint32_t>::max());
  r.candidate_replays = cand.required_integer<std::uint64_t>("replays");
  r.candidate_median_ns = non_negative(cand, "median_ns");
  r.ratio = f.number("ratio", kNaN);
  r.interval = {f.number("ci_low", kNaN), f.number("ci_high", kNaN)};
  r.interval_over = required_one_of(f, "interval_over", kIntervalsOver);
  r.change_pct = f.number("change_pct", kNaN);
  r.verdict = required_one_of(f, "verdict", kVerdicts);
  r.regression = required_boolean(f, "regression");
  return r;
}

KernelDiff read_kernel(const FieldReader& f) {
  KernelDiff k;
  k.name = f.required_string("name");
  k.launch_shape = f.string("launch_shape");
  const FieldReader base = f.required_object("base");
  k.base_calls = calls(base);
  k.base_total_ns = non_negative(base, "total_ns");
  k.base_median_ns = non_negative(base, "median_ns");
  k.base_exposed_ns = non_negative(base, "exposed_ns");
  const FieldReader cand = f.required_object("candidate");
  k.candidate_calls = calls(cand);
  k.candidate_total_ns = non_negative(cand, "total_ns");
  k.candidate_median_ns = non_negative(cand, "median_ns");
  k.candidate_exposed_ns = non_negative(cand, "exposed_ns");
  k.ratio = f.number("ratio", kNaN);
  k.interval = {f.number("ci_low", kNaN), f.number("ci_high", kNaN)};
  k.interval_over = required_one_of(f, "interval_over", kIntervalsOver);
  k.change_pct = f.number("change_pct", kNaN);
  k.total_change_ns = required_number(f, "total_change_ns");
  k.verdict = required_one_of(f, "verdict", kVerdicts);
  k.code = required_one_of(f, "code", kCodes);
  k.likely_cause = required_one_of(f, "likely_cause", kLikelyCauses);
  k.regression = required_boolean(f, "regression");
  return k;
}

KernelOnly read_only(const FieldReader& f) {
  KernelOnly k;
  k.name = f.required_string("name");
  k.launch_shape = f.string("launch_shape");
  k.calls = calls(f);
  k.total_ns = non_negative(f, "total_ns");
  k.median_ns = non_negative(f, "median_ns");
  return k;
}

}  // namespace

TraceDiff trace_diff_from_document(const OrderedJson& doc, std::string_view name) {
  const FieldReader top(doc, "", name);
  TraceDiff d;
  // In the order vtrace diff writes the fields, so a document with several faults is refused for its first.
  d.base = read_totals(top.required_object("base"), d.base_source);
  d.candidate = read_totals(top.required_object("candidate"), d.candidate_source);
  (void)top.optional_number("gpu_time_change_pct");  // derived: change_pct() of the totals
  (void)top.optional_number("busy_change_pct");
  if (top.has("threshold_pct")) d.threshold_pct = non_negative(top, "threshold_pct");
  d.busy_regression = top.boolean("busy_regression", false);
  (void)required_boolean(top, "regression");  // derived: has_regression()
  if (const std::optional<FieldReader> replays = top.object("replays")) d.replays = read_replays(*replays);
  (void)top.required_array("kernels");
  top.for_each("kernels", [&](const FieldReader& k) { d.kernels.push_back(read_kernel(k)); });
  (void)top.required_array("added");
  top.for_each("added", [&](const FieldReader& k) { d.added.push_back(read_only(k)); });
  (void)top.required_array("removed");
  top.for_each("removed", [&](const FieldReader& k) { d.removed.push_back(read_only(k)); });
  return d;
}

TraceDiff read_trace_diff(std::string_view text, std::string_view name) {
  return trace_diff_from_document(parse_document(text, name, {kTraceDiffFormat}), name);
}

}  // namespace vtools::vtrace
