// Reads a vtools.trace document into the trace model. Missing optional fields take their defaults; unknown fields
// are ignored (forward compatible); a present field of the wrong type is refused with its JSON path. Top-level keys
// may come in any order; in the order vtrace writes them, records are read one at a time.
#pragma once

#include <string_view>

#include "formats/trace/trace_model.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/json_scanner.hpp"
#include "libcommon/text_stream.hpp"

namespace vtools::vtrace {

/// Parses `text` (named `name` in messages). Throws Error(kDataError) at `name` with the JSON path of the first
/// bad field, e.g. "kernels[2].grid: expected an array of 3 integers". `passed` hears how far the reading got (an
/// InputText's passed(), so that a mapped file's pages go once read).
Trace read_trace(std::string_view text, std::string_view name, const ReadProgress& passed = {});

/// read_trace over a text read in passes (`open` gives each; a compressed input's text, decompressed as it is read):
/// the same model and errors, without the whole text in memory.
Trace read_trace(const OpenText& open, std::string_view name);

/// read_trace of an input as vtrace and vrender read it: a compressed one in passes (open()), any other as its text
/// with the mapped pages dropped once read (InputText::passed). Call it inside the input's read_checked.
Trace read_trace(const InputText& input, std::string_view name);

}  // namespace vtools::vtrace
