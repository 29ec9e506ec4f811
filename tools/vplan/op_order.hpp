// Numbers a function's ops and assigns partitions. Order: the WS planner's post-order walk — an op gets its id
// after every op in its regions, so within a block ids follow program order and a loop's id is larger than its
// body's. Partition: `async_task_id` / `ttg.partition` (first entry) when present, else the enclosing
// warp_specialize region (default = 0, partitionN = N + 1), else none.
#pragma once

#include <cstddef>
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

/// Op -> id without a hash node per op (a 10^6-op map was ~40 MB): each region's ops are one array, so an op is
/// found by its region (the regions sorted by address, searched) and its index there; 4 bytes per op.
class OpIds {
 public:
  /// Makes room for the ops of one region: op i's id goes to slot (returned value + i). seal() once every region
  /// is added, before at().
  std::size_t add_region(const std::vector<Op>& ops);
  void set(std::size_t slot, int id) { ids_[slot] = id; }
  void seal();
  /// The id of an op of an added region; throws std::out_of_range for any other.
  [[nodiscard]] int at(const Op* op) const { return ids_[slot(op)]; }

 private:
  struct Range {
    const Op* begin;
    const Op* end;
    std::size_t first_slot;
  };
  std::size_t slot(const Op* op) const;
  std::vector<Range> ranges_;  ///< sorted by begin once sealed (regions do not overlap)
  std::vector<int> ids_;
};

struct OpOrder {
  std::vector<OrderedOp> ops;  ///< indexed by id
  OpIds id_of;
  std::vector<Partition> partitions;  ///< sorted by id
};

/// Walks `function` (a tt.func op). `default_num_warps` is the module's ttg.num-warps.
OpOrder order_ops(const Op& function, int default_num_warps);

/// First integer of an `array<i32: 1, 2>` attribute value, or -1.
int first_array_int(const std::string& value);

}  // namespace vtools::vplan
