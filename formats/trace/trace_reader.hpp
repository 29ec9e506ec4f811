// Reads a vtools.trace document into the trace model. Missing optional fields take their defaults; unknown fields
// are ignored (forward compatible); a present field of the wrong type is refused with its JSON path.
#pragma once

#include <string_view>

#include "formats/trace/trace_model.hpp"
#include "libcommon/json_scanner.hpp"

namespace vtools::vtrace {

/// Parses `text` (named `name` in messages). Throws Error(kDataError) at `name` with the JSON path of the first
/// bad field, e.g. "kernels[2].grid: expected an array of 3 integers". `passed` hears how far the reading got (an
/// InputText's passed(), so that a mapped file's pages go once read).
Trace read_trace(std::string_view text, std::string_view name, const ReadProgress& passed = {});

}  // namespace vtools::vtrace
