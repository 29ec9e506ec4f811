// Access mode: turns what the preload library recorded in each process (allocations, launches, warp accesses, in
// file order) into the trace: allocations with ids, one kernel entry per recorded launch, per-block accesses and
// out-of-bounds findings. Launches left out by --kernel/--launch and warp requests over --max-bytes are counted.
#pragma once

#include <vector>

#include "tools/vtrace/access/block_sampling.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace::access {

void add_access_captures(const std::vector<raw::Capture>& captures, const BlockSampling& blocks,
                         std::uint64_t max_findings, Trace& trace);

}  // namespace vtools::vtrace::access
