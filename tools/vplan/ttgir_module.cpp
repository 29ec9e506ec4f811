#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

const std::string* Op::attribute(const std::string& key) const {
  for (const auto& a : attributes)
    if (a.key == key) return &a.value;
  return nullptr;
}

namespace {
const OpDetails kNoDetails;
}  // namespace

const std::vector<std::string>& Op::defined_args() const { return (details ? *details : kNoDetails).defined_args; }
const std::vector<std::string>& Op::keywords() const { return (details ? *details : kNoDetails).keywords; }
const std::string& Op::symbol() const { return (details ? *details : kNoDetails).symbol; }

OpDetails& Op::details_to_fill() {
  if (!details) details = std::make_unique<OpDetails>();
  return *details;
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
