#include "formats/plandiff/plandiff_writer.hpp"

namespace vtools::vplan {

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
