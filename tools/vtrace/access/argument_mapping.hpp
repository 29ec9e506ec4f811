// Kernel pointer arguments -> allocations, so pages can say "fill.arg0" instead of a raw address. The preload
// library records one 8-byte word per kernel parameter (0 for parameters of another size); a word that points into
// a live allocation is a pointer argument (PyTorch's caching allocator shows only large segments, so a tensor argument maps to its segment with
// an offset).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/vtrace/access/allocation_map.hpp"

namespace vtools::vtrace::access {

struct PointerArgument {
  std::uint32_t index = 0;   ///< which kernel parameter (word) it is
  std::uint64_t value = 0;   ///< the pointer
  std::int64_t allocation = -1;
  std::uint64_t offset = 0;  ///< value - allocation start
};

/// Every 8-byte word of `params` (one per kernel parameter) that points into a live allocation.
std::vector<PointerArgument> map_pointer_arguments(std::string_view params, const AllocationMap& allocations);

/// Names each still unnamed allocation after the first argument that points into it: "<kernel>.arg<index>" with the
/// kernel's name up to its parameter list ("fill(float*, int)" -> "fill.arg0").
void name_allocations(std::vector<Allocation>& allocations, const std::string& kernel,
                      const std::vector<PointerArgument>& arguments);

}  // namespace vtools::vtrace::access
