// Page for a vtools.plandiff document (`vplan diff A B`): both kernels, whether the plans are identical, and the
// changes grouped by what they are about (kernel, totals, buffers, reuse, channels, partitions).
#pragma once

#include <string_view>

#include "formats/plandiff/plandiff_model.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

/// The page of one plan diff (read by formats/plandiff's reader); `name` is the input's, for the subtitle.
Page plandiff_page(const vplan::PlanDiff& diff, std::string_view name);

}  // namespace vtools::vrender
