// The vtools.trace model: what one traced run recorded (run metadata, devices, kernel launches, copies, sets,
// allocations, and in access mode per-block accesses and out-of-bounds findings). Plain data; readers, builders,
// analyses and writers live in their own files.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vtools::vtrace {

/// A kernel name that many records share (access mode keeps one record per block, ~2 M for a GPT-2 training step,
/// and PyTorch's kernel names run to hundreds of characters): one copy, shared, read as a const std::string.
class SharedName {
 public:
  SharedName() = default;
  SharedName(std::string text) : text_(std::make_shared<const std::string>(std::move(text))) {}
  SharedName(const char* text) : SharedName(std::string(text)) {}
  [[nodiscard]] const std::string& str() const { return text_ ? *text_ : empty_string(); }
  operator const std::string&() const { return str(); }
  [[nodiscard]] bool empty() const { return str().empty(); }
  friend bool operator==(const SharedName& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const SharedName& a, const char* b) { return a.str() == b; }
  friend bool operator==(const SharedName& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const SharedName& a, const SharedName& b) { return a.str() == b.str(); }
  friend bool operator<(const SharedName& a, const SharedName& b) { return a.str() < b.str(); }

 private:
  static const std::string& empty_string() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;
};

/// How the traced command ended. `signal` is 0 unless it was killed by one (then exit_status = 128 + signal).
/// --capture-range cudaProfilerApi: from a cudaProfilerStart to the next cudaProfilerStop of one process.
struct CaptureRange {
  std::int64_t process_id = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;  ///< 0: no stop came (the range ran to the end of the process)
};

struct RunInfo {
  std::vector<std::string> command;
  int exit_status = 0;
  int signal = 0;
  std::string start_time;  ///< ISO 8601 UTC
  std::string host;
  std::string tool_version;
  std::string mode = "launches";  ///< "launches" or "accesses"
  std::uint64_t duration_ns = 0;  ///< wall time of the command, host clock
  std::vector<std::int64_t> process_ids;  ///< processes that initialised CUDA under the tracer
  std::vector<std::string> notes;  ///< things the user should know (CUPTI taken, kernels filtered, ...)
  /// --capture-range: "none" (everything) or "cudaProfilerApi" (only what was launched inside the ranges).
  std::string capture_range = "none";
  std::vector<CaptureRange> capture_ranges;  ///< with cudaProfilerApi: every range, per process in call order
  bool nvtx = false;  ///< --nvtx: NVTX ranges and launch calls were recorded
  bool api = false;   ///< --api: blocking CUDA calls (api_calls) and launch calls were recorded
};

/// The clock a ClockAnchor pairs with CLOCK_REALTIME: CUPTI's (launch mode: the trace's timestamps), or
/// CLOCK_MONOTONIC (access mode, whose records have no timestamps and whose Sanitizer API has no GPU clock).
enum class AnchorClock { kCupti, kMonotonic };

/// "`clock` time clock_ns was CLOCK_REALTIME realtime_ns, give or take uncertainty_ns" (read in the traced process).
struct ClockAnchor {
  std::uint64_t clock_ns = 0;
  std::int64_t realtime_ns = 0;
  std::uint64_t uncertainty_ns = 0;
  AnchorClock clock = AnchorClock::kCupti;
  /// realtime - clock time: what maps this process's timestamps onto CLOCK_REALTIME (for a CUPTI anchor).
  /// (Computed modulo 2^64, so a crafted document cannot overflow it.)
  [[nodiscard]] std::int64_t offset_ns() const {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(realtime_ns) - clock_ns);
  }
};

/// A process that initialised CUDA under the tracer: where it ran and its place in a distributed job.
struct Process {
  /// As kernels' and NVTX ranges' process_id: the OS pid, unless vtrace merge renumbered a pid two inputs shared.
  std::int64_t id = 0;
  std::int64_t pid = 0;  ///< the OS process id
  std::string host;      ///< "" when not recorded (traces before ranks, access mode)
  std::int64_t rank = -1, local_rank = -1, world_size = -1;  ///< -1: the launcher did not say
  std::string launcher;  ///< whose variables gave the rank: "torchrun", "openmpi", "pmi", "slurm" or ""
  std::optional<ClockAnchor> clock_start, clock_end;
};

/// One input of `vtrace merge`: what it was, and how its timestamps were moved onto the merged clock.
struct MergeSource {
  std::string name;  ///< the file as given
  std::string host;
  std::string start_time;
  std::vector<std::string> command;
  std::int64_t shift_ns = 0;        ///< added to every timestamp of this input
  std::uint64_t uncertainty_ns = 0;  ///< how far that shift may be off (the anchors' windows and drift)
};

struct Device {
  std::uint32_t id = 0;
  std::string name;
  std::string compute_capability;  ///< "9.0"
  std::uint32_t sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::string uuid;        ///< "GPU-xxxxxxxx-xxxx-..." as nvidia-smi prints it, "" when not recorded
  std::string pci_bus_id;  ///< "0000:19:00.0", "" when not recorded
  std::string host;        ///< the host it belongs to ("" when not recorded)
};

using Dim3 = std::array<std::int64_t, 3>;

/// "1024x2x1": how tables and vtrace diff's launch shapes print a grid or block.
inline std::string dim3_text(const Dim3& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

/// A launch. Its names are shared with the other launches of its kernel (one copy per distinct name: ~400 bytes a
/// launch otherwise, half the model of a 10^6-launch trace).
struct Kernel {
  SharedName name;          ///< demangled
  SharedName mangled_name;  ///< as the driver reported it
  /// 16 hex digits: a hash of the function's code in the loaded module (vtrace diff tells "same code" from "new
  /// code" by it); "" when unknown (not recorded, or one name had different code in two modules).
  SharedName code_hash;
  std::uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  std::int64_t process_id = 0;
  Dim3 grid{1, 1, 1}, block{1, 1, 1}, cluster{0, 0, 0};
  std::uint32_t registers_per_thread = 0;
  std::uint64_t static_shared_bytes = 0, dynamic_shared_bytes = 0;
  std::uint64_t local_bytes_per_thread = 0, local_bytes_total = 0;
  std::string launch_type = "regular";  ///< regular, cooperative_single_device, cooperative_multi_device, ...
  std::uint32_t graph_id = 0;           ///< 0 when not launched from a CUDA graph
  std::uint64_t graph_node_id = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  /// The launch call (host): its thread (CUPTI's id, as NVTX ranges have it; 0 when not recorded) and start (none
  /// when not recorded: 0 is a time, as in a trace whose clock starts at its first launch).
  std::uint32_t thread_id = 0;
  std::optional<std::uint64_t> launch_ns;
  std::uint64_t launch_end_ns = 0;  ///< when the launch call returned; 0 when not recorded
};

/// Memory copy; `kind` is "htod", "dtoh", "dtod", "htoh", "ptop", ... ("unknown" otherwise).
struct Memcpy {
  std::string kind;
  std::uint64_t bytes = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
};

struct Memset {
  std::uint64_t bytes = 0;
  std::uint32_t value = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
};

/// A device (or pinned/managed) allocation. `size` is the requested size in bytes.
struct Allocation {
  std::uint64_t id = 0;
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  std::string name;  ///< "" unless known (access mode names allocations after kernel arguments)
  std::string memory_kind = "device";
  std::uint32_t device_id = 0;
  std::uint64_t allocated_ns = 0;
  std::optional<std::uint64_t> freed_ns;
};

/// A launch the driver or runtime refused (the API call returned an error).
struct FailedLaunch {
  std::string api;     ///< "cuLaunchKernel", "cudaLaunchKernel", ...
  std::string kernel;  ///< demangled symbol name when known
  int status = 0;      ///< CUresult / cudaError_t value
  std::uint32_t correlation_id = 0;
};

/// An NVTX range (push/pop or start/end) or mark of one thread, in host time on CUPTI's clock (the kernels' too).
struct NvtxRange {
  std::string name;
  std::string domain;  ///< "" for the default domain
  std::int64_t process_id = 0;
  std::uint32_t thread_id = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;  ///< a mark: start_ns; 0: the range never ended (still open at exit, or lost)
  bool mark = false;         ///< nvtxMark: an instant, not a range
};

/// vtrace run --api: one call of a CUDA function that can block its host thread (a synchronize, a synchronous copy or
/// set, a free), in host time on CUPTI's clock. A driver call made inside a recorded runtime call is left out.
struct ApiCall {
  std::string name;  ///< "cudaStreamSynchronize", "cuMemcpyDtoH_v2", ...
  std::int64_t process_id = 0;
  std::uint32_t thread_id = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t correlation_id = 0;
};

/// Access mode: what one block of one launch did to one allocation.
struct Access {
  SharedName kernel;
  /// The process that launched it, as kernels' process_id (a merged trace of a job's ranks holds every rank's launch 0
  /// of a kernel); 0 when not recorded (a document from before access rows named it, with several processes).
  std::int64_t process_id = 0;
  std::uint64_t launch = 0;  ///< 0-based launch index of this kernel name in that process
  Dim3 block{0, 0, 0};
  std::int64_t allocation = -1;  ///< allocation id, -1 when outside every allocation
  /// Kernel parameter (0-based) pointing into that allocation at or below these bytes, -1 when none (or unknown);
  /// a caching allocator's segment can hold several tensors, so one allocation can have a record per argument.
  std::int64_t argument = -1;
  std::string argument_type;  ///< that parameter's type from the demangled name ("float const*"), "" when unknown
  std::vector<std::array<std::uint64_t, 2>> ranges;  ///< merged [lo, hi) byte offsets into the allocation
  /// False when the device ran out of range slots for this block and joined close ranges over their gaps: the ranges
  /// then cover every byte touched and some that were not; ranges_merged says how many joins that took.
  bool ranges_exact = true;
  std::uint64_t ranges_merged = 0;
  std::uint64_t loads = 0, stores = 0, atomics = 0;
  std::uint64_t bytes_loaded = 0, bytes_stored = 0;
  /// cp.async.bulk copies among the loads and stores (each counts as one, with all its bytes); they are not warp
  /// requests, so the two per-request averages below leave them out.
  std::uint64_t bulk_copies = 0;
  double sectors_per_request = 0;  ///< 32-byte sectors per warp-level request
  double active_lanes_per_request = 0;
};

/// One frame of a source position: where an instruction came from (DWARF line table of the module's cubin).
struct SourceFrame {
  std::string file;          ///< as the line table names it (absolute, or relative to the compile directory)
  std::uint32_t line = 0;    ///< 1-based
  std::uint32_t column = 0;  ///< 1-based, 0 when the table has none (nvcc's -lineinfo tables have none)
  std::string function;      ///< demangled name of the function this frame is in ("" when unknown)
};

/// The source position of an instruction: the innermost frame (for an inlined call, the line inside the callee)
/// and the call sites it was inlined at, innermost first (empty when not inlined).
struct SourceLine : SourceFrame {
  std::vector<SourceFrame> inlined_at;
  std::string text;  ///< the line's text, read when the trace was made ("" when the file could not be read)
};

/// Access mode: one out-of-bounds access.
struct Finding {
  std::string kind = "out_of_bounds";
  std::string kernel;
  std::int64_t process_id = 0;  ///< as Access::process_id
  std::uint64_t launch = 0;
  Dim3 block{0, 0, 0}, thread{0, 0, 0};
  std::uint64_t pc_offset = 0;
  std::uint64_t address = 0;
  std::uint32_t size = 0;
  std::string operation;          ///< "load", "store", "atomic", "bulk_load", "bulk_store"
  std::int64_t allocation = -1;   ///< nearest allocation id, -1 when none
  std::int64_t distance = 0;      ///< bytes past the end (>0) or before the start (<0) of that allocation
  std::int64_t argument = -1;     ///< kernel parameter pointing into that allocation, -1 when none
  std::string argument_type;      ///< its type from the demangled kernel name, "" when unknown
  std::optional<SourceLine> source;  ///< the instruction's source line, when the module has line info
  std::string sass;                  ///< the instruction's SASS text (nvdisasm), "" when not known
  std::string source_note;           ///< why source or sass is missing ("" when both are there)
};

/// Access mode: every out-of-bounds access of one kernel at one PC in one process, counted exactly; `findings` lists
/// the first few.
struct FindingSite {
  std::string kernel;
  std::uint64_t pc_offset = 0;
  std::string operation;
  std::uint64_t count = 0;   ///< out-of-bounds accesses (one per thread) over all launches
  std::uint64_t listed = 0;  ///< of them, in `findings`
  std::int64_t process_id = 0;  ///< as Access::process_id (one site per process, kernel and PC)
};

/// Access mode: what one kernel's global accesses did at one source line, over all its recorded launches (the hot
/// lines, as ncu's source page gives per line). A line is the innermost frame of an instruction's source position
/// (an inlined callee's line; for a Triton kernel, the Python line). Where the module has no line information (or
/// the PC is outside its line table) the row is one instruction instead: no file or line, its PC, SASS and why.
/// Counted per warp request on the device (the PC table, tools/vtrace/access/access_records.hpp PcSite).
struct HotLine {
  std::string kernel;          ///< demangled
  std::int64_t process_id = 0; ///< as Access::process_id (one row per process, kernel and line)
  std::string file;            ///< as the line table names it; "" for an instruction row
  std::uint32_t line = 0;      ///< 1-based; 0 for an instruction row
  std::string function;        ///< demangled name of the function the line is in ("" when unknown)
  std::string text;            ///< the line's text, read when the trace was made ("" when the file was unreadable)
  std::uint64_t pcs = 0;       ///< instructions (PCs) of the line that accessed global memory
  std::uint64_t pc_offset = 0; ///< the lowest of them, an offset in the kernel's function (an instruction row: its PC)
  std::string sass;            ///< an instruction row: its SASS text ("" when unknown); "" for a line row
  std::string note;            ///< an instruction row: why it has no line; "" for a line row
  std::uint64_t loads = 0, stores = 0, atomics = 0;  ///< lane accesses (a bulk copy counts one)
  std::uint64_t bytes_loaded = 0, bytes_stored = 0;  ///< an atomic's bytes count as both
  /// Warp requests, their distinct 32-byte sectors and active lanes, summed (bulk copies are not warp requests).
  std::uint64_t requests = 0, sectors = 0, lanes = 0;
  std::uint64_t bulk_copies = 0;
  std::uint64_t findings = 0;  ///< out-of-bounds accesses (one per thread) at its instructions
  [[nodiscard]] double sectors_per_request() const {
    return requests ? static_cast<double>(sectors) / static_cast<double>(requests) : 0;
  }
  [[nodiscard]] double active_lanes_per_request() const {
    return requests ? static_cast<double>(lanes) / static_cast<double>(requests) : 0;
  }
};

struct Trace {
  /// The "version" of the document it was read from (the current one for a trace built here).
  int format_version = 0;
  RunInfo run;
  std::vector<Process> processes;        ///< by id
  std::vector<MergeSource> merged_from;  ///< vtrace merge: its inputs, in order; empty otherwise
  std::vector<Device> devices;
  std::vector<Kernel> kernels;
  std::vector<Memcpy> memcpys;
  std::vector<Memset> memsets;
  std::vector<Allocation> allocations;
  std::vector<FailedLaunch> failed_launches;
  std::vector<NvtxRange> nvtx_ranges;  ///< by start time
  std::vector<ApiCall> api_calls;      ///< --api, by start time
  std::vector<Access> accesses;
  std::vector<Finding> findings;
  std::vector<FindingSite> finding_sites;  ///< per process, kernel and PC (each process's by kernel, then PC)
  /// Out-of-bounds accesses in all, exact: those of finding_sites plus any at PCs past the device's per-launch table.
  std::uint64_t findings_total = 0;
  /// Every out-of-bounds access the trace knows of: findings_total, or the listed findings where it says less (a
  /// model filled by hand, a document without the field).
  [[nodiscard]] std::uint64_t findings_in_all() const {
    return findings_total > findings.size() ? findings_total : findings.size();
  }
  /// Access mode: per kernel and process, its source lines' accesses (by kernel, process, then file, line; instruction
  /// rows last).
  std::vector<HotLine> hot_lines;
  /// Warp requests at PCs past a launch's PC table (raw::kPcSitesPerLaunch): in the accesses, not in hot_lines.
  std::uint64_t hot_lines_dropped_requests = 0;
  /// Kernels that ran through TMA tensor copies, invisible to access tracing (access mode only).
  std::vector<std::string> tma_kernels;
  bool partial = false;
  std::uint64_t dropped_records = 0;   ///< records the tracer lost (buffers full, write failures, size cap)
  std::uint64_t filtered_kernels = 0;  ///< launches left out by --kernel, --launch or --capture-range
  /// Whether its kernels carry device times: not an access-mode trace's (the Compute Sanitizer API reads no GPU
  /// clock; every kernel shows 0 ns), unless it is an early one that also recorded CUPTI times.
  [[nodiscard]] bool has_kernel_times() const {
    if (run.mode != "accesses") return true;
    for (const Kernel& k : kernels)
      if (k.end_ns > 0) return true;
    return false;
  }
};

}  // namespace vtools::vtrace
