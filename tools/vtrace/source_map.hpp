// PC -> source line of one loaded module: reads a cubin's DWARF line table (.debug_line) with elfutils' libdw and
// maps a function's PC offset to {file, line, column, function, inlined_at[]}. NVIDIA's line tables have no
// .debug_info: each function is one sequence whose DW_LNE_set_address is a relocation against the function's symbol
// (.rela.debug_line), applied here before libdw reads the table; inlining comes as NVIDIA's extended opcodes
// DW_LNE_NVIDIA_inlined_call / _set_function_name, which libdw (0.188) decodes (dwarf_linecontext,
// dwarf_linefunctionname). SASS text is sass_listing's job; this file never runs a program.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

/// A source line, or why there is none.
struct SourceLookup {
  std::optional<SourceLine> line;
  std::string note;  ///< "" when `line` is set
};

class SourceMap {
 public:
  /// Reads the line tables of `cubin`, the ELF image of one module. Never throws for what a module may lack or
  /// hold wrongly: a module that is not an ELF image, has no line table or a damaged one gives a map whose lookups
  /// all say why (`name` names the module in those notes).
  static SourceMap read(std::string_view cubin, std::string_view name);

  /// The source line of the instruction at `pc_offset` bytes into function `mangled_function`.
  [[nodiscard]] SourceLookup lookup(std::string_view mangled_function, std::uint64_t pc_offset) const;

  /// Why every lookup fails ("" when the module has line tables).
  [[nodiscard]] const std::string& unavailable() const { return unavailable_; }

 private:
  struct Row {
    std::uint64_t address = 0;  ///< offset into its function's code
    bool end = false;           ///< end of a sequence: no instruction here
    std::uint32_t line = 0, column = 0;
    std::uint32_t file = 0;        ///< index into files_
    std::int64_t context = -1;     ///< the call site (index into rows_) when this row is inlined, else -1
    std::string inlined_function;  ///< mangled name of the inlined callee, when inlined
  };
  SourceFrame frame(const Row& row, std::string_view kernel) const;

  std::vector<std::string> files_;
  std::vector<Row> rows_;  ///< every row of every line table, in table order
  /// Mangled function name -> its rows (indices into rows_) by address, table order kept among equal addresses.
  std::map<std::string, std::vector<std::size_t>, std::less<>> functions_;
  std::string unavailable_;
};

}  // namespace vtools::vtrace
