// Access mode's hot lines (trace_model.hpp HotLine) per kernel, hottest first, and as tables: `vtrace summary --by
// line` prints them, vrender's trace page shows them (the same rows in both).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/trace/trace_model.hpp"
#include "libcommon/table.hpp"

namespace vtools::vtrace {

/// One kernel's lines.
struct KernelLines {
  std::string kernel;
  HotLine total;  ///< its rows summed (file, line, text, sass and note empty; pcs summed)
  /// Rows of one (file, line, function), or one PC where there is no line, summed; by bytes moved (loaded + stored),
  /// then lane accesses, descending; then file, line and PC.
  std::vector<HotLine> lines;
};

struct LineSummary {
  std::vector<KernelLines> kernels;  ///< by bytes moved, descending, then name
  std::uint64_t dropped_requests = 0;  ///< Trace::hot_lines_dropped_requests
};

/// The hot lines of `trace` per kernel (rows of equal kernel and line, from a selection or hand-made document,
/// summed).
LineSummary summarize_lines(const Trace& trace);

/// Where a row is, as tables show it: "file:line" with the file's last path component, or "pc +0x1f0".
std::string hot_line_place(const HotLine& line);

/// At most this many rows per kernel in a table (the JSON and CSV have them all).
inline constexpr std::size_t kLineTableRows = 50;

/// One kernel's table: place, function, pcs, loads, stores, atomics, loaded, stored, sectors/req, lanes/req,
/// findings, and the line's text (an instruction row: its SASS); the hottest kLineTableRows rows.
Table kernel_lines_table(const KernelLines& kernel);

}  // namespace vtools::vtrace
