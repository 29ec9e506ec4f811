// Liveness of each buffer as a half-open interval [start, end) of op ids: from its first to its last user, where a
// user inside a loop that does not contain the allocation is lifted to the whole loop (the buffer must survive
// every iteration). Partitions of a ttg.warp_specialize run concurrently, so a user inside one is lifted to the
// whole warp_specialize op, and a buffer allocated inside a partition lives for the whole op too (Triton's allocator
// does the same; post-order ids would otherwise let partitions share memory). No users: [alloc, alloc + 1).
#pragma once

#include <string>
#include <vector>

#include "tools/vplan/op_order.hpp"
#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

/// Sets Buffer::start and Buffer::end from Buffer::users.
void compute_liveness(std::vector<Buffer>& buffers, const OpOrder& order);

struct SmemItem;

/// Each buffer as Triton's shared-memory allocator sees it (by buffer id; size and alignment left to the caller):
/// live from its allocating op (MLIR liveness starts at the definition) to its last use, lifted like
/// compute_liveness but not to the whole warp_specialize for a buffer allocated inside one (Triton makes
/// different regions of one warp_specialize conflict instead: `ws`, `region`); the function's own scratch
/// (`scratch_op == function_op`) lives for ever.
std::vector<SmemItem> allocator_view(const std::vector<Buffer>& buffers, const OpOrder& order,
                                     const std::string& function_op);

}  // namespace vtools::vplan
