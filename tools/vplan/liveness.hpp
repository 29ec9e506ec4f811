// Liveness of each buffer as a half-open interval [start, end) of op ids (post-order, as Triton numbers them).
// SMEM: Triton's allocator interval (lib/Analysis/Allocation.cpp, MLIR liveness): from the allocating op to the last
// use, a use inside a loop or warp_specialize that does not hold the allocation lifted to the whole op; scratch at
// its op; the function's own scratch throughout. A buffer allocated inside a warp_specialize region is *not* lifted
// to the whole op: within a region ops run in program order, and concurrency with the other regions is Triton's
// interference rule (different regions never share bytes) and the budget's concurrent peak, not a wider interval.
// TMEM: the same interval (Triton's TensorMemoryAllocation.cpp takes MLIR liveness of the alloc and its views) and
// the same region rule, there as "allocations in other regions of the warp_specialize are taken" (tmem_placement).
// No users: [alloc, alloc + 1). An SMEM buffer passed to a warp_specialize is used there too (MLIR liveness: the
// op's operand), so it lives at least to that op even when no partition touches it.
#pragma once

#include <string>
#include <vector>

#include "tools/vplan/op_order.hpp"
#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

struct SmemItem;

/// Each buffer as Triton's shared- and tensor-memory allocators see it (by buffer id; size and alignment left to the
/// caller): the SMEM interval above, plus the innermost warp_specialize holding the allocating op and its region (`ws`,
/// `region`: Triton makes different regions of one warp_specialize conflict); the function's own scratch
/// (`scratch_op == function_op`) lives for ever (end = kForever).
std::vector<SmemItem> allocator_view(const std::vector<Buffer>& buffers, const OpOrder& order,
                                     const std::string& function_op);

/// Sets Buffer::start and Buffer::end from Buffer::users (and, for SMEM, `captures`: (buffer, warp_specialize op
/// id), BufferTrace::captures) as above; returns allocator_view (by buffer id).
std::vector<SmemItem> compute_liveness(std::vector<Buffer>& buffers, const OpOrder& order,
                                       const std::string& function_op,
                                       const std::vector<std::pair<int, int>>& captures = {});

}  // namespace vtools::vplan
