// Records of access mode shared by the device patches (access_patches.cu), the preload library
// (sanitizer_tool.cpp) and the host reader: plain structs, no Sanitizer API types. Framed in the raw record file
// like raw_records.hpp (tags kLaunch and kWarpAccess).
#pragma once

#include <cstdint>

namespace vtools::vtrace::raw {

/// One kernel launch seen by the preload library; followed in the file by its WarpAccessRecords.
struct LaunchRecord {
  std::uint64_t kernel_launch;  ///< 0-based launch index of this kernel name in the process
  std::int32_t grid[3], block[3];
  std::uint32_t recorded;       ///< 0: left out by --kernel/--launch (not patched data)
  std::uint32_t pad;
  std::uint64_t warps_recorded;
  std::uint64_t warps_dropped;  ///< warp requests over the per-launch buffer (--max-bytes)
};

/// One warp-level global memory instruction (per-warp aggregation on the device), or one cp.async.bulk copy: then
/// only the issuing lane is in `active_mask` and `bytes_per_lane` is the size of the whole copy.
struct WarpAccessRecord {
  std::int32_t block[3];
  std::uint32_t warp;
  std::uint32_t active_mask;
  std::uint32_t bytes_per_lane;
  std::uint32_t operation;  ///< 0 load, 1 store, 2 atomic, 3 bulk copy global->shared, 4 bulk copy shared->global
  std::uint32_t pad;
  std::uint64_t pc;         ///< as reported by the patch; the host turns it into an offset in the function
  std::uint64_t address[32];
};

/// The per-launch device buffer: header, then `capacity` records.
struct DeviceAccessBuffer {
  std::uint64_t capacity;
  unsigned long long count;    ///< warp requests claimed (may exceed capacity)
  unsigned long long dropped;  ///< claimed over capacity
  std::uint64_t pad;
  WarpAccessRecord records[1];
};

}  // namespace vtools::vtrace::raw
