// Writes a TraceDiff as a vtools.tracediff document (schemas/vtools.tracediff.schema.json), text or Markdown tables,
// or CSV.
#pragma once

#include <ostream>

#include "libcommon/document.hpp"
#include "tools/vtrace/trace_diff.hpp"

namespace vtools::vtrace {

/// The vtools.tracediff document: envelope, both sides' files and totals, the kernels on both sides, added and
/// removed kernels. Numbers with no value (a ratio without an interval) are null.
OrderedJson trace_diff_to_json(const TraceDiff& diff);

/// The totals, the kernel table (largest contribution to the change of the GPU time first), then the added and
/// removed kernels; `markdown` picks the table flavour.
void write_trace_diff_tables(const TraceDiff& diff, bool markdown, std::ostream& out);

/// The kernels on both sides as CSV, a row each with full names and raw numbers (ns, ratios); added and removed
/// kernels as rows with an empty side.
void write_trace_diff_csv(const TraceDiff& diff, std::ostream& out);

}  // namespace vtools::vtrace
