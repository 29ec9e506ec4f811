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

/// Explicit block ranges the device filter holds; a --blocks list with more falls back to filtering on the host.
constexpr std::uint32_t kMaxDeviceBlockRanges = 16;

/// Which blocks the patches record (--blocks on the device, so sampled runs skip the work of the others), by linear
/// block index x + y * grid.x + z * grid.x * grid.y. All zero: every block.
struct DeviceBlockFilter {
  std::uint64_t every;        ///< > 0: blocks 0, every, 2 every, ...
  std::uint64_t range_count;  ///< > 0 (and every == 0): blocks inside ranges[0 .. range_count)
  std::uint64_t ranges[kMaxDeviceBlockRanges][2];  ///< inclusive [first, last]
};

/// The per-launch device buffer: header (copied to the device before the launch), then `capacity` records.
struct DeviceAccessBuffer {
  std::uint64_t capacity;
  unsigned long long count;    ///< warp requests claimed (may exceed capacity)
  unsigned long long dropped;  ///< claimed over capacity
  std::uint64_t pad;
  DeviceBlockFilter blocks;
  WarpAccessRecord records[1];
};

}  // namespace vtools::vtrace::raw
