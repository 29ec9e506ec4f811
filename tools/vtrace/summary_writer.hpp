// Writes a TraceSummary as JSON (tests/data/vtrace/summary.schema.json), a text table, Markdown or CSV.
#pragma once

#include <ostream>
#include <string>

#include "libcommon/document.hpp"
#include "formats/trace/trace_summary.hpp"

namespace vtools::vtrace {

OrderedJson summary_to_json(const TraceSummary& summary);

/// A kernel name as tables show it: demangled names carry full parameter lists and template arguments (cuBLAS names
/// pass 400 characters). A name over 80 characters loses its parameter list (overloads still differ in short names)
/// and its "(anonymous namespace)::" qualifiers, then is cut with "..." (characters and widths as a terminal shows
/// them: a name of wide characters is cut at 80 columns, never inside a UTF-8 sequence). JSON keeps the full name.
std::string table_kernel_name(const std::string& name);

/// Kernel table (per graph launch too when one graph is selected), then the CUDA graph table (when no graph is
/// selected), the memcpy table, the NVTX range table and (access mode) the access table; `markdown` picks the table
/// flavour.
void write_summary_tables(const TraceSummary& summary, bool markdown, std::ostream& out);

/// The kernel table as CSV (`--format csv`, like `nsys stats --format csv`): a row per kernel with its full name and
/// raw numbers (nanoseconds, shares in [0, 1]; with one graph selected, its per-launch columns too). The other
/// tables and the totals are in the JSON.
void write_summary_csv(const TraceSummary& summary, std::ostream& out);

}  // namespace vtools::vtrace
