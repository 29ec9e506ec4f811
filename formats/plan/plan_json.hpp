// vtools.plan JSON: the plan as a document (libcommon envelope + kernel, partitions, ops, buffers, channels,
// summary) and back. The schema is schemas/vtools.plan.schema.json (version: kPlanFormat in libcommon/document.hpp).
#pragma once

#include <string_view>

#include "libcommon/document.hpp"
#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

/// The whole document, envelope included, as a tree: plan_writer.hpp's text parsed (for tests and small plans; the
/// tools stream it). `source_format` is "ttgir" or "ws-dot".
OrderedJson plan_document(const Plan& plan, std::string_view source_format);

/// Reads a vtools.plan document (envelope checked), streamed: each op, buffer and partition goes into the plan as
/// the parser reaches it, so memory is the text plus the plan, never the document's tree (~8x the text); `passed`
/// hears how far the parser got (an InputText drops the mapped pages behind it: then memory is about the plan's).
/// Throws Error(kDataError) naming the field that is missing or of the wrong type: the same fault, in the same
/// words, as plan_from_document(parse_document(text)) names first.
Plan read_plan_json(std::string_view text, std::string_view name, const ReadProgress& passed = {});

/// Plan from an already parsed document (`name` for messages).
Plan plan_from_document(const OrderedJson& doc, std::string_view name);

}  // namespace vtools::vplan
