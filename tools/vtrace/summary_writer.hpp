// Writes a TraceSummary as JSON (tests/data/vtrace/summary.schema.json), a text table or Markdown.
#pragma once

#include <ostream>

#include "libcommon/document.hpp"
#include "tools/vtrace/trace_summary.hpp"

namespace vtools::vtrace {

OrderedJson summary_to_json(const TraceSummary& summary);

/// Kernel table (per graph launch too when one graph is selected), then the CUDA graph table (when no graph is
/// selected), the memcpy table and (access mode) the access table; `markdown` picks the table flavour.
void write_summary_tables(const TraceSummary& summary, bool markdown, std::ostream& out);

}  // namespace vtools::vtrace
