// Writes a LineSummary (formats/trace/line_summary.hpp, `vtrace summary --by line`) as JSON
// (tests/data/vtrace/line-summary.schema.json), text tables, Markdown or CSV.
#pragma once

#include <ostream>

#include "formats/trace/line_summary.hpp"
#include "libcommon/document.hpp"

namespace vtools::vtrace {

/// {summary_of, by: "line", dropped_requests, kernels: [{kernel, totals..., lines: [...]}]}, every row.
OrderedJson line_summary_to_json(const LineSummary& summary);

/// A headline, then per kernel its name, totals and its table (the hottest rows, kernel_lines_table).
void write_line_summary_tables(const LineSummary& summary, bool markdown, std::ostream& out);

/// One CSV row per kernel and line, every row, raw numbers (the per-request averages in [0, 32]).
void write_line_summary_csv(const LineSummary& summary, std::ostream& out);

}  // namespace vtools::vtrace
