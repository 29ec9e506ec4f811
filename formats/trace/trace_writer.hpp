// Writes the vtools.trace document (schemas/vtools.trace.schema.json) from the trace model.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "libcommon/document.hpp"
#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

/// Where a document goes, piece by piece and in order (an OutputStream, a string).
using Emit = std::function<void(std::string_view)>;

/// The whole document, streamed (a trace may hold 10^5+ kernels): envelope from libcommon, then run, devices,
/// kernels, memcpys, memsets, allocations, failed_launches, partial, dropped_records, filtered_kernels; access-mode
/// arrays only when the run had them. Each record is one line. Sent to `emit` in pieces as they are formatted (big
/// record arrays in blocks formatted on several threads), so a 10^8-byte document is never held whole.
void write_trace_document(const Trace& trace, const Emit& emit);

/// The same document as one string (tests, in-process consumers).
std::string trace_document_text(const Trace& trace);

/// The same document parsed back (tests and in-process consumers).
OrderedJson trace_to_document(const Trace& trace);

}  // namespace vtools::vtrace
