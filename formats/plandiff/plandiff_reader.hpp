// Reads the vtools.plandiff document (vplan diff's output) into the model: the one reader of the format, which
// vrender's plan diff page reads through. Types as schemas/vtools.plandiff.schema.json says, through libcommon's
// FieldReader, so every fault is exit 65 naming its path ("changes[3].change: expected \"added\", ... got \"grown\"").
#pragma once

#include <string_view>

#include "formats/plandiff/plandiff_model.hpp"
#include "libcommon/document.hpp"

namespace vtools::vplan {

/// The body of a parsed vtools.plandiff document (libcommon parse_document checked the envelope); `name` for
/// messages. Every field the schema requires is required; `change` is one of the schema's; `section` is any string
/// (a section a newer vplan adds is kept for the reader to name); `identical` is type-checked and recomputed.
PlanDiff plan_diff_from_document(const OrderedJson& doc, std::string_view name);

/// A vtools.plandiff document's text: parsed (envelope checked), then read as plan_diff_from_document.
PlanDiff read_plan_diff(std::string_view text, std::string_view name);

}  // namespace vtools::vplan
