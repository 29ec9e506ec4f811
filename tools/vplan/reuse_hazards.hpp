// The reuse-hazard check: buffers that share memory over time (a WS planner reuse group, buffer.id; or buffers placed
// at overlapping offsets with disjoint lifetimes) must be ordered by a happens-before chain, else the later one may
// overwrite the earlier while a partition still reads it. What the check proves and what it cannot see:
// tools/vplan/compiler-plan.md "Reuse hazards".
#pragma once

#include <vector>

#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

/// Pairs of a reuse group that no chain orders, in group order. Happens-before: program order (op ids) within a
/// partition, outside warp_specialize, and between the regions of two warp_specialize ops (one ends, all partitions
/// joined, before the next starts); across partitions of one warp_specialize, an mbarrier arrive (arrive_barrier,
/// barrier_expect, tc_gen5_commit, or an async copy / MMA completing on it) at or after the first's last access,
/// followed by a wait_barrier on the same barrier buffer in the next partition, chained through any partitions,
/// with the last wait before the second's first access.
std::vector<ReuseHazard> find_reuse_hazards(const Plan& plan);

}  // namespace vtools::vplan
