// `vtrace summary`: per-kernel timing aggregates, memcpy totals by direction and (access mode) per-kernel access
// totals, computed from the trace model. Writers are in summary_writer.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/vtrace/trace_model.hpp"

namespace vtools::vtrace {

struct KernelStats {
  std::string name;
  std::uint64_t calls = 0;
  double total_ns = 0, mean_ns = 0, min_ns = 0, max_ns = 0;
  double share = 0;          ///< total_ns / the summed time of all kernels, in [0, 1]
  Dim3 grid{0, 0, 0};        ///< grid of the first launch
  bool grid_varies = false;  ///< launches used more than one grid
  Dim3 block{0, 0, 0};
  std::uint32_t registers_per_thread = 0;  ///< largest over the launches
  std::uint64_t shared_bytes = 0;          ///< largest static + dynamic over the launches
};

struct CopyStats {
  std::string kind;
  std::uint64_t count = 0, bytes = 0;
  double total_ns = 0;
  double gb_per_s = 0;  ///< bytes / total_ns (0 when no time was recorded)
};

struct AccessStats {
  std::string kernel;
  std::uint64_t launches = 0, blocks = 0;
  std::uint64_t loads = 0, stores = 0, atomics = 0, bytes_loaded = 0, bytes_stored = 0;
  double sectors_per_request = 0;  ///< mean over requests, weighted by each record's loads + stores + atomics
  std::uint64_t findings = 0;
  bool tma = false;  ///< moved data through TMA tensor copies, which access tracing cannot see
};

struct TraceSummary {
  std::vector<KernelStats> kernels;  ///< by total time, largest first
  std::vector<CopyStats> copies;     ///< by kind name
  std::vector<AccessStats> accesses; ///< access mode only, by kernel name
  std::uint64_t launches = 0;
  double gpu_time_ns = 0;  ///< summed kernel durations (overlapping kernels count twice)
  std::uint64_t span_ns = 0;  ///< first kernel/copy start to last end
  std::uint64_t failed_launches = 0, findings = 0, dropped_records = 0;
  bool partial = false;
};

TraceSummary summarize_trace(const Trace& trace);

}  // namespace vtools::vtrace
