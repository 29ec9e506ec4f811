// Human tables of a plan (text or Markdown): kernel line, SMEM buffers (name, size, channels, liveness, offset),
// TMEM buffers (Name | Size (RxC) | Channels | Liveness | OperandD, as the planner prints), channels, budget.
// Also the report of `vplan check`.
#pragma once

#include <ostream>
#include <string>

#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

enum class TableStyle { kText, kMarkdown };

void write_tables(const Plan& plan, TableStyle style, std::ostream& out);

/// One line per limit (SMEM bytes, TMEM columns) with "ok" or "OVER", for each one over budget the buffers live at
/// the peak, and one line per reuse hazard. Returns whether the plan fits and has no reuse hazard.
bool write_check_report(const Plan& plan, std::ostream& out);

/// "kernel: reuse hazard in buffer.id 0: a (B0, last used by ttg.local_load op 7 in P1) and b (...) are not ordered
/// by ...": the group, both buffers, their ops and partitions.
std::string reuse_hazard_text(const Plan& plan, const ReuseHazard& h);

}  // namespace vtools::vplan
