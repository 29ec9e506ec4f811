// `vtrace export --chrome`: the Trace Event Format that Perfetto and chrome://tracing open
// (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU): one process per device, one
// thread per stream, complete ("X") events with timestamps in microseconds relative to the first record.
#pragma once

#include "libcommon/document.hpp"
#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

/// {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}; args carry the launch details.
OrderedJson chrome_trace(const Trace& trace);

}  // namespace vtools::vtrace
