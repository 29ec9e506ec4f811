#include "formats/bench/compare_reader.hpp"

#include <cmath>

#include "libcommon/field_reader.hpp"

namespace vtools::vbench {

namespace {

/// The scalar fields of `obj` in document order; a string array joined by spaces; null, objects and other arrays
/// left out (they are not facts of a side).
void add_side_fields(const FieldReader& f, std::vector<CompareSideField>& out) {
  for (const auto& item : f.json().items()) {
    const OrderedJson& v = item.value();
    if (v.is_string()) {
      out.push_back({item.key(), v.get<std::string>()});
    } else if (v.is_boolean()) {
      out.push_back({item.key(), v.get<bool>()});
    } else if (v.is_number_float()) {
      out.push_back({item.key(), v.get<double>()});
    } else if (v.is_number()) {
      out.push_back({item.key(), f.integer_value<std::int64_t>(v, item.key())});
    } else if (v.is_array() && !v.empty() && v[0].is_string()) {
      std::string joined;
      for (const std::string& w : f.strings(item.key())) joined += (joined.empty() ? "" : " ") + w;
      out.push_back({item.key(), joined});
    }
  }
}

CompareSide read_side(const FieldReader& top, const char* key) {
  CompareSide side;
  const std::optional<FieldReader> f = top.object(key);
  if (!f) return side;
  add_side_fields(*f, side.fields);
  if (const std::optional<FieldReader> metadata = f->object("metadata")) add_side_fields(*metadata, side.fields);
  side.backend = f->string("backend");
  return side;
}

CompareRow read_row(const FieldReader& c) {
  CompareRow r;
  r.config = c.string("config");
  r.baseline_median_ms = c.number("baseline_median_ms", NAN);
  r.candidate_median_ms = c.number("candidate_median_ms", NAN);
  r.speedup = c.number("speedup", NAN);
  r.ci_low = c.number("ci_low", NAN);
  r.ci_high = c.number("ci_high", NAN);
  r.change_pct = c.number("change_pct", NAN);
  r.verdict = c.string("verdict");
  r.ci_over = c.string("ci_over");
  r.baseline_repetitions = c.integer<std::int64_t>("baseline_repetitions", 0);
  r.candidate_repetitions = c.integer<std::int64_t>("candidate_repetitions", 0);
  r.baseline_repetition_medians_ms = c.numbers("baseline_repetition_medians_ms", NAN);
  r.candidate_repetition_medians_ms = c.numbers("candidate_repetition_medians_ms", NAN);
  r.differs = c.string("differs");
  if (const std::optional<FieldReader> kept = c.object("kept_forwards")) {
    r.has_kept_forwards = true;
    r.baseline_forward = kept->string("baseline");
    r.candidate_forward = kept->string("candidate");
  }
  return r;
}

}  // namespace

CompareDocument read_compare_document(const OrderedJson& doc, std::string_view name) {
  const FieldReader top(doc, "", name);
  CompareDocument out;
  out.baseline = read_side(top, "baseline");
  out.candidate = read_side(top, "candidate");
  top.for_each("comparisons", [&](const FieldReader& c) { out.comparisons.push_back(read_row(c)); });
  out.geomean_speedup = top.number("geomean_speedup", NAN);
  out.geomean_configs = top.integer<std::int64_t>("geomean_configs", 0);
  out.only_in_baseline = top.strings("only_in_baseline");
  out.only_in_candidate = top.strings("only_in_candidate");
  return out;
}

}  // namespace vtools::vbench
