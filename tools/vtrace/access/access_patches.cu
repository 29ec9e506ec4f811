// Device patches of access mode, compiled with `nvcc --fatbin --compile-as-tools-patch` and loaded by the preload
// library with sanitizerAddPatchesFromFile. Each patched global access, cp.async (MEMCPY_ASYNC) included, claims one
// record per warp (the leader lane does the atomic, ~4x cheaper than one per thread) and every active lane writes its
// own address into it. A cp.async.bulk copy (non-tensor, global <-> shared) is one record for the whole copy, written
// by the first active lane. Blocks outside --blocks (the buffer header's DeviceBlockFilter) return at once, so a
// sampled run skips their atomics and record writes. TMA tensor copies have no instruction id in the Sanitizer API
// and are not seen here.
#include <sanitizer_patching.h>

#include "tools/vtrace/access/access_records.hpp"

using vtools::vtrace::raw::DeviceAccessBuffer;
using vtools::vtrace::raw::WarpAccessRecord;

static __device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

/// --blocks on the device; device_block_filter.hpp's device_filter_keeps is the host mirror (keep them equal).
static __device__ __forceinline__ bool block_kept(const DeviceAccessBuffer* buf) {
  const vtools::vtrace::raw::DeviceBlockFilter& f = buf->blocks;
  if (!f.every && !f.range_count) return true;
  const uint64_t block = blockIdx.x + static_cast<uint64_t>(blockIdx.y) * gridDim.x +
                         static_cast<uint64_t>(blockIdx.z) * gridDim.x * gridDim.y;
  if (f.every) return block % f.every == 0;
  for (uint64_t i = 0; i < f.range_count && i < vtools::vtrace::raw::kMaxDeviceBlockRanges; ++i)
    if (block >= f.ranges[i][0] && block <= f.ranges[i][1]) return true;
  return false;
}

static __device__ __forceinline__ void record(void* userdata, uint64_t pc, uint64_t address, uint32_t size,
                                              uint32_t operation) {
  auto* buf = static_cast<DeviceAccessBuffer*>(userdata);
  if (!buf) return;  // launch left out by --kernel/--launch
  if (!block_kept(buf)) return;  // uniform per block: every lane of the warp returns here
  const unsigned mask = __activemask();
  const unsigned lane = lane_id();
  const unsigned leader = __ffs(mask) - 1;
  unsigned long long slot = 0;
  if (lane == leader) slot = atomicAdd(&buf->count, 1ull);
  slot = __shfl_sync(mask, slot, leader);
  if (slot >= buf->capacity) {
    if (lane == leader) atomicAdd(&buf->dropped, 1ull);
    return;
  }
  WarpAccessRecord& r = buf->records[slot];
  r.address[lane] = address;
  if (lane == leader) {
    r.block[0] = blockIdx.x;
    r.block[1] = blockIdx.y;
    r.block[2] = blockIdx.z;
    unsigned tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    r.warp = tid / 32;
    r.active_mask = mask;
    r.bytes_per_lane = size;
    r.operation = operation;
    r.pc = pc;
  }
}

extern "C" __device__ __noinline__ SanitizerPatchResult vtrace_global_access(void* userdata, uint64_t pc, void* ptr,
                                                                             uint32_t size, uint32_t flags,
                                                                             const void*) {
  const bool reads = flags & SANITIZER_MEMORY_DEVICE_FLAG_READ, writes = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  record(userdata, pc, reinterpret_cast<uint64_t>(ptr), size, reads && writes ? 2u : writes ? 1u : 0u);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult vtrace_memcpy_async(void* userdata, uint64_t pc, void* src,
                                                                            uint32_t, uint32_t size, uint32_t) {
  record(userdata, pc, reinterpret_cast<uint64_t>(src), size, 0u);  // cp.async: a global load into shared memory
  return SANITIZER_PATCH_SUCCESS;
}

/// One cp.async.bulk copy of `bytes` bytes at global `address`. The API calls the patch with the same values in every
/// active lane (the copy is one warp-uniform instruction that moves the bytes once), so only the first lane records.
static __device__ __forceinline__ void record_bulk(void* userdata, uint64_t pc, uint64_t address, uint32_t bytes,
                                                   uint32_t operation) {
  auto* buf = static_cast<DeviceAccessBuffer*>(userdata);
  if (!buf || !block_kept(buf)) return;
  const unsigned mask = __activemask();
  const unsigned lane = lane_id();
  if (lane != __ffs(mask) - 1) return;
  unsigned long long slot = atomicAdd(&buf->count, 1ull);
  if (slot >= buf->capacity) {
    atomicAdd(&buf->dropped, 1ull);
    return;
  }
  WarpAccessRecord& r = buf->records[slot];
  r.address[lane] = address;
  r.block[0] = blockIdx.x;
  r.block[1] = blockIdx.y;
  r.block[2] = blockIdx.z;
  unsigned tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  r.warp = tid / 32;
  r.active_mask = 1u << lane;
  r.bytes_per_lane = bytes;
  r.operation = operation;
  r.pc = pc;
}

// cp.async.bulk.shared::cluster.global: `data` holds the number of 16-byte blocks in bits 0-15 (the multicast mask
// in bits 16-31; a multicast copy still reads its source once). sanitizer_patching.h,
// SanitizerCallbackBulkCopyGlobalToShared.
extern "C" __device__ __noinline__ SanitizerPatchResult vtrace_bulk_global_to_shared(void* userdata, uint64_t pc,
                                                                                     uint64_t src, uint32_t, uint32_t,
                                                                                     uint32_t data, uint32_t) {
  record_bulk(userdata, pc, src, (data & 0xffffu) * 16u, 3u);
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async.bulk.global.shared::cta: `blocks` 16-byte blocks stored at dst (SanitizerCallbackBulkCopySharedToGlobal).
extern "C" __device__ __noinline__ SanitizerPatchResult vtrace_bulk_shared_to_global(void* userdata, uint64_t pc,
                                                                                     uint64_t dst, uint32_t,
                                                                                     uint32_t blocks) {
  record_bulk(userdata, pc, dst, blocks * 16u, 4u);
  return SANITIZER_PATCH_SUCCESS;
}
