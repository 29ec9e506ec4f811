// Reads the vtools.tracediff document (vtrace diff's output) into the model: the one reader of the format, which
// vrender's trace diff page reads through. Types and ranges as schemas/vtools.tracediff.schema.json says, through
// libcommon's FieldReader, so every fault is exit 65 naming its path ("kernels[3].base.calls: expected an integer
// from 1 to 18446744073709551615, got 1.5").
#pragma once

#include <string_view>

#include "formats/tracediff/tracediff_model.hpp"
#include "libcommon/document.hpp"

namespace vtools::vtrace {

/// The body of a parsed vtools.tracediff document (libcommon parse_document checked the envelope); `name` for
/// messages. What the schema requires is required (null reads as absent); nullable numbers (ratio, ci_low, ci_high,
/// change_pct) read as NaN where null; enums (verdict, code, interval_over, likely_cause) are checked. The derived
/// fields (`gpu_time_change_pct`, `busy_change_pct`, `regression`) are type-checked and recomputed from the model.
TraceDiff trace_diff_from_document(const OrderedJson& doc, std::string_view name);

/// A vtools.tracediff document's text: parsed (envelope checked), then read as trace_diff_from_document.
TraceDiff read_trace_diff(std::string_view text, std::string_view name);

}  // namespace vtools::vtrace
