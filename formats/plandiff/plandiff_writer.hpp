// Writes the vtools.plandiff document (schemas/vtools.plandiff.schema.json; version kPlanDiffFormat in
// libcommon/document.hpp) from the model. vplan diff's tables and DOT stay in tools/vplan/plan_diff_writer.
#pragma once

#include "formats/plandiff/plandiff_model.hpp"
#include "libcommon/document.hpp"

namespace vtools::vplan {

/// The whole document, envelope included: both sides' kernel and source, `identical`, the changes in order.
OrderedJson plan_diff_document(const PlanDiff& diff);

}  // namespace vtools::vplan
