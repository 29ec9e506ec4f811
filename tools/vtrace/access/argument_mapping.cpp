#include "tools/vtrace/access/argument_mapping.hpp"

#include <cstring>

namespace vtools::vtrace::access {

std::vector<PointerArgument> map_pointer_arguments(std::string_view params, const AllocationMap& allocations) {
  std::vector<PointerArgument> out;
  for (std::size_t i = 0; i + 8 <= params.size(); i += 8) {
    std::uint64_t value;
    std::memcpy(&value, params.data() + i, 8);
    if (value == 0) continue;
    Lookup where = allocations.find(value, 1);
    if (!where.inside) continue;
    out.push_back({static_cast<std::uint32_t>(i / 8), value, where.allocation, where.offset});
  }
  return out;
}

void name_allocations(std::vector<Allocation>& allocations, const std::string& kernel,
                      const std::vector<PointerArgument>& arguments) {
  std::string base = kernel.substr(0, kernel.find('('));
  if (auto space = base.rfind(' '); space != std::string::npos) base = base.substr(space + 1);  // "void k" -> "k"
  for (const auto& arg : arguments)
    for (auto& a : allocations)
      if (static_cast<std::int64_t>(a.id) == arg.allocation && a.name.empty())
        a.name = base + ".arg" + std::to_string(arg.index);
}

}  // namespace vtools::vtrace::access
