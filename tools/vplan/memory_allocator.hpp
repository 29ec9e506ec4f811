// Offset assignment and peak usage for buffers with liveness intervals. Algorithm (interval first-fit, largest
// first, the order Triton's shared-memory allocator uses "to reduce fragmentation on big buffers"): take buffers by
// size descending, then start op, then id; give each the lowest offset, aligned to its alignment, that overlaps no
// already-placed buffer whose interval overlaps its own. Cost: the overlapping buffers sorted and scanned while there
// are few (up to 256); past that, unions of their offset spans over a segment tree of lifetimes, so N buffers live at
// once take ~N log^2 N, not N^2 log N (fragmented unions cost more: each skipped span is a lookup).
// Works for SMEM bytes and TMEM columns alike.
#pragma once

#include <cstdint>
#include <utility>
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
  std::vector<int> live;  ///< indices of the placements live there (concurrent_peak_usage: see there)
  bool regions = false;   ///< concurrent_peak_usage: the peak is a warp_specialize's regions counted at once
};

/// Sum of sizes live at each op; returns the first maximum.
PeakUsage peak_usage(const std::vector<Placement>& items);

/// The peak where the regions of a warp_specialize run at once. `region_of[i]` is {warp_specialize op id, region}
/// of item i ({-1, 0}: in none); a region's items end before its warp_specialize's id (post-order). Each region may
/// sit at its own peak while the others sit at theirs, so warp_specialize W holds the items live across it
/// (start < W < end) plus the sum of its regions' peaks; where that beats peak_usage, `at` is W and `live` those
/// items with each region's own peak set (not one op's: `regions` is then true). Items starting at W (its capture
/// scratch, only live for the entry into the regions) are not counted there. Ties keep peak_usage's op.
PeakUsage concurrent_peak_usage(const std::vector<Placement>& items, const std::vector<std::pair<int, int>>& region_of);

}  // namespace vtools::vplan
