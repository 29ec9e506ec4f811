#include "tools/vtrace/access/warp_access.hpp"

#include <algorithm>
#include <vector>

namespace vtools::vtrace::access {

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::kLoad:
      return "load";
    case Operation::kStore:
      return "store";
    case Operation::kAtomic:
      return "atomic";
    case Operation::kBulkLoad:
      return "bulk_load";
    case Operation::kBulkStore:
      return "bulk_store";
  }
  return "load";
}

Operation operation_of_code(std::uint32_t code) {
  return code <= static_cast<std::uint32_t>(Operation::kBulkStore) ? static_cast<Operation>(code) : Operation::kLoad;
}

Dim3 thread_of_lane(std::uint32_t warp, std::uint32_t lane, const Dim3& block_dim) {
  std::int64_t t = static_cast<std::int64_t>(warp) * 32 + lane;
  std::int64_t bx = std::max<std::int64_t>(block_dim[0], 1), by = std::max<std::int64_t>(block_dim[1], 1);
  return {t % bx, (t / bx) % by, t / (bx * by)};
}

std::uint32_t sectors_touched(const WarpAccess& w) {
  std::vector<std::uint64_t> sectors;
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    if (!(w.active_mask >> lane & 1u)) continue;
    std::uint64_t first = w.address[lane] / 32, last = (w.address[lane] + std::max(w.bytes_per_lane, 1u) - 1) / 32;
    for (std::uint64_t s = first; s <= last; ++s) sectors.push_back(s);
  }
  std::sort(sectors.begin(), sectors.end());
  return static_cast<std::uint32_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
}

}  // namespace vtools::vtrace::access
