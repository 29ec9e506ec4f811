// Numbers a function's ops and assigns partitions. Order: the WS planner's post-order walk — an op gets its id
// after every op in its regions, so within a block ids follow program order and a loop's id is larger than its
// body's. Partition: `async_task_id` / `ttg.partition` (first entry) when present, else the enclosing
// warp_specialize region (default = 0, partitionN = N + 1), else none.
#pragma once

#include <unordered_map>
#include <vector>

#include "formats/plan/plan_model.hpp"
#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

/// One op of the walk with its place in the tree.
struct OrderedOp {
  const Op* op = nullptr;
  int id = 0;
  int parent = -1;          ///< enclosing op id, -1 at function level
  int subtree_first = 0;    ///< smallest id in this op's subtree (ids of a subtree are contiguous)
  int partition = kNoPartition;
  int scope = 0;            ///< value-name scope: 0 = function, one per isolated partition region
};

struct OpOrder {
  std::vector<OrderedOp> ops;  ///< indexed by id
  std::unordered_map<const Op*, int> id_of;
  std::vector<Partition> partitions;  ///< sorted by id
};

/// Walks `function` (a tt.func op). `default_num_warps` is the module's ttg.num-warps.
OpOrder order_ops(const Op& function, int default_num_warps);

/// First integer of an `array<i32: 1, 2>` attribute value, or -1.
int first_array_int(const std::string& value);

}  // namespace vtools::vplan
