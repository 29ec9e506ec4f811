#include "tools/vplan/plan_diff_writer.hpp"

#include "libcommon/table.hpp"

namespace vtools::vplan {

void write_plan_diff_table(const PlanDiff& diff, TableStyle style, std::ostream& out) {
  const bool md = style == TableStyle::kMarkdown;
  out << (md ? "## " : "") << "plan diff: " << diff.a_kernel << " (" << diff.a_source << ") -> " << diff.b_kernel
      << " (" << diff.b_source << ")\n";
  if (diff.identical()) {
    out << (md ? "\n" : "") << "identical: no buffer, reuse group, channel, partition or total changed\n";
    return;
  }
  Table t;
  t.headers = {"Section", "Change", "What", "Before", "After"};
  for (const auto& c : diff.changes)
    t.add_row({c.section, c.change, c.subject, c.before.empty() ? "-" : c.before, c.after.empty() ? "-" : c.after});
  out << "\n";
  write_table(t, md, out);
}

OrderedJson plan_diff_document(const PlanDiff& diff) {
  OrderedJson doc = new_document(kPlanDiffFormat, "vplan");
  doc["a"] = {{"kernel", diff.a_kernel}, {"source", diff.a_source}};
  doc["b"] = {{"kernel", diff.b_kernel}, {"source", diff.b_source}};
  doc["identical"] = diff.identical();
  doc["changes"] = OrderedJson::array();
  for (const auto& c : diff.changes)
    doc["changes"].push_back({{"section", c.section},
                              {"change", c.change},
                              {"subject", c.subject},
                              {"before", c.before},
                              {"after", c.after}});
  return doc;
}

}  // namespace vtools::vplan
