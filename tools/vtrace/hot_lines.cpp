#include "tools/vtrace/hot_lines.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "tools/vtrace/trace_builder.hpp"

namespace vtools::vtrace {

namespace {

/// One instruction of one kernel in one module image, summed over the launches.
struct PcCounts {
  std::uint32_t operation = 0, size = 0;
  std::uint64_t requests = 0, lanes = 0, sectors = 0, bulk_bytes = 0, findings = 0;
};

/// (capture, module, mangled kernel, pc offset): module numbers restart in each process.
using PcKey = std::tuple<std::size_t, std::uint64_t, std::string, std::uint64_t>;

/// A row of a kernel in a process: a line (file, line, function) or, without one, an instruction (pc).
using RowKey = std::tuple<std::string, std::int64_t, bool, std::string, std::uint32_t, std::string, std::uint64_t>;

void add_counts(HotLine& row, const PcCounts& c) {
  const bool bulk = c.operation == 3 || c.operation == 4;
  const std::uint64_t accesses = bulk ? c.requests : c.lanes;
  const std::uint64_t bytes = c.lanes * c.size + c.bulk_bytes;
  switch (c.operation) {
    case 0:
    case 3:
      row.loads += accesses;
      row.bytes_loaded += bytes;
      break;
    case 1:
    case 4:
      row.stores += accesses;
      row.bytes_stored += bytes;
      break;
    default:  // an atomic reads and writes its bytes
      row.atomics += accesses;
      row.bytes_loaded += bytes;
      row.bytes_stored += bytes;
      break;
  }
  if (bulk) {
    row.bulk_copies += c.requests;
  } else {
    row.requests += c.requests;
    row.sectors += c.sectors;
    row.lanes += c.lanes;
  }
  row.findings += c.findings;
}

}  // namespace

void add_hot_lines(const std::vector<raw::Capture>& captures, PcSymbolizer& symbolizer, Trace& trace,
                   SourceText* texts) {
  std::map<PcKey, PcCounts> pcs;
  std::uint64_t dropped = 0;
  for (std::size_t c = 0; c < captures.size(); ++c)
    for (const raw::NamedLaunch& l : captures[c].launches) {
      if (!l.record.recorded || !l.pc_table) continue;
      dropped += l.pc_requests_dropped;
      for (const raw::PcSite& s : l.pc_sites) {
        PcCounts& p = pcs[{c, l.module, l.kernel, s.pc}];
        p.operation = s.operation;
        p.size = s.size;
        p.requests += s.requests;
        p.lanes += s.lanes;
        p.sectors += s.sectors;
        p.bulk_bytes += s.bulk_bytes;
      }
      // Findings at their PCs, exact; a PC the table had no room for still gets its line and findings.
      for (const raw::FindingSite& f : l.finding_sites) {
        auto [it, fresh] = pcs.try_emplace({c, l.module, l.kernel, f.pc});
        if (fresh) it->second.operation = f.operation;
        it->second.findings += f.count;
      }
    }
  std::map<RowKey, std::pair<HotLine, std::set<std::uint64_t>>> rows;  // each row and its distinct PCs
  std::map<std::string, std::string> demangled;  // mangled -> demangled, once per kernel
  for (const auto& [key, counts] : pcs) {
    const auto& [capture, module, mangled, pc] = key;
    auto name = demangled.find(mangled);
    if (name == demangled.end()) name = demangled.emplace(mangled, demangle(mangled)).first;
    std::optional<SourceLine> source;
    std::string sass, note;
    const auto image = captures[capture].module_images.find(module);
    if (module == 0) {
      note = "no source line or SASS: the trace does not say which module the kernel ran from";
    } else if (image == captures[capture].module_images.end()) {
      note = "no source line or SASS: the access tool did not keep the module's image (past its 1 GiB of kept images)";
    } else {
      const std::uint64_t module_key = (static_cast<std::uint64_t>(capture) << 40) | module;  // one per image
      SourceLookup found = symbolizer.line(module_key, image->second, mangled, pc);
      source = std::move(found.line);
      if (!source) {
        note = "no source line: " + found.note;
        if (const std::string* text = symbolizer.sass_if_disassembled(module_key, mangled, pc))
          sass = *text;
        else
          note += "; no SASS: nvdisasm runs only on modules with findings";
      }
    }
    const std::int64_t process = captures[capture].process.pid;
    const RowKey row_key = source ? RowKey{name->second, process, false, source->file, source->line, source->function, 0}
                                  : RowKey{name->second, process, true, "", 0, "", pc};
    auto [it, fresh] = rows.try_emplace(row_key);
    HotLine& row = it->second.first;
    if (fresh) {
      row.kernel = name->second;
      row.process_id = process;
      row.pc_offset = pc;
      if (source) {
        row.file = source->file;
        row.line = source->line;
        row.function = source->function;
        if (texts)
          if (auto text = texts->line(row.file, row.line)) row.text = std::move(*text);
      } else {
        row.sass = sass;
        row.note = note;
      }
    }
    it->second.second.insert(pc);  // a process's two images of one kernel share their PCs
    row.pcs = it->second.second.size();
    if (pc < row.pc_offset) row.pc_offset = pc;
    add_counts(row, counts);
  }
  for (auto& [key, row] : rows) trace.hot_lines.push_back(std::move(row.first));
  trace.hot_lines_dropped_requests += dropped;
  if (dropped)
    trace.run.notes.push_back(std::to_string(dropped) + " warp requests at PCs past their launch's PC table (" +
                              std::to_string(raw::kPcSitesPerLaunch) +
                              " PCs by default, VTRACE_ACCESS_PCS) are in the accesses but not in hot_lines");
}

}  // namespace vtools::vtrace
