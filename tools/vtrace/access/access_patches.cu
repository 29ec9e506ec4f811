// Device patches of access mode, compiled with `nvcc --fatbin --compile-as-tools-patch` and loaded by the preload
// library with sanitizerAddPatchesFromFile. Each patched global access, cp.async (MEMCPY_ASYNC) included, claims one
// record per warp (the leader lane does the atomic, ~4x cheaper than one per thread) and every active lane writes its
// own address into it. TMA tensor copies have no instruction id in the Sanitizer API and are not seen here.
#include <sanitizer_patching.h>

#include "tools/vtrace/access/access_records.hpp"

using vtools::vtrace::raw::DeviceAccessBuffer;
using vtools::vtrace::raw::WarpAccessRecord;

static __device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

static __device__ __forceinline__ void record(void* userdata, uint64_t pc, uint64_t address, uint32_t size,
                                              uint32_t operation) {
  auto* buf = static_cast<DeviceAccessBuffer*>(userdata);
  if (!buf) return;  // launch left out by --kernel/--launch
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
