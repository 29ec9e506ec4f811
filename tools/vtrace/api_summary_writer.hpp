// Writes an ApiSummary (api_summary.hpp) as JSON or as text/Markdown tables: the blocking calls (nsys cuda_api_sum's
// columns), the kernels' queue delay, and each device's idle time with the part the host spent blocked.
#pragma once

#include <ostream>

#include "libcommon/document.hpp"
#include "tools/vtrace/api_summary.hpp"

namespace vtools::vtrace {

/// {"summary_of": "vtools.trace api", recorded, calls, total_ns, functions[], queue_delay, devices[]}.
OrderedJson api_summary_to_json(const ApiSummary& summary);

void write_api_summary_tables(const ApiSummary& summary, bool markdown, std::ostream& out);

}  // namespace vtools::vtrace
