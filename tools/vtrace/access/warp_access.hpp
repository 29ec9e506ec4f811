// What the device patches of access mode report for one warp-level global memory instruction, after per-warp
// aggregation on the device: the active lanes, each lane's address, the access size and the operation. A bulk copy
// (cp.async.bulk, issued by one thread for many bytes) is one active lane whose `bytes_per_lane` is the copy's size.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "tools/vtrace/access/argument_mapping.hpp"
#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace::access {

/// The values are the raw codes the device patches write (access_records.hpp).
enum class Operation : std::uint32_t { kLoad = 0, kStore = 1, kAtomic = 2, kBulkLoad = 3, kBulkStore = 4 };

/// "load", "store", "atomic", "bulk_load" (cp.async.bulk global -> shared), "bulk_store" (shared -> global).
const char* operation_name(Operation op);

/// The operation of raw code `code`; unknown codes read as loads.
Operation operation_of_code(std::uint32_t code);

/// A cp.async.bulk copy: one thread moves `bytes_per_lane` bytes; it is not a warp request of 32 lanes.
inline bool is_bulk(Operation op) { return op == Operation::kBulkLoad || op == Operation::kBulkStore; }

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
  LaunchArguments arguments;  ///< its pointer arguments (none when the driver could not say)
};

/// Thread index (x, y, z) of lane `lane` of warp `warp` in a block of `block_dim` threads.
Dim3 thread_of_lane(std::uint32_t warp, std::uint32_t lane, const Dim3& block_dim);

/// Distinct 32-byte sectors the active lanes touch (an access crossing a sector boundary counts both).
std::uint32_t sectors_touched(const WarpAccess& w);

}  // namespace vtools::vtrace::access
