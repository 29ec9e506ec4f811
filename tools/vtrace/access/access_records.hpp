// Access mode's shared structs and the small pieces of logic the device patches (access_patches.cu), the preload
// library (sanitizer_tool.cpp) and the host all run: plain structs, no Sanitizer API types, and inline functions
// that compile for both sides, so the CPU unit tests exercise the very code the patches run.
//
// On the device, each recorded launch has one buffer: a header, a hash table of slots, the site table (one
// AccessSite per block x allocation x kernel argument) and the finding-site table (one FindingSite per PC that went
// out of bounds). Its size depends on the grid, never on the number of accesses. At launch end the preload library
// reads back the header, the used sites and the finding sites, and writes them to the raw file (tags kLaunch,
// kAccessSite, kFindingSite), with each site's allocation index turned into the allocation's start address.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#if defined(__CUDACC__)
#define VTRACE_HD __host__ __device__ __forceinline__
#else
#define VTRACE_HD inline
#endif

namespace vtools::vtrace::raw {

/// Merged byte ranges one site keeps exactly; past this, the closest two are joined (ranges_merged counts it).
constexpr std::uint32_t kRangesPerSite = 16;
/// Out-of-bounds accesses listed in full per PC and launch; all of them are counted.
constexpr std::uint32_t kFirstFindingsPerSite = 4;
/// PCs with out-of-bounds accesses per launch that get a FindingSite; accesses at further PCs are only counted.
constexpr std::uint32_t kFindingSitesPerLaunch = 256;
/// PCs per launch the PC table (PcSite, for the per-source-line "hot lines") holds by default; the warp requests at
/// further PCs are counted in pc_requests_dropped, never silently lost. VTRACE_ACCESS_PCS sets it (0: no table).
constexpr std::uint32_t kPcSitesPerLaunch = 1024;
/// Pointer arguments of a launch the device attributes accesses to (a launch with more keeps the first ones).
constexpr std::uint32_t kMaxDeviceArguments = 64;
constexpr std::uint32_t kNoAllocation = 0xfffffu;  ///< allocation index of an access outside every allocation
constexpr std::uint32_t kNoArgument = 0xffu;
constexpr std::uint32_t kSiteFull = 0xffffffffu;   ///< slot whose site found no room in the site table

/// One kernel launch seen by the preload library; followed in the file by its launch params, AccessSites and
/// FindingSites.
struct LaunchRecord {
  std::uint64_t kernel_launch;  ///< 0-based launch index of this kernel name in the process
  std::int32_t grid[3], block[3];
  std::uint32_t recorded;       ///< 0: left out by --kernel/--launch (not patched data)
  std::uint32_t device_id;      ///< the CUDA device ordinal (in this process) of the launch's context
  /// 1, 2, ... per process for a recorded launch: its LaunchResultRecord names it (its sites, findings and PC table
  /// are read back later, at the program's next synchronization). 0: its results follow it at once (old files).
  std::uint32_t serial;
  std::uint32_t pad;
  std::uint64_t sites;             ///< AccessSite records that follow
  std::uint64_t requests_dropped;  ///< warp requests (or bulk copies) that found no room in the site table
  std::uint64_t findings;          ///< out-of-bounds accesses (one per lane), exact
  std::uint64_t findings_unsited;  ///< of those, at PCs past kFindingSitesPerLaunch: counted, not listed
};

/// What a recorded launch found, written when its buffer is read back (raw::Tag::kLaunchResult): the launch record
/// with this serial gets these counts, and the site, finding, PC table and module records after this one.
struct LaunchResultRecord {
  std::uint64_t serial;
  std::uint64_t sites, requests_dropped, findings, findings_unsited;  ///< as in LaunchRecord
};

/// What one block did to one allocation through one kernel argument during one launch.
struct AccessSite {
  std::uint64_t key;  ///< device: the hash key; raw file: 0
  std::int32_t block[3];
  std::uint32_t argument;          ///< kernel parameter index, kNoArgument when none
  std::uint64_t allocation;        ///< device: index into the launch's allocation table; raw file: start address
                                   ///< (0: outside every allocation, ranges are then absolute addresses)
  std::uint64_t loads, stores, atomics, bytes_loaded, bytes_stored;
  std::uint64_t requests, sectors, lanes;  ///< warp requests and their 32-byte sectors and active lanes
  std::uint64_t bulk_copies;
  std::uint32_t lock;             ///< device only: odd while a writer holds the site, +2 per hold (a version)
  std::uint32_t range_count;
  std::uint64_t ranges_merged;    ///< times two ranges were joined because all kRangesPerSite were in use (and runs
                                  ///< that went to the hull)
  std::uint64_t ranges[kRangesPerSite][2];  ///< sorted, disjoint [lo, hi) offsets into the allocation
  /// Device only (not in the raw file): the hull of the runs a coarsened site took without its lock, as {~lo, hi}
  /// (both grow by atomicMax; hi == 0: empty). The preload folds it into the ranges at launch end (fold_hull).
  std::uint64_t hull[2];
};

/// Bytes of an AccessSite in the raw file: the fixed part and only the ranges in use (most sites hold one or two,
/// so a site takes ~150 bytes, not 376).
constexpr std::size_t kSiteFixedBytes = offsetof(AccessSite, ranges);
VTRACE_HD std::size_t site_record_bytes(std::uint32_t range_count) {
  return kSiteFixedBytes + range_count * sizeof(std::uint64_t[2]);
}

struct FirstFinding {
  std::int32_t block[3];
  std::uint32_t thread;  ///< linear thread index in the block
  std::uint64_t address;
  std::uint32_t size;
  std::uint32_t pad;
};

/// The out-of-bounds accesses of one PC in one launch: the exact count and the first few in full.
struct FindingSite {
  unsigned long long pc;     ///< device: pc + 1 (0 = free slot); raw file: offset in the function
  unsigned long long count;  ///< every out-of-bounds lane access at this PC
  std::uint32_t operation;   ///< 0 load, 1 store, 2 atomic, 3 bulk load, 4 bulk store
  std::uint32_t pad;
  FirstFinding first[kFirstFindingsPerSite];  ///< min(count, kFirstFindingsPerSite) of them
};

/// What one launch's warp requests did at one instruction (PC): counted once per warp request by its first active
/// lane (warp-aggregated, device-wide relaxed atomics), over all blocks. An instruction has one operation and one
/// access size, so a warp request's bytes are lanes x size; only bulk copies (whose sizes vary) count bytes.
struct PcSite {
  unsigned long long pc;        ///< device: pc + 1 (0 = not made yet); raw file: offset in the function
  unsigned long long requests;  ///< warp requests (bulk copies: copies)
  unsigned long long lanes;     ///< active lanes of those requests, one access each (bulk copies: 1 per copy)
  unsigned long long sectors;   ///< distinct 32-byte sectors of each request, summed (bulk copies: 0)
  unsigned long long bulk_bytes;  ///< bytes of the bulk copies (warp requests move lanes x size)
  std::uint32_t size;           ///< bytes per lane of a warp request (0 for bulk copies)
  std::uint32_t operation;      ///< 0 load, 1 store, 2 atomic, 3 bulk load, 4 bulk store
};

/// kPcSites payload: this header, then `pcs` PcSite records (only the used ones), after the launch they belong to.
struct PcTableRecord {
  std::uint64_t pcs;
  std::uint64_t requests_dropped;  ///< warp requests (and bulk copies) at PCs past the table's capacity
};

/// Bytes moved by the requests a PcSite counts.
VTRACE_HD std::uint64_t pc_site_bytes(const PcSite& s) { return s.lanes * s.size + s.bulk_bytes; }

/// One 8-byte word of a launch's parameters (kLaunchParams holds one per word): a parameter of 8 bytes is one word,
/// a larger one (cuBLAS passes its pointers inside one struct) one word per aligned 8 bytes.
struct ParamWord {
  std::uint64_t parameter;  ///< 0-based parameter index
  std::uint64_t value;
};

/// A live allocation as the device sees it: [start, end) with the requested size.
struct DeviceAllocation {
  std::uint64_t start, end;
};

/// A pointer argument of the launch inside allocation `allocation` (an index into the allocation table).
struct DeviceArgument {
  std::uint64_t pointer;
  std::uint32_t allocation;
  std::uint32_t index;  ///< kernel parameter index
};

/// Explicit block ranges the device filter holds; a --blocks list with more falls back to filtering on the host.
constexpr std::uint32_t kMaxDeviceBlockRanges = 16;

/// Which blocks the patches record (--blocks on the device, so sampled runs skip the work of the others), by linear
/// block index x + y * grid.x + z * grid.x * grid.y. All zero: every block.
struct DeviceBlockFilter {
  std::uint64_t every;        ///< > 0: blocks 0, every, 2 every, ...
  std::uint64_t range_count;  ///< > 0 (and every == 0): blocks inside ranges[0 .. range_count)
  std::uint64_t ranges[kMaxDeviceBlockRanges][2];  ///< inclusive [first, last]
};

/// How much of its work a patch does: all of it, or up to a point, so that the cost of each part can be measured on a
/// real program (VTRACE_ACCESS_STAGE; the trace of a stage other than kStageAll is incomplete by design).
enum Stage : std::uint32_t {
  kStageAll = 0,
  kStageCall = 1,      ///< return at once: the cost of the patched call itself
  kStageBounds = 2,    ///< bounds check, argument attribution and findings; no sites
  kStageCounts = 3,    ///< and the site's counters; no byte ranges
};

struct HashSlot {
  unsigned long long key;  ///< 0: free
  unsigned int site;       ///< index + 1 into the sites, 0 while being created, kSiteFull when out of room
  unsigned int pad;
};

/// The per-launch device buffer's header; the tables follow it in the same allocation.
struct DeviceLaunchHeader {
  std::uint64_t slot_count;     ///< a power of two
  std::uint64_t site_capacity;
  unsigned long long sites_used;        ///< may exceed site_capacity (the excess found no room)
  unsigned long long requests_dropped;
  unsigned long long findings;
  unsigned long long findings_unsited;
  HashSlot* slots;
  AccessSite* sites;
  FindingSite* finding_sites;           ///< kFindingSitesPerLaunch, hashed by pc
  const DeviceAllocation* allocations;  ///< sorted by start, disjoint
  std::uint64_t allocation_count;
  std::uint32_t argument_count;
  std::uint32_t stage;  ///< kStageAll, or where the patches stop (VTRACE_ACCESS_STAGE, for measuring their cost)
  DeviceArgument arguments[kMaxDeviceArguments];  ///< sorted by pointer
  DeviceBlockFilter blocks;
  /// VTRACE_ACCESS_COUNTS=1: the patches count their byte-range work below (device-wide atomics: slower, for
  /// finding where the waiting goes); 0: they do not.
  std::uint32_t count_work;
  /// How a site's ranges grow (tuning switches set from the environment, for measuring them; see sanitizer_tool.cpp):
  /// a whole warp merges a group's runs in one pass when it has at least warp_merge_min of them (0: never);
  /// lock_backoff 1: a waiter's pause doubles up to 256 ns (0: 20 ns each time); coarse_grain > 0: once a site has
  /// been coarsened, its new runs are widened to multiples of coarse_grain bytes (within the allocation).
  std::uint32_t warp_merge_min;
  std::uint32_t lock_backoff;
  /// 1: when a coarsened site's lock is taken, a group's runs join the site's hull instead of waiting (lock-free;
  /// the site is inexact already). 0: they wait for the lock (VTRACE_ACCESS_HULL).
  std::uint32_t hull_fallback;
  std::uint64_t coarse_grain;
  unsigned long long runs;          ///< byte runs of warp requests that reached a site
  unsigned long long runs_covered;  ///< of those, already covered by the site's ranges (no lock)
  unsigned long long lock_holds;    ///< lock holds (one per group with runs to add)
  unsigned long long lock_spins;    ///< failed attempts to take a site's lock
  unsigned long long hull_runs;     ///< runs that went to a site's hull (its lock was taken)
  /// The PC table: pc_slot_count (2 x pc_capacity, a power of two; 0: no table) hash slots naming entries of pc_sites
  /// in order of first use; pcs_used may exceed pc_capacity (the excess found no room).
  HashSlot* pc_slots;
  PcSite* pc_sites;
  std::uint32_t pc_capacity;
  std::uint32_t pc_slot_count;
  unsigned long long pcs_used;
  unsigned long long pc_requests_dropped;
  /// 0 until a memset the tool queues on the launch's stream right after the kernel sets it to 1: a read-back that
  /// sees 1 reads a finished launch (a copy from the device does not wait for the kernel).
  std::uint32_t finished;
  std::uint32_t pad_finished;
};

/// Index of the allocation holding all of [address, address + size), else kNoAllocation (an access that starts in
/// one and runs past its end is outside).
VTRACE_HD std::uint32_t find_allocation(const DeviceAllocation* table, std::uint64_t count, std::uint64_t address,
                                        std::uint32_t size) {
  std::uint64_t lo = 0, hi = count;  // first entry with start > address
  while (lo < hi) {
    std::uint64_t mid = (lo + hi) / 2;
    if (table[mid].start <= address)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return kNoAllocation;
  const DeviceAllocation& a = table[lo - 1];
  return address + size <= a.end && address + size >= address ? static_cast<std::uint32_t>(lo - 1) : kNoAllocation;
}

/// The argument an access at `address` in allocation `allocation` went through: among the arguments into that
/// allocation, the one with the largest pointer <= address, else the lowest one; kNoArgument when none points there.
/// Mirrors access::LaunchArguments::argument_for.
VTRACE_HD std::uint32_t find_argument(const DeviceArgument* arguments, std::uint32_t count, std::uint32_t allocation,
                                      std::uint64_t address) {
  std::uint32_t below = kNoArgument, lowest = kNoArgument;
  std::uint64_t below_pointer = 0;
  for (std::uint32_t i = 0; i < count; ++i) {  // sorted by pointer, then parameter index
    if (arguments[i].allocation != allocation) continue;
    if (lowest == kNoArgument) lowest = arguments[i].index;
    if (arguments[i].pointer <= address && (below == kNoArgument || arguments[i].pointer > below_pointer)) {
      below = arguments[i].index;  // of equal pointers, the first parameter
      below_pointer = arguments[i].pointer;
    }
  }
  return below != kNoArgument ? below : lowest;
}

/// Adds [lo, hi) to a site's sorted, disjoint, non-touching ranges. When all kRangesPerSite are in use and the new
/// range touches none, the closest pair (the new range included) is joined over its gap: the ranges still cover
/// every byte touched, and `merged` says they also cover some that were not.
VTRACE_HD void add_range(std::uint64_t (*r)[2], std::uint32_t& count, std::uint64_t& merged, std::uint64_t lo,
                         std::uint64_t hi) {
  if (hi <= lo) return;
  std::uint32_t i = 0;  // first range ending at or after lo
  while (i < count && r[i][1] < lo) ++i;
  if (i < count && r[i][0] <= hi) {  // overlaps or touches r[i]: widen it and absorb the ranges it now reaches
    if (lo < r[i][0]) r[i][0] = lo;
    if (hi > r[i][1]) r[i][1] = hi;
    std::uint32_t j = i + 1;
    while (j < count && r[j][0] <= r[i][1]) {
      if (r[j][1] > r[i][1]) r[i][1] = r[j][1];
      ++j;
    }
    const std::uint32_t gone = j - (i + 1);
    for (std::uint32_t k = i + 1; k + gone < count; ++k) {
      r[k][0] = r[k + gone][0];
      r[k][1] = r[k + gone][1];
    }
    count -= gone;
    return;
  }
  if (count == kRangesPerSite) {
    ++merged;
    const std::uint64_t none = ~0ull;
    std::uint64_t left = i > 0 ? lo - r[i - 1][1] : none, right = i < count ? r[i][0] - hi : none;
    std::uint64_t pair_gap = none;
    std::uint32_t pair = 0;
    for (std::uint32_t k = 0; k + 1 < count; ++k)
      if (k + 1 != i && r[k + 1][0] - r[k][1] < pair_gap) {
        pair_gap = r[k + 1][0] - r[k][1];
        pair = k;
      }
    if (left <= right && left <= pair_gap) {
      r[i - 1][1] = hi;
      return;
    }
    if (right <= pair_gap) {
      r[i][0] = lo;
      return;
    }
    r[pair][1] = r[pair + 1][1];  // join the closest existing pair, then insert into the freed slot
    for (std::uint32_t k = pair + 1; k + 1 < count; ++k) {
      r[k][0] = r[k + 1][0];
      r[k][1] = r[k + 1][1];
    }
    --count;
    if (i > pair) --i;
  }
  for (std::uint32_t k = count; k > i; --k) {
    r[k][0] = r[k - 1][0];
    r[k][1] = r[k - 1][1];
  }
  r[i][0] = lo;
  r[i][1] = hi;
  ++count;
}

/// Joins a site's hull (the runs added without its lock) to its ranges, as one more range: the site's ranges then
/// cover every byte touched, as before, and `ranges_merged` already counts the runs that went to the hull.
VTRACE_HD void fold_hull(AccessSite& s) {
  if (s.hull[1] == 0) return;
  add_range(s.ranges, s.range_count, s.ranges_merged, ~s.hull[0], s.hull[1]);
  s.hull[0] = s.hull[1] = 0;
}

/// Adds a batch of ranges at once, as the device's warp merge (warp_range_merge.cuh) does: the union of the site's
/// ranges and the batch, touching ranges joined; when more than kRangesPerSite remain, the smallest gaps between them
/// are filled (of equal gaps, the lower first) and `merged` grows by how many. Host only: the yardstick of the device
/// merge and the device model of the tests.
inline void add_range_batch(std::uint64_t (*r)[2], std::uint32_t& count, std::uint64_t& merged,
                            const std::uint64_t (*batch)[2], std::uint32_t batch_count) {
  std::uint64_t all[kRangesPerSite + 64][2];
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < count && i < kRangesPerSite; ++i, ++n) {
    all[n][0] = r[i][0];
    all[n][1] = r[i][1];
  }
  for (std::uint32_t i = 0; i < batch_count && i < 64; ++i)
    if (batch[i][1] > batch[i][0]) {
      all[n][0] = batch[i][0];
      all[n][1] = batch[i][1];
      ++n;
    }
  for (std::uint32_t i = 1; i < n; ++i)  // insertion sort by (lo, hi): at most 80 elements
    for (std::uint32_t j = i; j > 0 && (all[j][0] < all[j - 1][0] ||
                                        (all[j][0] == all[j - 1][0] && all[j][1] < all[j - 1][1])); --j) {
      std::swap(all[j][0], all[j - 1][0]);
      std::swap(all[j][1], all[j - 1][1]);
    }
  std::uint32_t m = 0;  // the union, in place
  for (std::uint32_t i = 0; i < n; ++i) {
    if (m > 0 && all[i][0] <= all[m - 1][1]) {
      if (all[i][1] > all[m - 1][1]) all[m - 1][1] = all[i][1];
      continue;
    }
    all[m][0] = all[i][0];
    all[m][1] = all[i][1];
    ++m;
  }
  bool fill[kRangesPerSite + 64] = {};  // fill[i]: the gap before range i is filled
  const std::uint32_t excess = m > kRangesPerSite ? m - kRangesPerSite : 0;
  for (std::uint32_t i = 1; i < m; ++i) {
    std::uint32_t rank = 0;
    const std::uint64_t gap = all[i][0] - all[i - 1][1];
    for (std::uint32_t j = 1; j < m; ++j) {
      const std::uint64_t other = all[j][0] - all[j - 1][1];
      rank += other < gap || (other == gap && j < i);
    }
    fill[i] = rank < excess;
  }
  merged += excess;
  count = 0;
  for (std::uint32_t i = 0; i < m; ++i) {
    if (i > 0 && fill[i]) {
      r[count - 1][1] = all[i][1];
      continue;
    }
    r[count][0] = all[i][0];
    r[count][1] = all[i][1];
    ++count;
  }
}

/// The hash key of a site: linear block (36 bits), allocation index (20 bits), argument (8 bits); never 0.
VTRACE_HD std::uint64_t site_key(std::uint64_t linear_block, std::uint32_t allocation, std::uint32_t argument) {
  if (linear_block > 0xffffffffeull) linear_block = 0xffffffffeull;
  return ((linear_block + 1) << 28) | (static_cast<std::uint64_t>(allocation & 0xfffffu) << 8) | (argument & 0xffu);
}

VTRACE_HD std::uint64_t hash_key(std::uint64_t key) {  // splitmix64's finaliser
  key ^= key >> 30;
  key *= 0xbf58476d1ce4e5b9ull;
  key ^= key >> 27;
  key *= 0x94d049bb133111ebull;
  return key ^ (key >> 31);
}

// The PC table's code, the same on both sides: device atomics on the device; the GCC builtins on the host, where the
// CPU tests run it (on several threads) as the patches do.
VTRACE_HD unsigned long long atomic_cas_u64(unsigned long long* p, unsigned long long expected,
                                            unsigned long long desired) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(p, expected, desired);
#else
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}

VTRACE_HD unsigned long long atomic_add_u64(unsigned long long* p, unsigned long long value) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, value);
#else
  return __atomic_fetch_add(p, value, __ATOMIC_RELAXED);
#endif
}

/// The counters need no result: on the device they compile to fire-and-forget reductions (RED), relaxed.
VTRACE_HD void atomic_count_u64(unsigned long long* p, unsigned long long value) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, value);
#else
  __atomic_fetch_add(p, value, __ATOMIC_RELAXED);
#endif
}

VTRACE_HD unsigned atomic_load_u32(const unsigned* p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile unsigned*>(p);
#else
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

VTRACE_HD unsigned long long atomic_load_u64(const unsigned long long* p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile unsigned long long*>(p);
#else
  return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

VTRACE_HD void atomic_publish_u32(unsigned* p, unsigned value) {
#if defined(__CUDA_ARCH__)
  __threadfence();  // the entry's fields before its index
  atomicExch(p, value);
#else
  __atomic_store_n(p, value, __ATOMIC_RELEASE);
#endif
}

/// The PC table entry of `pc` (an absolute PC; the key is pc + 1), made on first use with its operation and size;
/// nullptr (and the request counted in pc_requests_dropped) when all pc_capacity entries are taken. Open addressing
/// over pc_slot_count slots: the first look at a PC's slot is a plain read, so a PC already made costs no atomic.
VTRACE_HD PcSite* find_pc_site(DeviceLaunchHeader* h, std::uint64_t pc, std::uint32_t operation, std::uint32_t size) {
  const unsigned long long key = pc + 1;
  const std::uint64_t mask = h->pc_slot_count - 1;
  std::uint64_t at = hash_key(key) & mask;
  for (std::uint32_t probe = 0; probe < h->pc_slot_count; ++probe, at = (at + 1) & mask) {
    HashSlot* slot = &h->pc_slots[at];
    unsigned long long seen = atomic_load_u64(&slot->key);
    if (seen == 0) seen = atomic_cas_u64(&slot->key, 0ull, key);
    if (seen == 0) {  // ours to make
      const unsigned long long index = atomic_add_u64(&h->pcs_used, 1ull);
      if (index >= h->pc_capacity) {
        atomic_publish_u32(&slot->site, kSiteFull);
        break;
      }
      PcSite* s = &h->pc_sites[index];
      s->pc = key;
      s->requests = s->lanes = s->sectors = s->bulk_bytes = 0;
      s->size = size;
      s->operation = operation;
      atomic_publish_u32(&slot->site, static_cast<unsigned>(index + 1));
      return s;
    }
    if (seen != key) continue;
    unsigned site;
    while ((site = atomic_load_u32(&slot->site)) == 0) {
    }
    if (site == kSiteFull) break;
    return &h->pc_sites[site - 1];
  }
  atomic_count_u64(&h->pc_requests_dropped, 1ull);
  return nullptr;
}

/// Counts one warp request of `lanes` active lanes touching `sectors` distinct 32-byte sectors at `pc` (`bulk_bytes`:
/// a bulk copy's bytes, 0 for a warp request). Called once per request, by one lane.
VTRACE_HD void count_pc_request(DeviceLaunchHeader* h, std::uint64_t pc, std::uint32_t operation, std::uint32_t size,
                                std::uint32_t lanes, std::uint32_t sectors, std::uint64_t bulk_bytes) {
  if (h->pc_slot_count == 0) return;
  PcSite* s = find_pc_site(h, pc, operation, size);
  if (!s) return;
  atomic_count_u64(&s->requests, 1ull);
  atomic_count_u64(&s->lanes, lanes);
  if (sectors) atomic_count_u64(&s->sectors, sectors);
  if (bulk_bytes) atomic_count_u64(&s->bulk_bytes, bulk_bytes);
}

}  // namespace vtools::vtrace::raw
