#include "tools/vtrace/access/argument_mapping.hpp"

#include <cstring>

namespace vtools::vtrace::access {

std::vector<PointerArgument> map_pointer_arguments(std::string_view params, const AllocationMap& allocations) {
  std::vector<PointerArgument> out;
  for (std::size_t i = 0; i + sizeof(raw::ParamWord) <= params.size(); i += sizeof(raw::ParamWord)) {
    raw::ParamWord word;
    std::memcpy(&word, params.data() + i, sizeof word);
    if (word.value == 0) continue;
    Lookup where = allocations.find(word.value, 1);
    if (!where.inside) continue;
    out.push_back({static_cast<std::uint32_t>(word.parameter), word.value, where.allocation, where.offset});
  }
  return out;
}

std::int64_t LaunchArguments::argument_for(std::int64_t allocation, std::uint64_t address) const {
  const PointerArgument *below = nullptr, *lowest = nullptr;
  for (const auto& a : arguments_) {  // a handful per launch: a scan beats any index
    if (a.allocation != allocation) continue;
    if (a.value <= address && (!below || a.value > below->value)) below = &a;
    if (!lowest || a.value < lowest->value) lowest = &a;
  }
  const PointerArgument* pick = below ? below : lowest;
  return pick ? static_cast<std::int64_t>(pick->index) : -1;
}

std::vector<std::string> parameter_types(std::string_view name) {
  std::vector<std::string> out;
  if (name.empty() || name.back() != ')') return out;
  // The '(' matching the final ')': template arguments before it may hold parentheses too ("k<(int)3>(float*)").
  int depth = 0;
  std::size_t open = std::string_view::npos;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos) return out;
  std::string_view list = name.substr(open + 1, name.size() - open - 2);
  auto trim = [](std::string_view v) {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return std::string(v);
  };
  std::size_t start = 0;
  depth = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    char c = i < list.size() ? list[i] : ',';
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(list.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (out.size() == 1 && (out[0].empty() || out[0] == "void")) out.clear();
  return out;
}

std::string argument_label(std::int64_t index, std::string_view type) {
  return "argument " + std::to_string(index) + (type.empty() ? "" : " (" + std::string(type) + ")");
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
