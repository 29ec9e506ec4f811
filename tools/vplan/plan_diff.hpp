// What changed between two plans (a passing and a failing variant, two configs, two compiler versions): buffers
// added / removed / resized / moved, the WS planner's reuse groups and copies, channels (producer -> consumers),
// partitions, and the totals with their budget verdicts. Buffers are matched by space, kind and name (the source
// location's name, stable across recompiles where SSA numbers are not), the n-th of a name with the n-th.
#pragma once

#include <string>
#include <vector>

#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

/// One difference. `section`: "buffer", "reuse", "channel", "partition", "total"; `change`: "added", "removed",
/// "resized", "moved", "changed"; `before` / `after`: the value on each side ("" when absent there).
struct PlanChange {
  std::string section;
  std::string change;
  std::string subject;
  std::string before;
  std::string after;
};

struct PlanDiff {
  std::string a_kernel, b_kernel;  ///< kernel names
  std::string a_source, b_source;  ///< inputs as given
  std::vector<PlanChange> changes; ///< in section order, then A's order (added ones in B's order)

  [[nodiscard]] bool identical() const { return changes.empty(); }
};

/// Compares `a` (before) with `b` (after).
PlanDiff diff_plans(const Plan& a, const Plan& b);

/// The key a buffer is matched by ("smem acc (barrier)", "smem scratch tt.reduce %x"), without the ordinal.
std::string buffer_key(const Buffer& b);

}  // namespace vtools::vplan
