// Writes the vtools.tracediff document (schemas/vtools.tracediff.schema.json; version kTraceDiffFormat in
// libcommon/document.hpp) from the model. vtrace diff's tables and CSV stay in tools/vtrace/trace_diff_writer.
#pragma once

#include "formats/tracediff/tracediff_model.hpp"
#include "libcommon/document.hpp"

namespace vtools::vtrace {

/// The whole document, envelope included: both sides' files and totals with their changes, the regression flags,
/// the graph replays (null without --graph), the kernels on both sides, added and removed kernels. Numbers with no
/// value (a ratio without an interval) are null; `threshold_pct` < 0 is null; `regression` is has_regression().
OrderedJson trace_diff_document(const TraceDiff& diff);

}  // namespace vtools::vtrace
