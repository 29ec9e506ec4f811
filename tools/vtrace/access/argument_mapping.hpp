// Kernel pointer arguments -> allocations, so records can say "argument 1 (float const*)" and allocations "fill.arg0"
// instead of raw addresses. The preload library records every 8-byte word of the kernel's parameters with its
// parameter index (raw::ParamWord; a struct parameter gives several); a word that points into a live allocation is a
// pointer argument (PyTorch's caching allocator shows
// only large segments, so a tensor argument maps to its segment with an offset, and several arguments can share one).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/vtrace/access/access_records.hpp"
#include "tools/vtrace/access/allocation_map.hpp"

namespace vtools::vtrace::access {

struct PointerArgument {
  std::uint32_t index = 0;   ///< which kernel parameter (word) it is
  std::uint64_t value = 0;   ///< the pointer
  std::int64_t allocation = -1;
  std::uint64_t offset = 0;  ///< value - allocation start
};

/// Every word of `params` (raw::ParamWord pairs) that points into a live allocation.
std::vector<PointerArgument> map_pointer_arguments(std::string_view params, const AllocationMap& allocations);

/// The pointer arguments of one launch, for attributing each access to the argument it most likely went through.
class LaunchArguments {
 public:
  LaunchArguments() = default;
  explicit LaunchArguments(std::vector<PointerArgument> arguments) : arguments_(std::move(arguments)) {}
  /// Among the arguments into `allocation`: the one with the largest pointer <= `address` (the tensor the access
  /// falls in when a segment holds several), else the lowest one; -1 when no argument points into it.
  [[nodiscard]] std::int64_t argument_for(std::int64_t allocation, std::uint64_t address) const;
  [[nodiscard]] bool empty() const { return arguments_.empty(); }

 private:
  std::vector<PointerArgument> arguments_;
};

/// The parameter types of a demangled C++ function name, split at top-level commas:
/// "vector_add(float const*, float*, int)" -> {"float const*", "float*", "int"}. Empty for names without a
/// parameter list (Triton kernels) and for "()" or "(void)".
std::vector<std::string> parameter_types(std::string_view demangled);

/// "argument 1 (float const*)", or "argument 1" when the type is unknown ("").
std::string argument_label(std::int64_t index, std::string_view type);

/// Names each still unnamed allocation after the first argument that points into it: "<kernel>.arg<index>" with the
/// kernel's name up to its parameter list ("fill(float*, int)" -> "fill.arg0").
void name_allocations(std::vector<Allocation>& allocations, const std::string& kernel,
                      const std::vector<PointerArgument>& arguments);

}  // namespace vtools::vtrace::access
