#include "tools/vplan/liveness.hpp"

#include <algorithm>

#include "tools/vplan/op_effects.hpp"
#include "tools/vplan/triton_placement.hpp"

namespace vtools::vplan {

namespace {

// [first, last] op ids of the buffer's users, lifted to loops and warp_specialize ops that do not hold the
// allocation; the allocating op alone when there are no users.
std::pair<int, int> user_span(const Buffer& b, const OpOrder& order) {
  if (b.users.empty()) return {b.alloc_op, b.alloc_op};
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
  return {lo, hi};
}

}  // namespace

std::vector<SmemItem> compute_liveness(std::vector<Buffer>& buffers, const OpOrder& order,
                                       const std::string& function_op,
                                       const std::vector<std::pair<int, int>>& captures) {
  std::vector<SmemItem> view = allocator_view(buffers, order, function_op);
  // The warp_specialize's operand is a use: a captured buffer no partition touches still lives to the op. (A use in
  // a partition already lifts the end to the op; a capture inside a loop, the alloc outside, is lifted likewise.)
  for (const auto& [id, ws] : captures) {
    if (id < 0 || id >= static_cast<int>(view.size()) || view[id].end == kForever) continue;
    int end = ws;
    for (int p = order.ops[ws].parent; p >= 0; p = order.ops[p].parent) {
      const OrderedOp& anc = order.ops[p];
      if (anc.subtree_first <= buffers[id].alloc_op && buffers[id].alloc_op <= anc.id) break;
      if (is_loop_op(*anc.op)) end = anc.id;
    }
    view[id].end = std::max(view[id].end, end + 1);
  }
  // Triton's own intervals, the ones its offsets obey: the shared-memory allocator's (Allocation.cpp) and the
  // tensor-memory allocator's (TensorMemoryAllocation.cpp, getLiveIntervals: MLIR liveness of the alloc and of
  // its memdesc_index / reinterpret views) are the same rule.
  for (Buffer& b : buffers) {
    b.start = view[b.id].start;
    b.end = view[b.id].end;
  }
  return view;
}

std::vector<SmemItem> allocator_view(const std::vector<Buffer>& buffers, const OpOrder& order,
                                     const std::string& function_op) {
  std::vector<SmemItem> out(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    SmemItem& item = out[i];
    if (b.scratch_op == function_op) {  // the function's warp indices: Triton's interval is [0, max)
      item.start = 0;
      item.end = kForever;
      continue;
    }
    // MLIR liveness starts at the defining op; the end is vplan's last use (lifted to enclosing loops).
    auto span = user_span(b, order);
    item.start = std::min(b.alloc_op, span.first);
    item.end = std::max(b.alloc_op, span.second) + 1;
    int child = b.alloc_op;
    for (int p = order.ops[child].parent; p >= 0; child = p, p = order.ops[p].parent) {
      const Op& ws = *order.ops[p].op;
      if (ws.name != "ttg.warp_specialize") continue;
      item.ws = p;
      const Op* inner = order.ops[child].op;
      for (std::size_t r = 0; r < ws.regions.size(); ++r) {
        const auto& ops = ws.regions[r].ops;
        if (!ops.empty() && &ops.front() <= inner && inner <= &ops.back()) item.region = static_cast<int>(r);
      }
      break;
    }
  }
  return out;
}

}  // namespace vtools::vplan
