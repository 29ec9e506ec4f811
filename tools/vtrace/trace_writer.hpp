// Writes the vtools.trace document (schemas/vtools.trace.schema.json) from the trace model.
#pragma once

#include "libcommon/document.hpp"
#include "tools/vtrace/trace_model.hpp"

namespace vtools::vtrace {

/// The whole document: envelope from libcommon, then run, devices, kernels, memcpys, memsets, allocations,
/// failed_launches, partial, dropped_records, filtered_kernels; access-mode arrays only when the run had them.
OrderedJson trace_to_document(const Trace& trace);

}  // namespace vtools::vtrace
