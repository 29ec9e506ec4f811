// The reader of vtools.compare (vbench compare's output): a parsed document (libcommon parse_document, which checked
// the envelope) -> CompareDocument. vrender's compare page reads through it.
#pragma once

#include <string_view>

#include "formats/bench/compare_model.hpp"
#include "libcommon/document.hpp"

namespace vtools::vbench {

/// Reads the body of a vtools.compare document. Absent parts read as empty. Error(kDataError) at `name` for a part
/// that is not an object or array, and a field of the wrong type ("comparisons[0].speedup: expected a number, got
/// \"fast\""), in libcommon FieldReader's wording as every document reader.
CompareDocument read_compare_document(const OrderedJson& doc, std::string_view name);

}  // namespace vtools::vbench
