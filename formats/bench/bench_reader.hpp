// The one reader of vtools.bench: a parsed document (libcommon parse_document / read_document, which checked the
// envelope) -> BenchDocument. vbench's compare, merge, show and --forwards-from and vrender's bench page all read
// through it, so a document one refuses, the other refuses with the same message.
#pragma once

#include <string_view>

#include "formats/bench/bench_model.hpp"
#include "libcommon/document.hpp"

namespace vtools::vbench {

/// Reads the body of a vtools.bench document. Error(kDataError) at `name` (libcommon FieldReader's wording) for a
/// missing or non-object `benchmarks`, a non-object `metadata` or benchmark, a field of the wrong type
/// ("benchmarks.gpt2.timing.median: expected a number, got \"1.2\""), an integer out of its range (batch_size
/// 1e300), or a dtype or caches outside fp32|tf32|bf16, warm|cold.
BenchDocument read_bench_document(const OrderedJson& doc, std::string_view name);

}  // namespace vtools::vbench
