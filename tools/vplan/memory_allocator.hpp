// Offset assignment and peak usage for buffers with liveness intervals. Algorithm (interval first-fit, largest
// first, the order Triton's shared-memory allocator uses "to reduce fragmentation on big buffers"): take buffers by
// size descending, then start op, then id; give each the lowest offset, aligned to its alignment, that overlaps no
// already-placed buffer whose interval overlaps its own. Cost: the overlapping buffers sorted and scanned while there
// are few (up to 256); past that, unions of their offset spans over a segment tree of lifetimes, so N buffers live at
// once take ~N log^2 N, not N^2 log N (fragmented unions cost more: each skipped span is a lookup).
// Works for SMEM bytes and TMEM columns alike.
#pragma once

#include <cstdint>
#include <vector>

namespace vtools::vplan {

struct Placement {
  std::int64_t size = 0;
  std::int64_t alignment = 1;
  int start = 0;  ///< [start, end) in op ids
  int end = 0;
};

/// Offsets, one per placement (same order).
std::vector<std::int64_t> assign_offsets_first_fit(const std::vector<Placement>& items);

struct PeakUsage {
  std::int64_t peak = 0;  ///< most size live at one op (0 when nothing is live)
  int at = 0;             ///< first op id where the peak is reached
  std::vector<int> live;  ///< indices of the placements live there
};

/// Sum of sizes live at each op; returns the first maximum.
PeakUsage peak_usage(const std::vector<Placement>& items);

}  // namespace vtools::vplan
