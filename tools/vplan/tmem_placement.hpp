// TMEM column and lane offsets as Triton 3.6 places them (lib/Dialect/TritonNvidiaGPU/Transforms/
// TensorMemoryAllocation.cpp, allocateTMem), so that vplan's own offsets on IR before allocation are the compiler's.
// Sizes come from buffers.hpp (tmem_size), intervals and warp_specialize regions from liveness.hpp.
#pragma once

#include <cstdint>
#include <vector>

namespace vtools::vplan {

struct TmemItem {
  int rows = 128;          ///< lanes: 128, or 64 (an M = 64 block: half of each warp's 32 lanes)
  std::int64_t cols = 0;   ///< 32-bit columns, all copies
  int start = 0;           ///< [start, end) in op ids: Triton's interval (liveness.hpp, allocator_view)
  int end = 0;
  int ws = -1;             ///< innermost warp_specialize op holding the alloc (-1: none)
  int region = 0;          ///< its region there
  int row_group = -1;      ///< items that must share lanes (an M = 64 MMA's TMEM A operand and its accumulator)
};

struct TmemOffset {
  std::int64_t col = 0;
  int row = 0;  ///< lane offset as tensor_memory_row_offset writes it: 0, or 16 for the second 64-row half
};

/// Offsets for `items` in program order, Triton's linear scan: before each item, free the items whose interval
/// ended at or before its start; items earlier in another region of the same warp_specialize count as taken
/// whatever their intervals (the regions run at once); then the lowest column, a multiple of 4, where the item's
/// lanes are free, the first 64-row half before the second. Cost: O(n^2 log n) for n items.
std::vector<TmemOffset> place_tmem_triton(const std::vector<TmemItem>& items);

/// Triton's ttg.tensor_memory_size for allocations ending at `highest_end` columns: the next of 0, 32, 64, 128,
/// 256, 512 (tcgen05.alloc takes a power of two from 32); past 512 the figure itself (over budget).
std::int64_t tmem_module_cols(std::int64_t highest_end);

}  // namespace vtools::vplan
