#include "tools/vtrace/trace_check.hpp"

#include <algorithm>
#include <map>

#include "libcommon/human_units.hpp"
#include "tools/vtrace/access/argument_mapping.hpp"

namespace vtools::vtrace {

namespace {

/// "(x,y,z)", as compute-sanitizer prints threads and blocks.
std::string coordinates(const Dim3& d) {
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

std::string frame_text(const SourceFrame& f) {
  std::string text = f.file + ":" + std::to_string(f.line);
  if (f.column) text += ":" + std::to_string(f.column);
  return text;
}

/// " in process 4200 (rank 1 on node1)" where the trace has several processes (a merged trace of a job's ranks); ""
/// where it has one.
std::string process_text(const Trace& t, std::int64_t id) {
  if (t.processes.size() < 2 && t.run.process_ids.size() < 2) return "";
  auto p = std::find_if(t.processes.begin(), t.processes.end(), [&](const Process& x) { return x.id == id; });
  std::string text = " in process " + (id == 0 ? std::string("(not recorded)") : std::to_string(id));
  if (p == t.processes.end() || (p->rank < 0 && p->host.empty())) return text;
  text += " (";
  if (p->rank >= 0) text += "rank " + std::to_string(p->rank) + (p->host.empty() ? "" : " on ");
  return text + p->host + ")";
}

/// compute-sanitizer's shape: what, where (file:line in kernel, or the PC and its SASS), who, and against what.
std::string finding_text(const Finding& f, const std::map<std::int64_t, const Allocation*>& allocations,
                         const std::string& process) {
  std::string pc = "pc +" + format_address(f.pc_offset) + (f.sass.empty() ? "" : ": " + f.sass);
  std::string text = "out-of-bounds " + f.operation + " of " + std::to_string(f.size) + " bytes at " +
                     format_address(f.address) + "\n    at ";
  if (f.source) {
    text += frame_text(*f.source) + " in " + (f.source->function.empty() ? f.kernel : f.source->function) + " (" +
            pc + ")";
    for (const auto& at : f.source->inlined_at)
      text += "\n    inlined at " + frame_text(at) + (at.function.empty() ? "" : " in " + at.function);
  } else {
    text += f.kernel + " " + pc;
  }
  if (!f.source_note.empty()) text += "\n    (" + f.source_note + ")";
  text += "\n    by thread " + coordinates(f.thread) + " in block " + coordinates(f.block) + " of " + f.kernel + " launch " +
          std::to_string(f.launch) + process + "\n    " + place(f, allocations);
  return text;
}

}  // namespace

std::vector<std::string> trace_problems(const Trace& t) {
  std::vector<std::string> out;
  for (const auto& f : t.failed_launches)
    out.push_back("failed launch: " + f.api + " returned " + std::to_string(f.status) +
                  (f.kernel.empty() ? "" : " for " + f.kernel));
  std::map<std::int64_t, const Allocation*> allocations;
  for (const auto& a : t.allocations) allocations[static_cast<std::int64_t>(a.id)] = &a;
  for (const auto& f : t.findings) out.push_back(finding_text(f, allocations, process_text(t, f.process_id)));
  // Findings are counted exactly per PC and listed only for the first few: say what the list leaves out.
  std::uint64_t counted = 0;
  // The source line of a PC, from a listed finding there (the first few of every PC are listed).
  std::map<std::pair<std::string, std::uint64_t>, const SourceLine*> lines;  // one kernel's code in every process
  for (const auto& f : t.findings)
    if (f.source) lines.try_emplace({f.kernel, f.pc_offset}, &*f.source);
  for (const auto& s : t.finding_sites) {
    counted += s.count;
    if (s.count <= s.listed) continue;
    auto line = lines.find({s.kernel, s.pc_offset});
    out.push_back(std::to_string(s.count - s.listed) + " more out-of-bounds " + s.operation + "s at pc +" +
                  format_address(s.pc_offset) + (line != lines.end() ? " (" + frame_text(*line->second) + ")" : "") +
                  " in " + s.kernel + process_text(t, s.process_id) + " (" + std::to_string(s.count) + " in all)");
  }
  const std::uint64_t listed_or_counted = std::max<std::uint64_t>(counted, t.findings.size());
  if (t.findings_total > listed_or_counted)
    out.push_back(std::to_string(t.findings_total - listed_or_counted) +
                  " more out-of-bounds accesses at PCs past the device's per-launch table (counted, not listed)");
  return out;
}

}  // namespace vtools::vtrace
