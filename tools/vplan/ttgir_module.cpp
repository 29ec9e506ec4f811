#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

const std::string* Op::attribute(const std::string& key) const {
  for (const auto& a : attributes)
    if (a.key == key) return &a.value;
  return nullptr;
}

std::optional<std::int64_t> Module::int_attribute(const std::string& key) const {
  auto it = attributes.find(key);
  if (it == attributes.end()) return std::nullopt;
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string Module::string_attribute(const std::string& key) const {
  auto it = attributes.find(key);
  if (it == attributes.end()) return "";
  const std::string& v = it->second;
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
  return v;
}

}  // namespace vtools::vplan
