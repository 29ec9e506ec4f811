// What the device patches of access mode report for one warp-level global memory instruction, after per-warp
// aggregation on the device: the active lanes, each lane's address, the access size and the operation.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "tools/vtrace/trace_model.hpp"

namespace vtools::vtrace::access {

enum class Operation : std::uint32_t { kLoad = 0, kStore = 1, kAtomic = 2 };

/// "load", "store", "atomic".
const char* operation_name(Operation op);

struct WarpAccess {
  Dim3 block{0, 0, 0};
  std::uint32_t warp = 0;         ///< warp index inside the block (threads 32*warp .. 32*warp+31 in linear order)
  std::uint32_t active_mask = 0;  ///< bit i set: lane i made the access
  std::uint32_t bytes_per_lane = 4;
  Operation operation = Operation::kLoad;
  std::uint64_t pc_offset = 0;    ///< of the instruction inside the function
  std::array<std::uint64_t, 32> address{};  ///< per lane; only active lanes are meaningful
};

/// The launch a batch of warp accesses belongs to.
struct LaunchInfo {
  std::string kernel;
  std::uint64_t launch = 0;  ///< 0-based launch index of this kernel name
  Dim3 grid{1, 1, 1}, block_dim{1, 1, 1};
};

/// Thread index (x, y, z) of lane `lane` of warp `warp` in a block of `block_dim` threads.
Dim3 thread_of_lane(std::uint32_t warp, std::uint32_t lane, const Dim3& block_dim);

/// Distinct 32-byte sectors the active lanes touch (an access crossing a sector boundary counts both).
std::uint32_t sectors_touched(const WarpAccess& w);

}  // namespace vtools::vtrace::access
