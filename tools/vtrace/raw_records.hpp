// The raw record file the injection library writes inside the traced process and `vtrace run` reads back: a
// header, then framed records {u32 tag, u32 payload bytes, payload}. Payloads are the plain structs below (no CUPTI
// types), so the CUPTI -> model mapping is tested on the CPU. Writer and reader come from the same build; a file
// cut short by a crash or kill ends in a torn record, which the reader drops and reports.
#pragma once

#include <time.h>

#include <cstdint>

namespace vtools::vtrace::raw {

inline constexpr char kMagic[8] = {'V', 'T', 'R', 'A', 'W', '0', '0', '1'};

enum class Tag : std::uint32_t {
  kProcess = 1,       ///< ProcessRecord: first record of every file
  kDevice = 2,        ///< DeviceRecord + name bytes
  kKernel = 3,        ///< KernelRecord + mangled name bytes
  kMemcpy = 4,        ///< MemcpyRecord
  kMemset = 5,        ///< MemsetRecord
  kMemory = 6,        ///< MemoryRecord (allocation or release)
  kFailedLaunch = 7,  ///< FailedLaunchRecord + "api\0kernel" bytes
  kDropped = 8,       ///< DroppedRecord: records CUPTI or the library lost
  kNote = 9,          ///< message bytes: something the user should know (CUPTI taken, an API call failed)
  kEnd = 10,          ///< EndRecord: the library flushed everything at a clean exit
  kLaunch = 11,       ///< access mode: access/access_records.hpp LaunchRecord + kernel name bytes
  // 12 was the per-warp access record of the first access mode: retired, refused as an unknown tag
  kLaunchParams = 13, ///< access mode: the ParamWords (every 8-byte word of the parameters) of the launch before it
  kProfilerCall = 14, ///< ProfilerCallRecord: a cudaProfilerStart/Stop (or cuProfilerStart/Stop) call
  kMarker = 15,       ///< MarkerRecord + "name\0domain" bytes: an NVTX range's start or end, or a mark
  kLaunchCall = 16,   ///< LaunchCallRecord: the host side of a kernel launch call (runtime or driver API)
  kAccessSite = 17,   ///< access mode: AccessSite (block x allocation x argument summary) of the launch before it,
                      ///< its ranges cut to range_count (site_record_bytes)
  kFindingSite = 18,  ///< access mode: FindingSite (out-of-bounds accesses of one PC) of the launch before it
  kTmaFunction = 19,  ///< access mode: mangled name of a loaded function whose SASS holds TMA tensor copies
  kFunctionCode = 20, ///< FunctionCodeRecord + mangled name bytes: a loaded function's code hash (both modes)
  kModuleImage = 21,  ///< access mode: ModuleRecord + the module's cubin, written once, only for a module whose
                      ///< launches had findings (the parent maps their PCs to source lines and SASS)
  kLaunchModule = 22, ///< access mode: ModuleRecord naming the module of the launch before it (one with findings)
  kIdentity = 23,     ///< "host\0KEY=VALUE\0KEY=VALUE..." bytes: the host name and the launcher variables that are set
                      ///< (process_identity.hpp kRankVariables); both libraries write it after the process record
  kClockAnchor = 24,  ///< ClockAnchorRecord: a timestamp and CLOCK_REALTIME read together (start and end)
  kDeviceIdentity = 25,  ///< DeviceIdentityRecord: a device's UUID and PCI location (after its kDevice record)
  kApiName = 26,      ///< ApiNameRecord + the function's name: a CUDA call whose calls are recorded (--api)
  kApiCall = 27,      ///< ApiCallRecord: one call of a recorded blocking CUDA function (--api)
  kPcSites = 28,      ///< access mode: access/access_records.hpp PcTableRecord + its used PcSites (PCs as offsets in
                      ///< the function) of the launch before it: the per-instruction counts behind the hot lines
  kLaunchResult = 29, ///< access mode: access/access_records.hpp LaunchResultRecord: the counts of the launch record
                      ///< with its serial; the site, finding, PC table and module records after it are that launch's
};

/// The clock a ClockAnchorRecord pairs with CLOCK_REALTIME. Launch mode's records carry CUPTI timestamps; access
/// mode's carry none (only an order), and the Sanitizer API offers no GPU clock, so it anchors CLOCK_MONOTONIC.
constexpr std::uint32_t kClockCupti = 0, kClockMonotonic = 1;

/// kClockMonotonic's clock, CLOCK_MONOTONIC in nanoseconds: the access tool anchors it, and `vtrace run` reads it to
/// say how long the command took to exit after its last records.
inline std::uint64_t monotonic_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

/// One timestamp of `clock` and the CLOCK_REALTIME read around it: realtime_ns is the middle of the two reads, and
/// half_window_ns half their distance, so the pair says "clock time clock_ns was realtime_ns +- half_window_ns".
/// Written at start and at a clean end, so `vtrace merge` puts several hosts' CUPTI clocks on one timeline.
struct ClockAnchorRecord {
  std::uint64_t clock_ns;
  std::int64_t realtime_ns;
  std::uint64_t half_window_ns;
  std::uint32_t clock = kClockCupti;  ///< kClockCupti or kClockMonotonic
  std::uint32_t pad = 0;
};

/// A device by what stays the same whatever CUDA_VISIBLE_DEVICES says: its UUID and PCI domain:bus:device.
struct DeviceIdentityRecord {
  std::uint32_t id;  ///< the DeviceRecord id (CUDA device ordinal in that process)
  std::uint32_t pci_domain, pci_bus, pci_device;
  std::uint8_t uuid[16];
};

/// A loaded module as the access tool numbers them (1, 2, ... in load order; 0 = unknown).
struct ModuleRecord {
  std::uint64_t module;
};

/// A function of a loaded module: a hash of its code (cubin_symbols.hpp, function_code_hash), so two traces can tell
/// "same name, same code" from "same name, new code".
struct FunctionCodeRecord {
  std::uint64_t hash;
  std::uint64_t bytes;  ///< size of its code
};

struct FrameHeader {
  std::uint32_t tag;
  std::uint32_t bytes;  ///< payload bytes following this header
};

struct ProcessRecord {
  std::int64_t pid;
  std::uint64_t start_ns;  ///< CUPTI timestamp when the library initialised
};

struct DeviceRecord {
  std::uint32_t id;
  std::uint32_t cc_major, cc_minor;
  std::uint32_t sm_count;
  std::uint64_t memory_bytes;
};

struct KernelRecord {
  std::uint64_t start_ns, end_ns;
  std::uint32_t device_id, context_id, stream_id, correlation_id;
  std::int32_t grid[3], block[3];
  std::uint32_t cluster[3];
  std::uint32_t registers_per_thread;
  std::int32_t static_shared_bytes, dynamic_shared_bytes;
  std::uint32_t local_bytes_per_thread;
  std::uint32_t launch_type;  ///< CUpti_ActivityLaunchType value
  std::uint64_t local_bytes_total;
  std::uint64_t graph_node_id;
  std::uint32_t graph_id;
  std::uint32_t pad;
};

struct MemcpyRecord {
  std::uint64_t start_ns, end_ns, bytes;
  std::uint32_t copy_kind;  ///< CUpti_ActivityMemcpyKind value
  std::uint32_t device_id, context_id, stream_id, correlation_id;
  std::uint32_t pad;
};

struct MemsetRecord {
  std::uint64_t start_ns, end_ns, bytes;
  std::uint32_t value;
  std::uint32_t device_id, context_id, stream_id, correlation_id;
  std::uint32_t pad;
};

struct MemoryRecord {
  std::uint64_t timestamp_ns, address, bytes;
  std::uint32_t operation;    ///< 1 allocation, 2 release (CUpti_ActivityMemoryOperationType)
  std::uint32_t memory_kind;  ///< CUpti_ActivityMemoryKind value
  std::uint32_t device_id, context_id;
};

struct FailedLaunchRecord {
  std::int32_t status;
  std::uint32_t correlation_id;
};

/// The program called cudaProfilerStart or cudaProfilerStop (also as cuProfilerStart/Stop, or both: the runtime
/// calls the driver). Records whose launch call's correlation id lies between a start and the next stop are in
/// that capture range (vtrace run --capture-range cudaProfilerApi).
struct ProfilerCallRecord {
  std::uint64_t timestamp_ns;
  std::uint32_t correlation_id;
  std::uint32_t start;  ///< 1 start, 0 stop
};

/// An NVTX event (CUPTI marker activity): the start or end of a range (push/pop or start/end; the two share `id`),
/// or an instantaneous mark. Names come with starts and marks.
struct MarkerRecord {
  std::uint64_t timestamp_ns;
  std::uint32_t id;
  std::uint32_t flags;  ///< CUpti_ActivityFlag: 1 mark, 2 start, 4 end
  std::uint32_t process_id, thread_id;
};

/// A kernel launch call (cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch, ...) as CUPTI's API activity saw it:
/// which thread made it and when. A kernel record with the same correlation id was launched by it.
struct LaunchCallRecord {
  std::uint64_t start_ns, end_ns;
  std::uint32_t correlation_id;
  std::uint32_t thread_id;
};

/// CUPTI's callback domains of the API records (CUpti_CallbackDomain; cupti_record_mapping.cpp checks the values).
constexpr std::uint32_t kDriverDomain = 1, kRuntimeDomain = 2;

/// --api: a runtime or driver function whose calls are recorded, named once per process (CUPTI's callback domain
/// and id, as the API activity records carry them).
struct ApiNameRecord {
  std::uint32_t domain;
  std::uint32_t cbid;
};

/// --api: one call of a blocking CUDA function (a synchronize, a synchronous copy or set, a free) on a host thread.
struct ApiCallRecord {
  std::uint64_t start_ns, end_ns;
  std::uint32_t correlation_id;
  std::uint32_t thread_id;
  std::uint32_t domain;
  std::uint32_t cbid;
};

struct DroppedRecord {
  std::uint64_t count;
};

struct EndRecord {
  std::uint64_t end_ns;
};

}  // namespace vtools::vtrace::raw
