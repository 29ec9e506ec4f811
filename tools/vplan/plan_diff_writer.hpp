// Writes a plan diff: a text or Markdown table of the changes, or a coloured DOT graph of them (the vtools.plandiff
// document is written by formats/plandiff/plandiff_writer).
#pragma once

#include <ostream>

#include "tools/vplan/plan_diff.hpp"
#include "tools/vplan/table_writer.hpp"

namespace vtools::vplan {

/// One table of changes, or "identical" when there are none.
void write_plan_diff_table(const PlanDiff& diff, TableStyle style, std::ostream& out);

/// Graphviz DOT of the changes, coloured by kind (added green, removed red and dashed, resized/moved/changed amber),
/// one cluster per section, with a legend; an identical pair is one node saying so.
void write_plan_diff_dot(const PlanDiff& diff, std::ostream& out);

}  // namespace vtools::vplan
