// Which live allocation an address falls in, and for an address outside all of them, the nearest one and how far
// off it is. Bounds are the requested sizes the allocation callbacks report (so one element past a 4000-byte buffer
// is outside even when the allocator rounded up).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace::access {

struct Lookup {
  std::int64_t allocation = -1;  ///< id of the containing allocation, else of the nearest one, -1 when none is live
  bool inside = false;           ///< [address, address + size) lies wholly in that allocation
  /// Outside only: address - end when past the end (0 = the first byte after it), address - start (< 0) when before.
  std::int64_t distance = 0;
  std::uint64_t offset = 0;  ///< inside only: address - allocation start
};

/// A piece of an access range: inside one allocation, or in the gap between allocations (allocation -1).
struct RangePiece {
  std::int64_t allocation = -1;
  std::uint64_t lo = 0, hi = 0;  ///< absolute addresses [lo, hi)
};

class AllocationMap {
 public:
  /// Adds a live allocation (replacing one at the same address).
  void add(const Allocation& allocation);
  /// Removes the allocation starting at `address`; false when there is none.
  bool remove(std::uint64_t address);
  /// Looks up an access of `size` bytes at `address`.
  [[nodiscard]] Lookup find(std::uint64_t address, std::uint64_t size) const;
  /// Cuts [address, address + size) at allocation bounds, in address order (bulk copies span many bytes, so part of
  /// one can be in bounds and part outside). Empty when size is 0.
  [[nodiscard]] std::vector<RangePiece> split(std::uint64_t address, std::uint64_t size) const;
  [[nodiscard]] std::size_t size() const { return by_address_.size(); }

 private:
  std::map<std::uint64_t, Allocation> by_address_;
};

}  // namespace vtools::vtrace::access
