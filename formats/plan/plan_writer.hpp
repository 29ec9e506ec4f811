// The one writer of the vtools.plan document, streamed record by record (every container one element per line,
// 2-space indent, as dump_json lays a tree out), without a tree, which costs ~1 KB per op (a 10^6-op kernel's tree
// is gigabytes). plan_json.hpp has the reader, and the tree (this text parsed) for tests.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

/// Where the document goes, piece by piece and in order (an OutputStream, a string).
using PlanEmit = std::function<void(std::string_view)>;

/// The whole document, envelope included, sent to `emit` in pieces of about 1 MiB. `source_format` is "ttgir" or
/// "ws-dot".
void write_plan_document(const Plan& plan, std::string_view source_format, const PlanEmit& emit);

/// The same document as one string.
std::string plan_document_text(const Plan& plan, std::string_view source_format);

}  // namespace vtools::vplan
