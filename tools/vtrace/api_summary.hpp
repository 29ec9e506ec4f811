// What the host waited for (vtrace run --api): per blocking CUDA function the calls and their host time, as nsys's
// cuda_api_sum; each kernel's queue delay (its start minus its launch call's start); and per device, how much of
// the time it sat idle between its first and last activity, and how much of that idle time some host thread of a
// process using it was blocked in one of those calls (the GPU waiting for the host vs the host waiting for the GPU
// are told apart).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/trace/time_intervals.hpp"
#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

/// One blocking function's calls; times in ns.
struct ApiFunction {
  std::string name;
  std::uint64_t calls = 0;
  std::uint64_t total_ns = 0;
  double share = 0;  ///< of all recorded calls' time, 0..1
  double mean_ns = 0, median_ns = 0, stddev_ns = 0;
  std::uint64_t min_ns = 0, max_ns = 0;
};

struct DeviceIdle {
  std::uint32_t device_id = 0;
  std::string name;
  std::uint64_t span_ns = 0;          ///< first activity's start to last activity's end
  std::uint64_t busy_ns = 0;          ///< kernels, copies and sets, overlaps counted once
  std::uint64_t idle_ns = 0;          ///< span - busy
  std::uint64_t idle_host_blocked_ns = 0;  ///< of idle_ns, while a thread of a process using the device was in a call
};

struct QueueDelay {
  std::uint64_t kernels = 0;  ///< kernels with a recorded launch call that started after it
  /// Kernels whose start precedes their launch call's (the host and GPU clocks disagree): their delay would be
  /// negative, so they are left out of the statistics and counted here.
  std::uint64_t started_before_launch = 0;
  double median_ns = 0, p90_ns = 0;
  std::uint64_t max_ns = 0;
};

struct ApiSummary {
  bool recorded = false;  ///< the trace was made with --api (else everything below is empty)
  std::uint64_t calls = 0, total_ns = 0;
  std::vector<ApiFunction> functions;  ///< by total time, largest first
  QueueDelay queue;
  std::vector<DeviceIdle> devices;     ///< by device id
};

ApiSummary summarize_api(const Trace& trace);

/// How much of the gaps between the `busy` intervals (inside their span) the `blocked` intervals cover.
std::uint64_t idle_covered(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& busy,
                           const std::vector<std::pair<std::uint64_t, std::uint64_t>>& blocked);

}  // namespace vtools::vtrace
