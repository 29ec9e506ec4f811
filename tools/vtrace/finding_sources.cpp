#include "tools/vtrace/finding_sources.hpp"

#include <map>
#include <tuple>

#include "tools/vtrace/trace_builder.hpp"

namespace vtools::vtrace {

PcSymbolizer::Module& PcSymbolizer::module(std::uint64_t module, std::string_view image) {
  auto m = modules_.find(module);
  if (m == modules_.end())
    m = modules_.emplace(module, Module{SourceMap::read(image, "module " + std::to_string(module)), {}, {}}).first;
  return m->second;
}

SourceLookup PcSymbolizer::line(std::uint64_t module_key, std::string_view image, const std::string& mangled_function,
                                std::uint64_t pc_offset) {
  return module(module_key, image).lines.lookup(mangled_function, pc_offset);
}

const std::string* PcSymbolizer::sass_if_disassembled(std::uint64_t module_key, const std::string& mangled_function,
                                                     std::uint64_t pc_offset) const {
  const auto it = modules_.find(module_key);
  return it != modules_.end() && it->second.sass ? it->second.sass->instruction(mangled_function, pc_offset) : nullptr;
}

const PcDescription& PcSymbolizer::describe(std::uint64_t module_key, std::string_view image,
                                            const std::string& mangled_function, std::uint64_t pc_offset) {
  auto key = std::make_tuple(module_key, mangled_function, pc_offset);
  if (auto it = pcs_.find(key); it != pcs_.end()) return it->second;
  Module& m = module(module_key, image);
  if (!m.sass) {
    Disassembly d = disassemble_(image);
    m.sass = SassListing::parse(d.listing);
    m.sass_note = d.note;
    if (d.note.empty() && m.sass->function_count() == 0) m.sass_note = "no SASS: nvdisasm listed no function";
  }
  PcDescription out;
  SourceLookup found = m.lines.lookup(mangled_function, pc_offset);
  out.source = std::move(found.line);
  std::vector<std::string> notes;
  if (!out.source) notes.push_back("no source line: " + found.note);
  if (const std::string* text = m.sass->instruction(mangled_function, pc_offset))
    out.sass = *text;
  else
    notes.push_back(!m.sass_note.empty() ? m.sass_note : "no SASS: nvdisasm listed no instruction there");
  for (const auto& n : notes) out.note += (out.note.empty() ? "" : "; ") + n;
  return pcs_.emplace(std::move(key), std::move(out)).first->second;
}

void add_finding_sources(const std::vector<raw::Capture>& captures, PcSymbolizer& symbolizer, Trace& trace,
                         SourceText* texts) {
  if (trace.findings.empty()) return;
  struct Origin {
    std::size_t capture = 0;
    std::uint64_t module = 0;
    const std::string* mangled = nullptr;
  };
  // (process, demangled kernel, pc offset) -> the first launch whose finding sites hold it: findings name kernels
  // demangled, and their process (whose module it was).
  std::map<std::tuple<std::int64_t, std::string, std::uint64_t>, Origin> origins;
  for (std::size_t c = 0; c < captures.size(); ++c)
    for (const auto& l : captures[c].launches) {
      if (l.finding_sites.empty()) continue;
      const std::string kernel = demangle(l.kernel);
      for (const auto& site : l.finding_sites)
        origins.try_emplace({captures[c].process.pid, kernel, site.pc}, Origin{c, l.module, &l.kernel});
    }
  for (Finding& f : trace.findings) {
    auto it = origins.find({f.process_id, f.kernel, f.pc_offset});
    if (it == origins.end() || it->second.module == 0) {
      f.source_note = "no source line or SASS: the trace does not say which module the kernel ran from";
      continue;
    }
    const Origin& o = it->second;
    auto image = captures[o.capture].module_images.find(o.module);
    if (image == captures[o.capture].module_images.end()) {
      f.source_note = "no source line or SASS: the access tool did not keep the module's image (past its 1 GiB of "
                      "kept images)";
      continue;
    }
    // One key per image: module numbers restart in each process.
    const std::uint64_t key = (static_cast<std::uint64_t>(o.capture) << 40) | o.module;
    const PcDescription& d = symbolizer.describe(key, image->second, *o.mangled, f.pc_offset);
    f.source = d.source;
    if (f.source && texts)
      if (auto text = texts->line(f.source->file, f.source->line)) f.source->text = std::move(*text);
    f.sass = d.sass;
    f.source_note = d.note;
  }
}

}  // namespace vtools::vtrace
