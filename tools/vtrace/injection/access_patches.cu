// Device patches of access mode, compiled with `nvcc --fatbin --compile-as-tools-patch` and loaded by the preload
// library with sanitizerAddPatchesFromFile. Every global access, cp.async and cp.async.bulk copy is checked against
// the launch's allocation table and folded into the launch's site table here, on the device, as it happens: the
// lanes of a warp request are grouped by (allocation, kernel argument); each group's leader adds the request to its
// site's counters (atomics) and, unless the site's ranges already cover them (read without the lock), its byte runs
// to the site's merged ranges under the site's lock (a site already coarsened whose lock is taken takes the runs into
// its hull instead, lock-free); lanes outside every allocation are counted per PC with the first few kept in full;
// the warp's first lane counts the request in the launch's PC table (per instruction, for the
// per-source-line view). Nothing grows with the number of accesses. Blocks outside --blocks return at
// once. What moves no global bytes is not an access: a cp.async whose source size is 0 (zero fill: the API passes a
// null source) and a prefetch.
#include <sanitizer_patching.h>

#include "tools/vtrace/access/access_records.hpp"
#include "tools/vtrace/injection/warp_range_merge.cuh"

namespace raw = vtools::vtrace::raw;
namespace warp = vtools::vtrace::warp;

namespace {

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__device__ __forceinline__ std::uint64_t linear_block() {
  return blockIdx.x + static_cast<std::uint64_t>(blockIdx.y) * gridDim.x +
         static_cast<std::uint64_t>(blockIdx.z) * gridDim.x * gridDim.y;
}

__device__ __forceinline__ unsigned linear_thread() {
  return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}

/// --blocks on the device; device_block_filter.hpp's device_filter_keeps is the host mirror (keep them equal).
__device__ __forceinline__ bool block_kept(const raw::DeviceLaunchHeader* h, std::uint64_t block) {
  const raw::DeviceBlockFilter& f = h->blocks;
  if (!f.every && !f.range_count) return true;
  if (f.every) return block % f.every == 0;
  for (std::uint64_t i = 0; i < f.range_count && i < raw::kMaxDeviceBlockRanges; ++i)
    if (block >= f.ranges[i][0] && block <= f.ranges[i][1]) return true;
  return false;
}

/// The site of `key`, created on first use; nullptr (and the request counted as dropped) when the table is full.
__device__ raw::AccessSite* find_site(raw::DeviceLaunchHeader* h, std::uint64_t key, std::uint64_t block,
                                      std::uint32_t allocation, std::uint32_t argument) {
  const std::uint64_t mask = h->slot_count - 1;
  std::uint64_t at = raw::hash_key(key) & mask;
  for (std::uint64_t probe = 0; probe < h->slot_count; ++probe, at = (at + 1) & mask) {
    raw::HashSlot* slot = &h->slots[at];
    // Most requests find their site already made: a plain read spares them the atomic.
    unsigned long long seen = *static_cast<volatile unsigned long long*>(&slot->key);
    if (seen == 0) seen = atomicCAS(&slot->key, 0ull, static_cast<unsigned long long>(key));
    if (seen == 0) {  // ours to create
      unsigned long long index = atomicAdd(&h->sites_used, 1ull);
      if (index >= h->site_capacity) {
        atomicExch(&slot->site, raw::kSiteFull);
        break;
      }
      raw::AccessSite* s = &h->sites[index];
      memset(s, 0, sizeof(raw::AccessSite));
      s->key = key;
      s->block[0] = blockIdx.x;
      s->block[1] = blockIdx.y;
      s->block[2] = blockIdx.z;
      s->argument = argument;
      s->allocation = allocation;
      __threadfence();
      atomicExch(&slot->site, static_cast<unsigned>(index + 1));
      return s;
    }
    if (seen != key) continue;
    unsigned site;
    while ((site = *static_cast<volatile unsigned*>(&slot->site)) == 0) {
    }
    if (site == raw::kSiteFull) break;
    return &h->sites[site - 1];
  }
  atomicAdd(&h->requests_dropped, 1ull);
  return nullptr;
}

// A site belongs to one block, so only that block's warps (one SM) touch it: block-scope atomics, fences and loads
// order them, far cheaper than device-scope ones (and the loads are served by the SM's L1).
__device__ __forceinline__ std::uint64_t load_block(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.relaxed.cta.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ std::uint32_t load_block(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.relaxed.cta.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// The site's lock word is also a version (a seqlock): odd while a writer holds it, two more after each hold, so a
// reader that sees the same even value before and after reading the ranges read a consistent set.
/// Returns the failed attempts (VTRACE_ACCESS_COUNTS).
__device__ __forceinline__ unsigned lock(raw::AccessSite* s, bool backoff) {
  unsigned spins = 0, pause = backoff ? 16 : 20;
  for (;;) {
    const std::uint32_t v = load_block(&s->lock);
    if (!(v & 1u) && atomicCAS_block(&s->lock, v, v + 1u) == v) break;
    ++spins;
    __nanosleep(pause);
    if (backoff && pause < 256) pause <<= 1;  // fewer attempts on the line the holder is writing
  }
  __threadfence_block();
  return spins;
}

/// One attempt at the site's lock; true when taken.
__device__ __forceinline__ bool try_lock(raw::AccessSite* s) {
  const std::uint32_t v = load_block(&s->lock);
  if ((v & 1u) || atomicCAS_block(&s->lock, v, v + 1u) != v) return false;
  __threadfence_block();
  return true;
}

__device__ __forceinline__ void unlock(raw::AccessSite* s) {
  __threadfence_block();
  atomicAdd_block(&s->lock, 1u);
}

/// Whether the site's ranges already cover [lo, hi), read without the lock; false when a writer got in the way.
/// Ranges only ever grow, so a covered range stays covered and the request needs no lock.
__device__ bool covered(const raw::AccessSite* s, std::uint64_t lo, std::uint64_t hi) {
  // The hull only grows too: a run inside the hull read now is inside the final one. {~lo, hi} are two atomics; a
  // half-written hull reads as empty on one side.
  const std::uint64_t hull_hi = load_block(&s->hull[1]);
  if (hull_hi >= hi && ~load_block(&s->hull[0]) <= lo) return true;
  const std::uint32_t version = load_block(&s->lock);
  if (version & 1u) return false;
  __threadfence_block();
  std::uint32_t count = load_block(&s->range_count);
  if (count > raw::kRangesPerSite) count = raw::kRangesPerSite;
  bool inside = false;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t r_lo = load_block(&s->ranges[i][0]);
    if (r_lo > lo) break;  // sorted: no later range starts at or before lo
    if (hi <= load_block(&s->ranges[i][1])) {
      inside = true;
      break;
    }
  }
  __threadfence_block();
  return inside && load_block(&s->lock) == version;
}

__device__ __forceinline__ void add_block(std::uint64_t* counter, std::uint64_t value) {
  atomicAdd_block(reinterpret_cast<unsigned long long*>(counter), static_cast<unsigned long long>(value));
}

/// The finding site of `pc` in this launch, nullptr when all kFindingSitesPerLaunch are taken by other PCs.
__device__ raw::FindingSite* finding_site(raw::DeviceLaunchHeader* h, std::uint64_t pc, std::uint32_t operation) {
  const unsigned long long key = pc + 1;
  std::uint32_t at = static_cast<std::uint32_t>(raw::hash_key(key) % raw::kFindingSitesPerLaunch);
  for (std::uint32_t probe = 0; probe < raw::kFindingSitesPerLaunch; ++probe) {
    raw::FindingSite* f = &h->finding_sites[at];
    unsigned long long seen = atomicCAS(&f->pc, 0ull, key);
    if (seen == 0) f->operation = operation;
    if (seen == 0 || seen == key) return f;
    at = (at + 1) % raw::kFindingSitesPerLaunch;
  }
  return nullptr;
}

/// Counts the `count` out-of-bounds accesses of a request at `pc`; returns the rank of the first of them at this PC
/// in `rank` and its site (nullptr: counted as unsited).
__device__ raw::FindingSite* count_findings(raw::DeviceLaunchHeader* h, std::uint64_t pc, std::uint32_t operation,
                                            unsigned count, unsigned long long& rank) {
  atomicAdd(&h->findings, static_cast<unsigned long long>(count));
  raw::FindingSite* f = finding_site(h, pc, operation);
  if (!f) {
    atomicAdd(&h->findings_unsited, static_cast<unsigned long long>(count));
    return nullptr;
  }
  rank = atomicAdd(&f->count, static_cast<unsigned long long>(count));
  return f;
}

__device__ void keep_finding(raw::FindingSite* f, unsigned long long rank, std::uint64_t address, std::uint32_t size) {
  if (!f || rank >= raw::kFirstFindingsPerSite) return;
  raw::FirstFinding& r = f->first[rank];
  r.block[0] = blockIdx.x;
  r.block[1] = blockIdx.y;
  r.block[2] = blockIdx.z;
  r.thread = linear_thread();
  r.address = address;
  r.size = size;
}

/// The counters take atomics (no lock): most requests then need none.
__device__ __forceinline__ void add_counts(raw::AccessSite* s, std::uint32_t operation, std::uint64_t lanes,
                                           std::uint64_t bytes) {
  switch (operation) {
    case 0:
    case 3:
      add_block(&s->loads, lanes);
      add_block(&s->bytes_loaded, bytes);
      break;
    case 1:
    case 4:
      add_block(&s->stores, lanes);
      add_block(&s->bytes_stored, bytes);
      break;
    default:  // atomic: reads and writes its bytes
      add_block(&s->atomics, lanes);
      add_block(&s->bytes_loaded, bytes);
      add_block(&s->bytes_stored, bytes);
      break;
  }
}

/// One warp request: every calling lane accesses [address, address + size). Must be called by the lanes of
/// __activemask() together (the shuffles and matches below span them).
__device__ void record(void* userdata, std::uint64_t pc, std::uint64_t address, std::uint32_t size,
                       std::uint32_t operation) {
  auto* h = static_cast<raw::DeviceLaunchHeader*>(userdata);
  if (h->stage == raw::kStageCall) return;
  const unsigned mask = __activemask();
  const unsigned lane = lane_id();
  const unsigned below = (1u << lane) - 1u;
  const std::uint64_t block = linear_block();
  const std::uint32_t allocation = raw::find_allocation(h->allocations, h->allocation_count, address, size);
  const bool inside = allocation != raw::kNoAllocation;
  const std::uint32_t argument =
      inside ? raw::find_argument(h->arguments, h->argument_count, allocation, address) : raw::kNoArgument;
  const std::uint64_t base = inside ? h->allocations[allocation].start : 0;
  const std::uint64_t lo = address - base, hi = lo + size;

  // Lanes outside every allocation: one finding each, counted per PC; the first lane counts for the warp.
  const unsigned outside = __ballot_sync(mask, !inside);
  if (outside) {
    const int first_out = __ffs(outside) - 1;
    unsigned long long rank = 0, site = 0;
    if (static_cast<int>(lane) == first_out)
      site = reinterpret_cast<unsigned long long>(count_findings(h, pc, operation, __popc(outside), rank));
    rank = __shfl_sync(mask, rank, first_out);
    site = __shfl_sync(mask, site, first_out);
    if (!inside)
      keep_finding(reinterpret_cast<raw::FindingSite*>(site), rank + __popc(outside & below), address, size);
  }

  // Group the lanes by (allocation, argument); per group: lanes and distinct 32-byte sectors. In lane order, a lane
  // continues the run of the group lane before it when it starts where that one ends (or repeats its range); each
  // run adds one range [first lo, last hi), so a coalesced request adds one range, not 32.
  const unsigned group = __match_any_sync(mask, (allocation << 8) | argument);
  const unsigned same_sector = __match_any_sync(mask, static_cast<unsigned long long>(address >> 5));
  const bool first_of_sector = ((same_sector & group) & below) == 0;
  const unsigned sector_leaders = __ballot_sync(mask, first_of_sector) & group;
  const unsigned before = group & below;
  const int previous = before ? 31 - __clz(before) : static_cast<int>(lane);
  const std::uint64_t previous_lo = __shfl_sync(mask, lo, previous), previous_hi = __shfl_sync(mask, hi, previous);
  const bool continues = before && (lo == previous_hi || (lo == previous_lo && hi == previous_hi));
  const unsigned run_starts = __ballot_sync(mask, !continues) & group;
  // The last lane of this lane's run: the highest group lane before the next run start.
  const unsigned after = group & ~(below | (1u << lane));
  const unsigned next_starts = run_starts & after;
  const unsigned until = next_starts ? (1u << (__ffs(next_starts) - 1)) - 1u : 0xffffffffu;
  const unsigned members = (after & until) | (1u << lane);
  const std::uint64_t run_hi = __shfl_sync(mask, hi, 31 - __clz(members));
  const bool leader = before == 0;
  const bool starts_run = (run_starts >> lane) & 1u;
  if (h->stage == raw::kStageBounds) return;

  // The PC table (per launch, for the per-line view): the warp's first lane counts the request once, with the
  // distinct sectors of all its lanes.
  if (h->pc_slot_count) {
    const unsigned warp_sectors = __popc(__ballot_sync(mask, (same_sector & below) == 0));
    if (lane == static_cast<unsigned>(__ffs(mask) - 1))
      raw::count_pc_request(h, pc, operation, size, __popc(mask), warp_sectors, 0);
  }

  // The group's leader finds the site and counts the request (atomics); its lanes get the site by shuffle.
  raw::AccessSite* own = nullptr;
  if (leader) {
    own = find_site(h, raw::site_key(block, allocation, argument), block, allocation, argument);
    if (own) {
      const std::uint64_t lanes = __popc(group);
      add_counts(own, operation, lanes, lanes * size);
      add_block(&own->requests, 1);
      add_block(&own->sectors, __popc(sector_leaders));
      add_block(&own->lanes, lanes);
    }
  }
  auto* s = reinterpret_cast<raw::AccessSite*>(
      __shfl_sync(mask, reinterpret_cast<unsigned long long>(own), __ffs(group) - 1));
  if (h->stage == raw::kStageCounts) return;

  // Once a site is coarsened (inexact anyway), its runs may be widened to whole grains within the allocation, so
  // that later runs fall inside and need no lock (VTRACE_ACCESS_GRAIN).
  std::uint64_t add_lo = lo, add_hi = run_hi;
  if (h->coarse_grain && s && inside && load_block(&s->ranges_merged) != 0) {
    const std::uint64_t grain = h->coarse_grain, size_of = h->allocations[allocation].end - base;
    add_lo -= add_lo % grain;
    add_hi = add_hi + (grain - add_hi % grain) % grain;
    if (add_hi > size_of) add_hi = size_of;
  }
  // Runs the site's ranges already cover need no lock: once a block has touched its tiles, most requests.
  const unsigned adding = __ballot_sync(mask, s && starts_run && !covered(s, add_lo, add_hi));
  if (h->count_work) {  // warp-uniform
    const unsigned runs = __ballot_sync(mask, s && starts_run);
    if (lane == static_cast<unsigned>(__ffs(mask) - 1)) {
      atomicAdd(&h->runs, static_cast<unsigned long long>(__popc(runs)));
      atomicAdd(&h->runs_covered, static_cast<unsigned long long>(__popc(runs & ~adding)));
    }
  }
  // The rest, one group at a time: its leader holds the site's lock and adds the group's runs in lane order. So no
  // lane spins on a lock a lane of its own warp holds (under independent thread scheduling that crawls), and a warp
  // holds at most one lock and waits for none while holding it (no deadlock).
  // With the whole warp here and enough runs (warp_merge_min), the warp merges all of a group's runs in one pass
  // while its leader holds the lock; otherwise (a partial warp cannot shuffle across its missing lanes; a run or
  // two cost less one by one) the leader adds them in order.
  for (unsigned pending = adding; pending;) {
    const unsigned members = adding & __shfl_sync(mask, group, __ffs(pending) - 1);
    pending &= ~members;
    const unsigned holder = static_cast<unsigned>(__ffs(members) - 1);
    auto* site = reinterpret_cast<raw::AccessSite*>(
        __shfl_sync(mask, reinterpret_cast<unsigned long long>(s), static_cast<int>(holder)));
    // A coarsened site is inexact already: when its lock is taken, the group's runs join its hull (lock-free)
    // instead of waiting. In GEMMs a block's warps add the rows of one tile at once, and waiting was the cost.
    int held = 1;
    if (lane == holder) {
      if (h->hull_fallback && load_block(&site->ranges_merged) != 0) {
        held = try_lock(site);
      } else {
        const unsigned spins = lock(site, h->lock_backoff);
        if (h->count_work) atomicAdd(&h->lock_spins, static_cast<unsigned long long>(spins));
      }
      if (h->count_work && held) atomicAdd(&h->lock_holds, 1ull);
    }
    if (!__shfl_sync(mask, held, static_cast<int>(holder))) {
      std::uint64_t hull_lo = ~0ull, hull_hi = 0;
      for (unsigned m = members; m; m &= m - 1) {
        const int from = __ffs(m) - 1;
        const std::uint64_t run_lo = __shfl_sync(mask, add_lo, from), run_end = __shfl_sync(mask, add_hi, from);
        hull_lo = run_lo < hull_lo ? run_lo : hull_lo;
        hull_hi = run_end > hull_hi ? run_end : hull_hi;
      }
      if (lane == holder) {
        atomicMax_block(reinterpret_cast<unsigned long long*>(&site->hull[0]), ~hull_lo);
        atomicMax_block(reinterpret_cast<unsigned long long*>(&site->hull[1]), hull_hi);
        add_block(&site->ranges_merged, __popc(members));
        if (h->count_work) atomicAdd(&h->hull_runs, static_cast<unsigned long long>(__popc(members)));
      }
      continue;
    }
    if (mask == warp::kFullWarp && h->warp_merge_min && __popc(members) >= h->warp_merge_min) {
      __syncwarp();  // the lock is held before any lane reads the ranges
      warp::add_runs(site->ranges, &site->range_count, &site->ranges_merged, (members >> lane) & 1u, add_lo,
                     add_hi);
      __threadfence_block();
      __syncwarp();  // every lane's stores come before the unlock
      if (lane == holder) unlock(site);
      continue;
    }
    for (unsigned m = members; m; m &= m - 1) {
      const int from = __ffs(m) - 1;
      const std::uint64_t run_lo = __shfl_sync(mask, add_lo, from), run_end = __shfl_sync(mask, add_hi, from);
      if (lane == holder) raw::add_range(site->ranges, site->range_count, site->ranges_merged, run_lo, run_end);
    }
    if (lane == holder) unlock(site);
  }
}

/// The part [address, address + bytes) of one cp.async.bulk copy inside allocation `allocation` (kNoAllocation:
/// outside every allocation, absolute addresses): one load or store of those bytes.
__device__ void add_bulk_piece(raw::DeviceLaunchHeader* h, std::uint64_t block, std::uint32_t allocation,
                               std::uint64_t address, std::uint64_t bytes, std::uint32_t operation) {
  const bool inside = allocation != raw::kNoAllocation;
  const std::uint32_t argument =
      inside ? raw::find_argument(h->arguments, h->argument_count, allocation, address) : raw::kNoArgument;
  const std::uint64_t base = inside ? h->allocations[allocation].start : 0;
  raw::AccessSite* s = find_site(h, raw::site_key(block, allocation, argument), block, allocation, argument);
  if (!s) return;
  add_counts(s, operation, 1, bytes);
  add_block(&s->bulk_copies, 1);
  if (covered(s, address - base, address - base + bytes)) return;
  lock(s, h->lock_backoff);
  raw::add_range(s->ranges, s->range_count, s->ranges_merged, address - base, address - base + bytes);
  unlock(s);
}

/// One cp.async.bulk copy of `bytes` at `address`: called with the same values in every active lane; the first lane
/// records it once. The part inside the allocation holding its first byte is one piece; the rest is another piece
/// and one finding at its first byte (a copy running 16 bytes past the end reports those 16 bytes).
__device__ void record_bulk(void* userdata, std::uint64_t pc, std::uint64_t address, std::uint32_t bytes,
                            std::uint32_t operation) {
  auto* h = static_cast<raw::DeviceLaunchHeader*>(userdata);
  if (h->stage == raw::kStageCall) return;
  if (lane_id() != static_cast<unsigned>(__ffs(__activemask()) - 1) || bytes == 0) return;
  raw::count_pc_request(h, pc, operation, 0, 1, 0, bytes);
  const std::uint64_t block = linear_block();
  const std::uint32_t allocation = raw::find_allocation(h->allocations, h->allocation_count, address, 1);
  std::uint64_t inside = 0;
  if (allocation != raw::kNoAllocation) {
    const std::uint64_t room = h->allocations[allocation].end - address;
    inside = room < bytes ? room : bytes;
    add_bulk_piece(h, block, allocation, address, inside, operation);
  }
  if (inside < bytes) {
    unsigned long long rank = 0;
    keep_finding(count_findings(h, pc, operation, 1, rank), rank, address + inside,
                 static_cast<std::uint32_t>(bytes - inside));
    add_bulk_piece(h, block, raw::kNoAllocation, address + inside, bytes - inside, operation);
  }
}

}  // namespace

extern "C" __device__ __noinline__ SanitizerPatchResult vtrace_global_access(void* userdata, uint64_t pc, void* ptr,
                                                                             uint32_t size, uint32_t flags,
                                                                             const void*) {
  if (!userdata || (flags & SANITIZER_MEMORY_DEVICE_FLAG_PREFETCH)) return SANITIZER_PATCH_SUCCESS;
  if (!block_kept(static_cast<raw::DeviceLaunchHeader*>(userdata), linear_block())) return SANITIZER_PATCH_SUCCESS;
  const bool reads = flags & SANITIZER_MEMORY_DEVICE_FLAG_READ, writes = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  record(userdata, pc, reinterpret_cast<uint64_t>(ptr), size, reads && writes ? 2u : writes ? 1u : 0u);
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async: a global load into shared memory. The source is null when src-size is 0 (a zero fill, as GEMMs do for
// the padding of edge tiles): no global byte moves, so it is no access (sanitizer_patching.h,
// SanitizerCallbackMemcpyAsync).
extern "C" __device__ __noinline__ SanitizerPatchResult vtrace_memcpy_async(void* userdata, uint64_t pc, void* src,
                                                                            uint32_t, uint32_t size) {
  if (!userdata || !src) return SANITIZER_PATCH_SUCCESS;
  if (!block_kept(static_cast<raw::DeviceLaunchHeader*>(userdata), linear_block())) return SANITIZER_PATCH_SUCCESS;
  record(userdata, pc, reinterpret_cast<uint64_t>(src), size, 0u);
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async.bulk.shared::cluster.global: `data` holds the number of 16-byte blocks in bits 0-15 (the multicast mask
// in bits 16-31; a multicast copy still reads its source once). SanitizerCallbackBulkCopyGlobalToShared.
extern "C" __device__ __noinline__ SanitizerPatchResult vtrace_bulk_global_to_shared(void* userdata, uint64_t pc,
                                                                                     uint64_t src, uint32_t, uint32_t,
                                                                                     uint32_t data, uint32_t) {
  if (!userdata) return SANITIZER_PATCH_SUCCESS;
  if (!block_kept(static_cast<raw::DeviceLaunchHeader*>(userdata), linear_block())) return SANITIZER_PATCH_SUCCESS;
  record_bulk(userdata, pc, src, (data & 0xffffu) * 16u, 3u);
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async.bulk.global.shared::cta: `blocks` 16-byte blocks stored at dst (SanitizerCallbackBulkCopySharedToGlobal).
extern "C" __device__ __noinline__ SanitizerPatchResult vtrace_bulk_shared_to_global(void* userdata, uint64_t pc,
                                                                                     uint64_t dst, uint32_t,
                                                                                     uint32_t blocks) {
  if (!userdata) return SANITIZER_PATCH_SUCCESS;
  if (!block_kept(static_cast<raw::DeviceLaunchHeader*>(userdata), linear_block())) return SANITIZER_PATCH_SUCCESS;
  record_bulk(userdata, pc, dst, blocks * 16u, 4u);
  return SANITIZER_PATCH_SUCCESS;
}
