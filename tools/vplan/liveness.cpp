#include "tools/vplan/liveness.hpp"

#include <algorithm>

#include "tools/vplan/op_effects.hpp"

namespace vtools::vplan {

void compute_liveness(std::vector<Buffer>& buffers, const OpOrder& order) {
  for (Buffer& b : buffers) {
    if (b.users.empty()) {
      b.start = b.alloc_op;
      b.end = b.alloc_op + 1;
      continue;
    }
    int lo = b.users.front(), hi = b.users.front();
    for (int u : b.users) {
      int first = u, last = u;
      for (int p = order.ops[u].parent; p >= 0; p = order.ops[p].parent) {
        const OrderedOp& anc = order.ops[p];
        const bool holds_alloc = anc.subtree_first <= b.alloc_op && b.alloc_op <= anc.id;
        if (holds_alloc) break;
        if (is_loop_op(*anc.op) || anc.op->name == "ttg.warp_specialize") first = anc.subtree_first, last = anc.id;
      }
      lo = std::min(lo, first);
      hi = std::max(hi, last);
    }
    // Partitions run concurrently: a buffer allocated inside a warp_specialize region lives for the whole op.
    for (int p = order.ops[b.alloc_op].parent; p >= 0; p = order.ops[p].parent)
      if (order.ops[p].op->name == "ttg.warp_specialize") {
        lo = std::min(lo, order.ops[p].subtree_first);
        hi = std::max(hi, order.ops[p].id);
      }
    b.start = lo;
    b.end = hi + 1;
  }
}

}  // namespace vtools::vplan
