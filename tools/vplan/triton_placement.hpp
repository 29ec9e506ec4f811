// Shared-memory offsets as Triton 3.6's allocator places them (lib/Analysis/Allocation.cpp, computeOffsets):
// buffers sorted by size, largest first (stable), get start offsets from the triple algorithm of "Algorithms for
// Compile-Time Memory Optimization" (calculateStarts); then, until no two buffers interfere, an interference graph
// is coloured first-fit and every buffer not of colour 0 moves just above its interfering neighbours (allocate).
// Buffers interfere when their byte ranges overlap and they are live at once, or, whatever their lifetimes, when
// they sit in different regions of one ttg.warp_specialize (partitions run concurrently).
// TMEM: tmem_placement.hpp; big modules fall back to interval first-fit (memory_allocator.hpp).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vtools::vplan {

/// One shared-memory buffer as Triton's allocator sees it.
struct SmemItem {
  std::int64_t size = 0;       ///< bytes; items of size 0 take no part (offset 0)
  std::int64_t alignment = 1;  ///< bytes
  int start = 0;               ///< liveness [start, end) in post-order op ids; end = kForever for the function's own
  int end = 0;
  int ws = -1;      ///< id of the innermost ttg.warp_specialize holding the owning op (-1: none)
  int region = 0;   ///< which region of that op (0 = default, N + 1 = partitionN)
};

/// The end of a buffer live for the whole function (Triton: the interval's maximum).
inline constexpr int kForever = INT_MAX;

/// Most buffers placed by Triton's algorithm (its start search scans every unplaced buffer per slot, about n^2);
/// above it vplan falls back to interval first-fit (budget.cpp). Real kernels have tens of buffers.
inline constexpr std::size_t kTritonPlacementMaxBuffers = 1024;

/// Offsets, one per item (same order). `items` must be in Triton's buffer order: explicit allocations in program
/// (pre-order) order, then scratch with the function's own first. Quadratic in the worst case, near linear when
/// few buffers are live at once.
std::vector<std::int64_t> assign_offsets_triton(const std::vector<SmemItem>& items);

}  // namespace vtools::vplan
