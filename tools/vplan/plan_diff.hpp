// What changed between two plans (a passing and a failing variant, two configs, two compiler versions): buffers
// added / removed / resized / moved, the WS planner's reuse groups and copies, channels (producer -> consumers),
// partitions, and the totals with their budget verdicts. Buffers are matched by space, kind and name (the source
// location's name, stable across recompiles where SSA numbers are not), the n-th of a name with the n-th. The model
// (PlanDiff) and the document's reader and writer are formats/plandiff.
#pragma once

#include <string>
#include <vector>

#include "formats/plan/plan_model.hpp"
#include "formats/plandiff/plandiff_model.hpp"

namespace vtools::vplan {

/// Compares `a` (before) with `b` (after).
PlanDiff diff_plans(const Plan& a, const Plan& b);

/// The key a buffer is matched by ("smem acc (barrier)", "smem scratch tt.reduce %x"), without the ordinal.
std::string buffer_key(const Buffer& b);

}  // namespace vtools::vplan
