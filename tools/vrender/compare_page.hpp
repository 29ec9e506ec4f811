// The vtools.compare page: baseline vs candidate medians side by side, speedup with its confidence interval, and a
// verdict table. The document is read by formats/bench (read_compare_document).
#pragma once

#include <string_view>

#include "libcommon/document.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

Page compare_page(const OrderedJson& doc, std::string_view name);

}  // namespace vtools::vrender
