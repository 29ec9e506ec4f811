// The vtools.plandiff model: what changed between two memory plans, as a list of changes by section (vplan diff
// computes it in tools/vplan/plan_diff.cpp; this file only holds it).
#pragma once

#include <string>
#include <vector>

namespace vtools::vplan {

/// One difference. `section`: "kernel", "buffer", "reuse", "reuse group", "channel", "partition", "total" (a reader
/// keeps a section it does not know: a newer vplan may add one); `change`: "added", "removed", "resized", "moved",
/// "changed"; `before` / `after`: the value on each side ("" when absent there).
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

  /// No change at all (the document's `identical`).
  [[nodiscard]] bool identical() const { return changes.empty(); }
};

}  // namespace vtools::vplan
