// Liveness of each buffer as a half-open interval [start, end) of op ids: from its first to its last user, where a
// user inside a loop that does not contain the allocation is lifted to the whole loop (the buffer must survive
// every iteration). Partitions of a ttg.warp_specialize run concurrently, so a user inside one is lifted to the
// whole warp_specialize op, and a buffer allocated inside a partition lives for the whole op too (Triton's allocator
// does the same; post-order ids would otherwise let partitions share memory). No users: [alloc, alloc + 1).
#pragma once

#include <vector>

#include "tools/vplan/op_order.hpp"
#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

/// Sets Buffer::start and Buffer::end from Buffer::users.
void compute_liveness(std::vector<Buffer>& buffers, const OpOrder& order);

}  // namespace vtools::vplan
