// Puts each out-of-bounds finding at its source line and SASS instruction: the access tool wrote the cubin of every
// module whose launches had findings or PC table entries (kModuleImage) and each such launch's module (kLaunchModule);
// here each module's line table is read and nvdisasm run at most once (only when a PC needs SASS), and each distinct
// (module, function, PC) is looked up once, however many findings share it. What cannot be given is said in the
// finding's source_note. PcSymbolizer also serves the per-line view (hot_lines).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/sass_disassembler.hpp"
#include "tools/vtrace/sass_listing.hpp"
#include "tools/vtrace/source_map.hpp"
#include "tools/vtrace/source_text.hpp"
#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

/// Source line and SASS of one PC, or why not.
struct PcDescription {
  std::optional<SourceLine> source;
  std::string sass;
  std::string note;  ///< "" when both are there
};

class PcSymbolizer {
 public:
  /// Runs the disassembler on a module's image (sass_disassembler's `disassemble` in vtrace; a stub in tests).
  using Disassembler = std::function<Disassembly(std::string_view cubin)>;
  explicit PcSymbolizer(Disassembler disassembler) : disassemble_(std::move(disassembler)) {}

  /// The PC `pc_offset` of `mangled_function` in module `module` (any key unique per module image), whose image is
  /// `image`.
  const PcDescription& describe(std::uint64_t module, std::string_view image, const std::string& mangled_function,
                                std::uint64_t pc_offset);
  /// Only the source line of that PC (or why none): the module's line table is read once, and nvdisasm is not run
  /// (the per-line view needs SASS only where a PC has no line).
  SourceLookup line(std::uint64_t module, std::string_view image, const std::string& mangled_function,
                    std::uint64_t pc_offset);
  /// The SASS text at that PC where the module has already been disassembled (for a finding), else nullptr: the
  /// per-line view does not run nvdisasm itself (on every module of a GPT-2 training step it took 90 s).
  [[nodiscard]] const std::string* sass_if_disassembled(std::uint64_t module, const std::string& mangled_function,
                                                        std::uint64_t pc_offset) const;
  [[nodiscard]] std::size_t modules_read() const { return modules_.size(); }
  [[nodiscard]] std::size_t pcs_described() const { return pcs_.size(); }

 private:
  struct Module {
    SourceMap lines;
    std::optional<SassListing> sass;  ///< disassembled on first need
    std::string sass_note;
  };
  Module& module(std::uint64_t module, std::string_view image);
  Disassembler disassemble_;
  std::map<std::uint64_t, Module> modules_;
  std::map<std::tuple<std::uint64_t, std::string, std::uint64_t>, PcDescription> pcs_;
};

/// Fills source, sass and source_note of every finding of `trace` from the captures it was built from; with
/// `texts`, also each source line's text (from the file the line table names, when it can be read).
void add_finding_sources(const std::vector<raw::Capture>& captures, PcSymbolizer& symbolizer, Trace& trace,
                         SourceText* texts = nullptr);

}  // namespace vtools::vtrace
