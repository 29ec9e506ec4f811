// The trace summary (`vtrace summary`, vrender's trace page): per-kernel timing aggregates with exposed times,
// per-CUDA-graph totals, memcpy totals by direction, NVTX ranges and (access mode) per-kernel access totals, computed
// from the trace model. Selections (--graph, --kernel) are vtrace's (tools/vtrace/trace_selection.hpp); its writers
// are in tools/vtrace/summary_writer.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

struct KernelStats {
  std::string name;
  std::uint64_t calls = 0;
  double total_ns = 0, mean_ns = 0, median_ns = 0, min_ns = 0, max_ns = 0;
  double std_ns = 0;         ///< sample standard deviation of the durations (0 for one call)
  double share = 0;          ///< total_ns / the summed time of all kernels, in [0, 1]
  Dim3 grid{0, 0, 0};        ///< grid of the first launch
  bool grid_varies = false;  ///< launches used more than one grid
  Dim3 block{0, 0, 0};
  std::uint32_t registers_per_thread = 0;  ///< largest over the launches
  std::uint64_t shared_bytes = 0;          ///< largest static + dynamic over the launches
  /// Time its launches add to the time some kernel runs (TraceSummary::busy_ns): per launch, its end minus the later
  /// of its start and the latest end of the kernels that started before it on its device, or 0 if it ends before
  /// that. A kernel launched as a programmatic dependent, or beside another, runs long but exposes only what it adds
  /// past the others; the exposed times of all kernels sum to busy_ns.
  double exposed_ns = 0;
  double exposed_share = 0;  ///< exposed_ns / TraceSummary::busy_ns, in [0, 1]
  /// With one graph selected: calls, time and exposed time per launch of that graph (each total /
  /// TraceSummary::graphs[0].launches).
  double calls_per_launch = 0, time_per_launch_ns = 0, exposed_per_launch_ns = 0;
};

/// The kernels one CUDA graph ran in the trace. A graph launch runs each kernel node once, so `launches` is the most
/// kernels any one node ran (a trace cut short may hold part of a launch).
struct GraphStats {
  std::uint32_t id = 0;
  std::uint64_t launches = 0;      ///< graph launches
  std::uint64_t kernel_nodes = 0;  ///< distinct kernel nodes that ran
  std::uint64_t kernels = 0;       ///< kernel launches from it, all graph launches together
  double gpu_time_ns = 0;          ///< its kernels' summed durations
  double gpu_time_per_launch_ns = 0;
};

struct CopyStats {
  std::string kind;
  std::uint64_t count = 0, bytes = 0;
  double total_ns = 0;
  double gb_per_s = 0;  ///< bytes / total_ns (0 when no time was recorded)
};

/// NVTX ranges of one name and domain (nsys's "NVTX Range Summary"): host time between push and pop (or start and
/// end), and the kernels the ranges launched (launch call on the range's thread, between its start and end; a
/// kernel counts in every range around it) with their GPU time and span (nsys's GPU projection). Ranges that never
/// ended and marks are left out.
struct NvtxStats {
  std::string name, domain;
  std::uint64_t count = 0;
  double total_ns = 0, mean_ns = 0, median_ns = 0, min_ns = 0, max_ns = 0;
  std::uint64_t kernels = 0;
  double kernel_ns = 0;    ///< the kernels' run times, summed
  double gpu_span_ns = 0;  ///< per range, its first kernel's start to its last kernel's end; summed over the ranges
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
  std::vector<GraphStats> graphs;    ///< CUDA graphs among the kept kernels, by id
  std::vector<CopyStats> copies;     ///< by kind name
  std::vector<AccessStats> accesses; ///< access mode only, by kernel name
  std::vector<NvtxStats> nvtx;       ///< by total time, largest first
  std::uint64_t launches = 0;
  double gpu_time_ns = 0;  ///< summed kernel durations (overlapping kernels count twice)
  double busy_ns = 0;      ///< time some kept kernel runs: the union of their intervals, per device, summed
  std::uint64_t span_ns = 0;  ///< first kernel/copy start to last end
  std::uint64_t failed_launches = 0, findings = 0, dropped_records = 0;
  bool partial = false;
  std::optional<std::uint32_t> graph;  ///< the graph selected, if any
  std::string kernel_regex;            ///< the --kernel pattern, if any
  std::uint64_t left_out_launches = 0;  ///< kernel launches the selection left out
};

/// Each launch's exposed time in ns (what KernelStats::exposed_ns adds up), in the order of trace.kernels: libcommon's
/// exposed_times with a lane per device.
std::vector<double> launch_exposed_ns(const Trace& trace);

/// The order of TraceSummary::kernels: by total time (summarize_trace's), exposed time or calls, largest first, or
/// by name; ties by total time, then name.
enum class KernelOrder { kTotal, kExposed, kCalls, kName };

/// "total", "exposed", "calls", "name" (the --sort values) -> KernelOrder; nullopt for anything else.
std::optional<KernelOrder> kernel_order(const std::string& name);

/// Puts summary.kernels in `order`.
void sort_kernels(TraceSummary& summary, KernelOrder order);

/// Summarises every kernel of `trace`. `graph`: the trace holds only the kernels of that CUDA graph (a selection the
/// caller made), so each kernel also gets its figures per graph launch.
TraceSummary summarize_trace(const Trace& trace, std::optional<std::uint32_t> graph = std::nullopt);

}  // namespace vtools::vtrace
