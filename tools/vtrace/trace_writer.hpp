// Writes the vtools.trace document (schemas/vtools.trace.schema.json) from the trace model.
#pragma once

#include <string>
#include <vector>

#include "libcommon/document.hpp"
#include "tools/vtrace/trace_model.hpp"

namespace vtools::vtrace {

/// The whole document, streamed (a trace may hold 10^5+ kernels): envelope from libcommon, then run, devices,
/// kernels, memcpys, memsets, allocations, failed_launches, partial, dropped_records, filtered_kernels; access-mode
/// arrays only when the run had them. Each record is one line. Returned as consecutive pieces (big record arrays
/// come in chunks formatted on several threads), so a 10^8-byte document is written out without being joined.
std::vector<std::string> trace_document_pieces(const Trace& trace);

/// The same document as one string (tests, in-process consumers).
std::string trace_document_text(const Trace& trace);

/// The same document parsed back (tests and in-process consumers).
OrderedJson trace_to_document(const Trace& trace);

}  // namespace vtools::vtrace
