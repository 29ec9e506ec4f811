// Page for a vtools.plandiff document (`vplan diff A B`): both kernels, whether the plans are identical, and the
// changes grouped by what they are about (kernel, totals, buffers, reuse, channels, partitions).
#pragma once

#include <string_view>

#include "libcommon/document.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

Page plandiff_page(const OrderedJson& doc, std::string_view name);

}  // namespace vtools::vrender
