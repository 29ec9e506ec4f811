// Joins vtools.bench documents from several runs or machines into one. Benchmarks keep their fields and gain
// "source" (the input's name); a config name seen before gets the suffix "@N" (N = 1-based input index).
// Metadata is the first input's plus "merged_from" (file, timestamp, device, backend, host of each input).
#pragma once

#include <string>
#include <vector>

#include "libcommon/document.hpp"

namespace vtools::vbench {

/// Error(kDataError) naming both inputs when batch_size, seq_len or dtype differ between benchmarks, unless
/// `allow_mixed`.
OrderedJson merge_bench_documents(const std::vector<OrderedJson>& docs, const std::vector<std::string>& names,
                                  bool allow_mixed);

}  // namespace vtools::vbench
