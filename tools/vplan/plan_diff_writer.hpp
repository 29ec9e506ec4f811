// Writes a plan diff: a text or Markdown table of the changes, or a vtools.plandiff JSON document
// (schemas/vtools.plandiff.schema.json; version kPlanDiffFormat in libcommon/document.hpp).
#pragma once

#include <ostream>

#include "libcommon/document.hpp"
#include "tools/vplan/plan_diff.hpp"
#include "tools/vplan/table_writer.hpp"

namespace vtools::vplan {

/// One table of changes, or "identical" when there are none.
void write_plan_diff_table(const PlanDiff& diff, TableStyle style, std::ostream& out);

/// The whole document, envelope included.
OrderedJson plan_diff_document(const PlanDiff& diff);

}  // namespace vtools::vplan
