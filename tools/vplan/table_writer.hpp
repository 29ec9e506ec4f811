// Human tables of a plan (text or Markdown): kernel line, SMEM buffers (name, size, channels, liveness, offset),
// TMEM buffers (Name | Size (RxC) | Channels | Liveness | OperandD, as the planner prints), channels, budget.
// Also the report of `vplan check`.
#pragma once

#include <ostream>

#include "tools/vplan/plan_model.hpp"

namespace vtools::vplan {

enum class TableStyle { kText, kMarkdown };

void write_tables(const Plan& plan, TableStyle style, std::ostream& out);

/// One line per limit (SMEM bytes, TMEM columns) with "ok" or "OVER", and for each one over budget the buffers
/// live at the peak. Returns whether the plan fits.
bool write_check_report(const Plan& plan, std::ostream& out);

}  // namespace vtools::vplan
