#include "tools/vtrace/trace_check.hpp"

#include <map>

#include "libcommon/human_units.hpp"
#include "tools/vtrace/access/argument_mapping.hpp"

namespace vtools::vtrace {

namespace {

std::string dim3_text(const Dim3& d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}

std::string place(const Finding& f, const std::map<std::int64_t, const Allocation*>& allocations) {
  auto it = allocations.find(f.allocation);
  if (f.allocation < 0 || it == allocations.end()) return "outside every allocation";
  const Allocation& a = *it->second;
  std::string name = "allocation " + std::to_string(a.id) + (a.name.empty() ? "" : " (" + a.name + ")");
  if (f.argument >= 0) name += ", " + access::argument_label(f.argument, f.argument_type);
  if (f.distance >= 0) return std::to_string(f.distance) + " bytes past the end of " + name;
  return std::to_string(-f.distance) + " bytes before the start of " + name;
}

}  // namespace

std::vector<std::string> trace_problems(const Trace& t) {
  std::vector<std::string> out;
  for (const auto& f : t.failed_launches)
    out.push_back("failed launch: " + f.api + " returned " + std::to_string(f.status) +
                  (f.kernel.empty() ? "" : " for " + f.kernel));
  std::map<std::int64_t, const Allocation*> allocations;
  for (const auto& a : t.allocations) allocations[static_cast<std::int64_t>(a.id)] = &a;
  for (const auto& f : t.findings)
    out.push_back("out-of-bounds " + f.operation + " of " + std::to_string(f.size) + " bytes at " +
                  format_address(f.address) + " in " + f.kernel + " launch " + std::to_string(f.launch) + " block " +
                  dim3_text(f.block) + " thread " + dim3_text(f.thread) + " pc +" + format_address(f.pc_offset) +
                  ": " + place(f, allocations));
  return out;
}

}  // namespace vtools::vtrace
