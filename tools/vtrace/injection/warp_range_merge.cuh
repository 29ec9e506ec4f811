// The device's batch merge of byte runs into a site's ranges, done by a whole warp at once: the site's ranges (one
// per lane, at most kRangesPerSite) and up to one new run per lane are sorted together by a bitonic sort across the
// warp, joined where they touch by a prefix max, coarsened by filling the smallest gaps when more than
// kRangesPerSite remain, and stored back in parallel. One lock hold then costs a few hundred shuffles instead of one
// serial add_range per run (a cp.async GEMM tile adds ~30 runs per request), which is what kept the other warps of a
// block spinning. raw::add_range_batch (access_records.hpp) is its host yardstick: the same result, bit for bit.
#pragma once

#include <cstdint>

#include "tools/vtrace/access/access_records.hpp"

namespace vtools::vtrace::warp {

constexpr unsigned kFullWarp = 0xffffffffu;
constexpr std::uint64_t kNoLo = ~0ull;  // lo of an empty element: sorts after every real range

__device__ __forceinline__ std::uint64_t shfl(std::uint64_t v, int from) {
  return __shfl_sync(kFullWarp, static_cast<unsigned long long>(v), from);
}
__device__ __forceinline__ std::uint64_t shfl_xor(std::uint64_t v, int mask) {
  return __shfl_xor_sync(kFullWarp, static_cast<unsigned long long>(v), mask);
}
__device__ __forceinline__ std::uint64_t shfl_up(std::uint64_t v, unsigned by) {
  return __shfl_up_sync(kFullWarp, static_cast<unsigned long long>(v), by);
}
__device__ __forceinline__ bool before(std::uint64_t a_lo, std::uint64_t a_hi, std::uint64_t b_lo,
                                       std::uint64_t b_hi) {
  return a_lo < b_lo || (a_lo == b_lo && a_hi < b_hi);
}

/// One compare-exchange step of the bitonic sort for element `e` (its partner is e ^ distance, in another lane).
__device__ __forceinline__ void exchange(std::uint64_t& lo, std::uint64_t& hi, unsigned e, unsigned distance,
                                         unsigned size) {
  const std::uint64_t other_lo = shfl_xor(lo, static_cast<int>(distance)),
                      other_hi = shfl_xor(hi, static_cast<int>(distance));
  const bool keep_smaller = ((e & distance) == 0) == ((e & size) == 0);
  if (keep_smaller ? before(other_lo, other_hi, lo, hi) : before(lo, hi, other_lo, other_hi)) {
    lo = other_lo;
    hi = other_hi;
  }
}

/// Adds each calling lane's run [run_lo, run_hi) (where `has_run`) to the sorted, disjoint, non-touching `ranges`
/// of a site. All 32 lanes must call it together, and one of them must hold the site's lock.
__device__ void add_runs(std::uint64_t (*ranges)[2], std::uint32_t* range_count, std::uint64_t* ranges_merged,
                         bool has_run, std::uint64_t run_lo, std::uint64_t run_hi) {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  std::uint32_t count = *range_count;
  if (count > raw::kRangesPerSite) count = raw::kRangesPerSite;
  // 64 elements, two per lane: e = lane holds the site's range `lane`, e = 32 + lane this lane's run.
  std::uint64_t lo0 = kNoLo, hi0 = 0, lo1 = kNoLo, hi1 = 0;
  if (lane < count) {
    lo0 = ranges[lane][0];
    hi0 = ranges[lane][1];
  }
  if (has_run && run_hi > run_lo) {
    lo1 = run_lo;
    hi1 = run_hi;
  }
  for (unsigned size = 2; size <= 64; size <<= 1)
    for (unsigned distance = size >> 1; distance > 0; distance >>= 1) {
      if (distance == 32) {  // partners share a lane; only in the last merge, which sorts ascending
        if (before(lo1, hi1, lo0, hi0)) {
          const std::uint64_t lo = lo0, hi = hi0;
          lo0 = lo1;
          hi0 = hi1;
          lo1 = lo;
          hi1 = hi;
        }
        continue;
      }
      exchange(lo0, hi0, lane, distance, size);
      exchange(lo1, hi1, 32 + lane, distance, size);
    }
  const bool valid0 = lo0 != kNoLo, valid1 = lo1 != kNoLo;

  // Inclusive prefix max of hi in element order: the end of the joined range an element belongs to.
  std::uint64_t end0 = hi0, end1 = hi1;
  for (unsigned by = 1; by < 32; by <<= 1) {
    const std::uint64_t up0 = shfl_up(end0, by), up1 = shfl_up(end1, by);
    if (lane >= by) {
      end0 = up0 > end0 ? up0 : end0;
      end1 = up1 > end1 ? up1 : end1;
    }
  }
  const std::uint64_t row0_end = shfl(end0, 31);
  end1 = row0_end > end1 ? row0_end : end1;
  std::uint64_t prior0 = shfl_up(end0, 1), prior1 = shfl_up(end1, 1);  // max hi of the elements before
  if (lane == 0) {
    prior0 = 0;
    prior1 = row0_end;
  }
  // An element starts a joined range when it begins past everything before it (touching joins).
  const bool start0 = valid0 && (lane == 0 || lo0 > prior0), start1 = valid1 && lo1 > prior1;
  unsigned starts0 = __ballot_sync(kFullWarp, start0), starts1 = __ballot_sync(kFullWarp, start1);
  const unsigned joined = __popc(starts0) + __popc(starts1);

  if (joined > raw::kRangesPerSite) {  // fill the smallest gaps; of equal gaps, the lower first
    const unsigned excess = joined - raw::kRangesPerSite;
    const unsigned below = (1u << lane) - 1u;
    const unsigned rank0 = __popc(starts0 & below), rank1 = __popc(starts0) + __popc(starts1 & below);
    const std::uint64_t gap0 = start0 && rank0 > 0 ? lo0 - prior0 : kNoLo;  // kNoLo: no gap before it
    const std::uint64_t gap1 = start1 ? lo1 - prior1 : kNoLo;               // row 1 always follows a range
    unsigned smaller0 = 0, smaller1 = 0;
    for (int from = 0; from < 32; ++from) {
      const std::uint64_t g0 = shfl(gap0, from), g1 = shfl(gap1, from);
      const unsigned before_from = (1u << from) - 1u;
      const unsigned r0 = __popc(starts0 & before_from), r1 = __popc(starts0) + __popc(starts1 & before_from);
      if (g0 != kNoLo) {
        smaller0 += g0 < gap0 || (g0 == gap0 && r0 < rank0);
        smaller1 += g0 < gap1 || (g0 == gap1 && r0 < rank1);
      }
      if (g1 != kNoLo) {
        smaller0 += g1 < gap0 || (g1 == gap0 && r1 < rank0);
        smaller1 += g1 < gap1 || (g1 == gap1 && r1 < rank1);
      }
    }
    const bool fill0 = gap0 != kNoLo && smaller0 < excess, fill1 = gap1 != kNoLo && smaller1 < excess;
    starts0 = __ballot_sync(kFullWarp, start0 && !fill0);
    starts1 = __ballot_sync(kFullWarp, start1 && !fill1);
    if (lane == 0) *ranges_merged += excess;
  }

  // Store: a start writes its range's lo, the last element of a range its hi (the prefix max there).
  const unsigned valids0 = __ballot_sync(kFullWarp, valid0), valids1 = __ballot_sync(kFullWarp, valid1);
  const unsigned upto = lane == 31 ? kFullWarp : (2u << lane) - 1u;
  const unsigned index0 = __popc(starts0 & upto) - 1u, index1 = __popc(starts0) + __popc(starts1 & upto) - 1u;
  const bool next_starts0 = lane < 31 ? (starts0 >> (lane + 1)) & 1u : starts1 & 1u;
  const bool next_valid0 = lane < 31 ? (valids0 >> (lane + 1)) & 1u : valids1 & 1u;
  const bool next_starts1 = lane < 31 && ((starts1 >> (lane + 1)) & 1u);
  const bool next_valid1 = lane < 31 && ((valids1 >> (lane + 1)) & 1u);
  __syncwarp();  // every lane has read the old ranges
  if ((starts0 >> lane) & 1u) ranges[index0][0] = lo0;
  if (valid0 && (next_starts0 || !next_valid0)) ranges[index0][1] = end0;
  if ((starts1 >> lane) & 1u) ranges[index1][0] = lo1;
  if (valid1 && (next_starts1 || !next_valid1)) ranges[index1][1] = end1;
  if (lane == 0) *range_count = __popc(starts0) + __popc(starts1);
}

}  // namespace vtools::vtrace::warp
