// Writes a TraceDiff as text or Markdown tables, or CSV (the vtools.tracediff document is written by
// formats/tracediff/tracediff_writer).
#pragma once

#include <ostream>

#include "tools/vtrace/trace_diff.hpp"

namespace vtools::vtrace {

/// The totals, the kernel table (largest contribution to the change of the GPU time first), then the added and
/// removed kernels; `markdown` picks the table flavour.
void write_trace_diff_tables(const TraceDiff& diff, bool markdown, std::ostream& out);

/// The kernels on both sides as CSV, a row each with full names and raw numbers (ns, ratios); added and removed
/// kernels as rows with an empty side.
void write_trace_diff_csv(const TraceDiff& diff, std::ostream& out);

}  // namespace vtools::vtrace
