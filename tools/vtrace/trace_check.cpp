#include "tools/vtrace/trace_check.hpp"

#include <algorithm>
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
  // Findings are counted exactly per PC and listed only for the first few: say what the list leaves out.
  std::uint64_t counted = 0;
  for (const auto& s : t.finding_sites) {
    counted += s.count;
    if (s.count > s.listed)
      out.push_back(std::to_string(s.count - s.listed) + " more out-of-bounds " + s.operation + "s at pc +" +
                    format_address(s.pc_offset) + " in " + s.kernel + " (" + std::to_string(s.count) + " in all)");
  }
  const std::uint64_t listed_or_counted = std::max<std::uint64_t>(counted, t.findings.size());
  if (t.findings_total > listed_or_counted)
    out.push_back(std::to_string(t.findings_total - listed_or_counted) +
                  " more out-of-bounds accesses at PCs past the device's per-launch table (counted, not listed)");
  return out;
}

}  // namespace vtools::vtrace
