#include "tools/vtrace/access/allocation_map.hpp"

#include <algorithm>

namespace vtools::vtrace::access {

void AllocationMap::add(const Allocation& allocation) { by_address_[allocation.address] = allocation; }

bool AllocationMap::remove(std::uint64_t address) { return by_address_.erase(address) > 0; }

Lookup AllocationMap::find(std::uint64_t address, std::uint64_t size) const {
  Lookup out;
  if (by_address_.empty()) return out;
  auto after = by_address_.upper_bound(address);  // first allocation starting after address
  const Allocation* before = after == by_address_.begin() ? nullptr : &std::prev(after)->second;
  if (before && address + size <= before->address + before->size) {
    out.allocation = static_cast<std::int64_t>(before->id);
    out.inside = true;
    out.offset = address - before->address;
    return out;
  }
  // Outside (or straddling the end of `before`): the nearer of the allocation before and the one after.
  std::int64_t past_end = before ? static_cast<std::int64_t>(address - (before->address + before->size)) : 0;
  std::int64_t before_start = after != by_address_.end() ? static_cast<std::int64_t>(address - after->second.address) : 0;
  bool use_before = before && (after == by_address_.end() || (past_end < 0 ? 0 : past_end) <= -before_start);
  if (use_before) {
    out.allocation = static_cast<std::int64_t>(before->id);
    out.distance = past_end < 0 ? 0 : past_end;  // straddling: starts inside, ends past the end
  } else {
    out.allocation = static_cast<std::int64_t>(after->second.id);
    out.distance = before_start;
  }
  return out;
}

std::vector<RangePiece> AllocationMap::split(std::uint64_t address, std::uint64_t size) const {
  std::vector<RangePiece> out;
  const std::uint64_t end = address + size;
  std::uint64_t pos = address;
  while (pos < end) {
    auto after = by_address_.upper_bound(pos);
    if (after != by_address_.begin()) {
      const Allocation& a = std::prev(after)->second;
      if (pos < a.address + a.size) {  // inside `a` up to its end
        std::uint64_t hi = std::min(end, a.address + a.size);
        out.push_back({static_cast<std::int64_t>(a.id), pos, hi});
        pos = hi;
        continue;
      }
    }
    std::uint64_t hi = after == by_address_.end() ? end : std::min(end, after->second.address);  // gap to the next
    out.push_back({-1, pos, hi});
    pos = hi;
  }
  return out;
}

}  // namespace vtools::vtrace::access
