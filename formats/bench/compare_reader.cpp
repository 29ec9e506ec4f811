#include "formats/bench/compare_reader.hpp"

#include <cmath>

#include "formats/bench/field_reader.hpp"

namespace vtools::vbench {

namespace {

/// The scalar fields of `obj` in document order; a string array joined by spaces; null, objects and other arrays
/// left out (they are not facts of a side).
void add_side_fields(const FieldReader& f, const OrderedJson& obj, std::vector<CompareSideField>& out) {
  for (const auto& item : obj.items()) {
    const OrderedJson& v = item.value();
    if (v.is_string()) {
      out.push_back({item.key(), v.get<std::string>()});
    } else if (v.is_boolean()) {
      out.push_back({item.key(), v.get<bool>()});
    } else if (v.is_number_float()) {
      out.push_back({item.key(), v.get<double>()});
    } else if (v.is_number()) {
      const std::optional<std::int64_t> i = json_integer<std::int64_t>(v);
      if (!i) f.fail("field '" + item.key() + "' " + integer_out_of_range<std::int64_t>(v));
      out.push_back({item.key(), *i});
    } else if (v.is_array() && !v.empty() && v[0].is_string()) {
      out.push_back({item.key(), f.text(obj, item.key().c_str())});
    }
  }
}

CompareSide read_side(const OrderedJson& doc, const char* key, std::string_view name) {
  CompareSide side;
  const FieldReader top(name, "");
  const OrderedJson& obj = top.object(doc, key);
  const FieldReader f(name, key);
  add_side_fields(f, obj, side.fields);
  add_side_fields(FieldReader(name, std::string(key) + " metadata"), f.object(obj, "metadata"), side.fields);
  side.backend = f.get(obj, "backend", std::string());
  return side;
}

/// An array of numbers, null read as NaN.
std::vector<double> numbers(const FieldReader& f, const OrderedJson& obj, const char* key) {
  std::vector<double> out;
  for (const OrderedJson* v : f.array(obj, key)) {
    if (!v->is_null() && !v->is_number()) f.fail("'" + std::string(key) + "' holds a non-number");
    out.push_back(v->is_null() ? NAN : v->get<double>());
  }
  return out;
}

CompareRow read_row(const FieldReader& top, const OrderedJson& c, std::size_t index) {
  if (!c.is_object()) top.fail("comparison " + std::to_string(index) + " is not an object");
  CompareRow r;
  r.config = top.get(c, "config", std::string());
  const FieldReader f = FieldReader(top.document(), "comparison '" + r.config + "'");
  r.baseline_median_ms = f.get(c, "baseline_median_ms", static_cast<double>(NAN));
  r.candidate_median_ms = f.get(c, "candidate_median_ms", static_cast<double>(NAN));
  r.speedup = f.get(c, "speedup", static_cast<double>(NAN));
  r.ci_low = f.get(c, "ci_low", static_cast<double>(NAN));
  r.ci_high = f.get(c, "ci_high", static_cast<double>(NAN));
  r.change_pct = f.get(c, "change_pct", static_cast<double>(NAN));
  r.verdict = f.get(c, "verdict", std::string());
  r.ci_over = f.get(c, "ci_over", std::string());
  r.baseline_repetitions = f.get(c, "baseline_repetitions", std::int64_t{0});
  r.candidate_repetitions = f.get(c, "candidate_repetitions", std::int64_t{0});
  r.baseline_repetition_medians_ms = numbers(f, c, "baseline_repetition_medians_ms");
  r.candidate_repetition_medians_ms = numbers(f, c, "candidate_repetition_medians_ms");
  r.differs = f.get(c, "differs", std::string());
  if (c.contains("kept_forwards") && !c["kept_forwards"].is_null()) {
    const OrderedJson& kept = f.object(c, "kept_forwards");
    r.has_kept_forwards = true;
    r.baseline_forward = f.get(kept, "baseline", std::string());
    r.candidate_forward = f.get(kept, "candidate", std::string());
  }
  return r;
}

}  // namespace

CompareDocument read_compare_document(const OrderedJson& doc, std::string_view name) {
  const FieldReader top(name, "");
  CompareDocument out;
  out.baseline = read_side(doc, "baseline", name);
  out.candidate = read_side(doc, "candidate", name);
  const std::vector<const OrderedJson*> rows = top.array(doc, "comparisons");
  for (std::size_t i = 0; i < rows.size(); ++i) out.comparisons.push_back(read_row(top, *rows[i], i));
  out.geomean_speedup = top.get(doc, "geomean_speedup", static_cast<double>(NAN));
  out.geomean_configs = top.get(doc, "geomean_configs", std::int64_t{0});
  out.only_in_baseline = top.strings(doc, "only_in_baseline");
  out.only_in_candidate = top.strings(doc, "only_in_candidate");
  return out;
}

}  // namespace vtools::vbench
