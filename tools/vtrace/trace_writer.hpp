// Writes the vtools.trace document (schemas/vtools.trace.schema.json) from the trace model.
#pragma once

#include <string>

#include "libcommon/document.hpp"
#include "tools/vtrace/trace_model.hpp"

namespace vtools::vtrace {

/// The whole document as text, streamed (a trace may hold 10^5+ kernels): envelope from libcommon, then run,
/// devices, kernels, memcpys, memsets, allocations, failed_launches, partial, dropped_records, filtered_kernels;
/// access-mode arrays only when the run had them. Each record is one line.
std::string trace_document_text(const Trace& trace);

/// The same document parsed back (tests and in-process consumers).
OrderedJson trace_to_document(const Trace& trace);

}  // namespace vtools::vtrace
