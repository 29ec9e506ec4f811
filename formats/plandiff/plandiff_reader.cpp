#include "formats/plandiff/plandiff_reader.hpp"

#include <string>
#include <vector>

#include "libcommon/field_reader.hpp"

namespace vtools::vplan {

namespace {

const std::vector<std::string> kChanges = {"added", "removed", "resized", "moved", "changed"};

void read_side(const FieldReader& top, const char* key, std::string& kernel, std::string& source) {
  const FieldReader side = top.required_object(key);
  kernel = side.required_string("kernel");
  source = side.required_string("source");
}

PlanChange read_change(const FieldReader& f) {
  PlanChange c;
  c.section = f.required_string("section");
  if (!f.has("change")) f.missing("change", "a string");
  c.change = f.one_of("change", kChanges);
  c.subject = f.required_string("subject");
  c.before = f.required_string("before");
  c.after = f.required_string("after");
  return c;
}

}  // namespace

PlanDiff plan_diff_from_document(const OrderedJson& doc, std::string_view name) {
  const FieldReader top(doc, "", name);
  PlanDiff d;
  read_side(top, "a", d.a_kernel, d.a_source);
  read_side(top, "b", d.b_kernel, d.b_source);
  if (!top.optional_boolean("identical")) top.missing("identical", "true or false");  // derived: changes.empty()
  (void)top.required_array("changes");
  top.for_each("changes", [&](const FieldReader& c) { d.changes.push_back(read_change(c)); });
  return d;
}

PlanDiff read_plan_diff(std::string_view text, std::string_view name) {
  return plan_diff_from_document(parse_document(text, name, {kPlanDiffFormat}), name);
}

}  // namespace vtools::vplan
