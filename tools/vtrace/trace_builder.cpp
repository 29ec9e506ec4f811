#include "tools/vtrace/trace_builder.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <unordered_map>

#include "libcommon/document.hpp"
#include "tools/vtrace/process_identity.hpp"

namespace vtools::vtrace {

std::string uuid_text(const std::uint8_t (&uuid)[16]) {
  std::string out = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof hex, "%02x", uuid[i]);
    out += hex;
  }
  return out;
}

std::string pci_bus_id_text(std::uint32_t domain, std::uint32_t bus, std::uint32_t device) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.0", domain, bus, device);
  return text;
}

Process process_of(const raw::Capture& c, std::vector<std::string>& notes) {
  Process p;
  p.id = p.pid = c.process.pid;
  p.host = c.host;
  const RankInfo rank = detect_rank(c.launcher_variables);
  p.rank = rank.rank;
  p.local_rank = rank.local_rank;
  p.world_size = rank.world_size;
  p.launcher = rank.launcher;
  if (!rank.problem.empty()) notes.push_back("process " + std::to_string(p.pid) + ": " + rank.problem);
  auto anchor = [](const raw::ClockAnchorRecord& r) {
    return ClockAnchor{r.clock_ns, r.realtime_ns, r.half_window_ns,
                       r.clock == raw::kClockMonotonic ? AnchorClock::kMonotonic : AnchorClock::kCupti};
  };
  if (!c.clock_anchors.empty()) p.clock_start = anchor(c.clock_anchors.front());
  if (c.clock_anchors.size() > 1) p.clock_end = anchor(c.clock_anchors.back());
  return p;
}

std::uint32_t trace_device_id(const raw::Capture& c, const Trace& trace, std::uint32_t ordinal) {
  for (const raw::DeviceIdentityRecord& id : c.device_identities) {
    if (id.id != ordinal) continue;
    const std::string uuid = uuid_text(id.uuid);
    for (const Device& d : trace.devices)
      if (d.uuid == uuid) return d.id;
  }
  return ordinal;
}

std::string demangle(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string memcpy_kind_name(std::uint32_t kind) {
  static const char* const kNames[] = {"unknown", "htod", "dtoh", "htoa", "atoh", "atoa",
                                       "atod",    "dtoa", "dtod", "htoh", "ptop"};
  return kind < std::size(kNames) ? kNames[kind] : "unknown";
}

std::string launch_type_name(std::uint32_t type) {
  static const char* const kNames[] = {"regular", "cooperative_single_device", "cooperative_multi_device",
                                       "cbl_commandlist"};
  return type < std::size(kNames) ? kNames[type] : "type_" + std::to_string(type);
}

std::string memory_kind_name(std::uint32_t kind) {
  static const char* const kNames[] = {"unknown", "pageable", "pinned",         "device",
                                       "array",   "managed",  "device_static", "managed_static"};
  return kind < std::size(kNames) ? kNames[kind] : "unknown";
}

std::string code_hash_text(const std::map<std::string, std::uint64_t>& codes, const std::string& mangled_name) {
  auto it = codes.find(mangled_name);
  if (it == codes.end() || it->second == 0) return "";
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(it->second));
  return text;
}

namespace {

Kernel to_kernel(const raw::NamedKernel& nk, std::string name, std::int64_t pid) {
  const raw::KernelRecord& r = nk.record;
  Kernel k;
  k.mangled_name = nk.mangled_name;
  k.name = std::move(name);
  k.device_id = r.device_id;
  k.context_id = r.context_id;
  k.stream_id = r.stream_id;
  k.correlation_id = r.correlation_id;
  k.process_id = pid;
  for (int i = 0; i < 3; ++i) {
    k.grid[i] = r.grid[i];
    k.block[i] = r.block[i];
    k.cluster[i] = r.cluster[i];
  }
  k.registers_per_thread = r.registers_per_thread;
  k.static_shared_bytes = static_cast<std::uint64_t>(std::max(0, r.static_shared_bytes));
  k.dynamic_shared_bytes = static_cast<std::uint64_t>(std::max(0, r.dynamic_shared_bytes));
  k.local_bytes_per_thread = r.local_bytes_per_thread;
  k.local_bytes_total = r.local_bytes_total;
  k.launch_type = launch_type_name(r.launch_type);
  k.graph_id = r.graph_id;
  k.graph_node_id = r.graph_node_id;
  k.start_ns = r.start_ns;
  k.end_ns = std::max(r.start_ns, r.end_ns);
  return k;
}

/// Pairs allocation records with the release of the same address on the same device, in timestamp order.
void add_allocations(const raw::Capture& c, Trace& t) {
  std::vector<raw::MemoryRecord> records = c.memory;
  std::stable_sort(records.begin(), records.end(),
                   [](const auto& a, const auto& b) { return a.timestamp_ns < b.timestamp_ns; });
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::size_t> live;  // (device, address) -> index in t
  for (const auto& r : records) {
    auto key = std::make_pair(r.device_id, r.address);
    if (r.operation == 1) {
      Allocation a;
      a.id = t.allocations.size() + 1;
      a.address = r.address;
      a.size = r.bytes;
      a.memory_kind = memory_kind_name(r.memory_kind);
      a.device_id = r.device_id;
      a.allocated_ns = r.timestamp_ns;
      live[key] = t.allocations.size();
      t.allocations.push_back(a);
    } else if (r.operation == 2) {
      auto it = live.find(key);
      if (it != live.end()) {
        t.allocations[it->second].freed_ns = r.timestamp_ns;
        live.erase(it);
      }
    }
  }
}

/// One process's capture ranges as windows of launch-call correlation ids, [start, stop) (CUPTI numbers API calls
/// in call order, and a kernel or copy record carries the id of the call that launched it).
struct CaptureWindows {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> windows;  ///< stop = UINT32_MAX while no stop came
  [[nodiscard]] bool contains(std::uint32_t correlation_id) const {
    // Windows are in order and do not overlap: only the last one starting before the id can hold it.
    auto after = std::partition_point(windows.begin(), windows.end(),
                                      [&](const auto& w) { return w.first < correlation_id; });
    return after != windows.begin() && correlation_id < std::prev(after)->second;
  }
};

/// The windows of `c` (also appended to `ranges` with their times). A start while a range is open, or a stop while
/// none is, is the same call seen twice (cudaProfilerStart reaches cuProfilerStart) or a stray call: ignored.
CaptureWindows capture_windows(const raw::Capture& c, std::vector<CaptureRange>& ranges) {
  std::vector<raw::ProfilerCallRecord> calls = c.profiler_calls;
  std::stable_sort(calls.begin(), calls.end(),
                   [](const auto& a, const auto& b) { return a.correlation_id < b.correlation_id; });
  CaptureWindows w;
  bool open = false;
  for (const raw::ProfilerCallRecord& call : calls) {
    if (call.start != 0 && !open) {
      w.windows.emplace_back(call.correlation_id, UINT32_MAX);
      ranges.push_back({c.process.pid, call.timestamp_ns, 0});
      open = true;
    } else if (call.start == 0 && open) {
      w.windows.back().second = call.correlation_id;
      ranges.back().end_ns = call.timestamp_ns;
      open = false;
    }
  }
  return w;
}

/// Pairs one process's NVTX starts and ends (by CUPTI's marker id) into ranges, and keeps marks; an end whose start
/// was not recorded (NVTX used before CUDA initialised the tracer) is dropped.
void add_nvtx_ranges(const raw::Capture& c, std::vector<NvtxRange>& out) {
  constexpr std::uint32_t kMark = 1, kStart = 2, kEnd = 4;  // CUpti_ActivityFlag's marker bits
  std::unordered_map<std::uint32_t, std::size_t> open;       // marker id -> index in out
  for (const raw::NamedMarker& m : c.markers) {
    const raw::MarkerRecord& r = m.record;
    if (r.flags & (kMark | kStart)) {
      NvtxRange range{m.name, m.domain, r.process_id ? r.process_id : c.process.pid, r.thread_id, r.timestamp_ns,
                      (r.flags & kMark) ? r.timestamp_ns : 0, (r.flags & kMark) != 0};
      if (r.flags & kStart) open[r.id] = out.size();
      out.push_back(std::move(range));
    } else if (r.flags & kEnd) {
      if (auto it = open.find(r.id); it != open.end()) {
        out[it->second].end_ns = std::max(r.timestamp_ns, out[it->second].start_ns);
        open.erase(it);
      }
    }
  }
}

/// CUPTI names runtime functions with the CUDA version that introduced them ("cudaMemcpy_v3020"): the function is
/// "cudaMemcpy", as nsys prints it. A driver "_v2" is part of the real symbol (cuMemcpyDtoH_v2) and stays.
std::string api_function_name(std::string name) {
  const std::size_t at = name.rfind("_v");
  if (at == std::string::npos || name.size() - at < 6) return name;
  for (std::size_t i = at + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  name.resize(at);
  return name;
}

/// --api: one process's blocking calls, named; a driver call inside a runtime call of the same thread (cudaMemcpy
/// calling cuMemcpy) is the same wait and is left out.
void add_api_calls(const raw::Capture& c, std::vector<ApiCall>& out) {
  std::vector<const raw::ApiCallRecord*> calls;
  for (const raw::ApiCallRecord& r : c.api_calls) calls.push_back(&r);
  std::sort(calls.begin(), calls.end(), [](auto* x, auto* y) {
    return std::tie(x->thread_id, x->start_ns, y->end_ns) < std::tie(y->thread_id, y->start_ns, x->end_ns);
  });
  const raw::ApiCallRecord* outer = nullptr;  // the last runtime call of this thread
  for (const raw::ApiCallRecord* r : calls) {
    if (outer && outer->thread_id != r->thread_id) outer = nullptr;
    const bool runtime = r->domain == raw::kRuntimeDomain;
    if (!runtime && outer && r->start_ns >= outer->start_ns && r->end_ns <= outer->end_ns) continue;
    if (runtime) outer = r;
    auto name = c.api_names.find({r->domain, r->cbid});
    out.push_back({name != c.api_names.end() && !name->second.empty()
                       ? api_function_name(name->second)
                       : (runtime ? "runtime call " : "driver call ") + std::to_string(r->cbid),
                   c.process.pid, r->thread_id, r->start_ns, std::max(r->end_ns, r->start_ns), r->correlation_id});
  }
}

}  // namespace

Trace build_trace(const std::vector<raw::Capture>& captures, RunInfo run, const KernelFilter& filter) {
  Trace t;
  t.format_version = kTraceFormat.version;
  t.run = std::move(run);
  t.partial = t.run.signal != 0;
  std::map<std::uint32_t, Device> devices;
  // A process numbers the GPUs it sees from 0, so under a per-task CUDA_VISIBLE_DEVICES two processes' device 0 are
  // different GPUs: devices with a UUID are told apart by it (and the same GPU seen by several processes is one).
  std::map<std::string, std::uint32_t> device_of_uuid;
  bool renumbered = false;
  // A loop launches the same few kernels 10^5 times: demangle and filter each name once.
  struct NameInfo {
    std::string name;
    bool kept;
  };
  std::unordered_map<std::string, NameInfo> names;
  std::size_t kernels = 0, memcpys = 0;
  for (const auto& c : captures) kernels += c.kernels.size(), memcpys += c.memcpys.size();
  t.kernels.reserve(kernels);  // 10^5 records: growing the vector would move each of them several times
  t.memcpys.reserve(memcpys);
  const bool in_ranges_only = t.run.capture_range == "cudaProfilerApi";
  std::size_t outside_kernels = 0, outside_copies = 0;  // launched outside every capture range
  for (const auto& c : captures) {
    t.run.process_ids.push_back(c.process.pid);
    t.processes.push_back(process_of(c, t.run.notes));
    const CaptureWindows windows = capture_windows(c, t.run.capture_ranges);
    auto in_range = [&](std::uint32_t correlation_id) {
      return !in_ranges_only || windows.contains(correlation_id);
    };
    if (in_ranges_only && windows.windows.empty() && (!c.kernels.empty() || !c.memcpys.empty())) {
      t.run.notes.push_back("process " + std::to_string(c.process.pid) +
                            " never called cudaProfilerStart: none of its " + std::to_string(c.kernels.size()) +
                            " kernel launches is in the trace");
    }
    if (!c.ended || c.torn_bytes > 0) {  // say why, so a partial trace is never a silent one
      t.partial = true;
      t.run.notes.push_back("process " + std::to_string(c.process.pid) +
                            (c.torn_bytes > 0 ? ": its last record was cut short (" + std::to_string(c.torn_bytes) +
                                                    " bytes): killed or crashed while writing"
                                              : ": no end record: it did not exit through exit() (killed, crashed, "
                                                "or left by _exit), so what it did last may be missing"));
    }
    t.dropped_records += c.dropped;
    for (const auto& note : c.notes)
      if (std::find(t.run.notes.begin(), t.run.notes.end(), note) == t.run.notes.end()) t.run.notes.push_back(note);
    std::map<std::uint32_t, std::uint32_t> device_ids;  // this process's ordinal -> the trace's device id
    for (const auto& d : c.devices) {
      Device dev;
      dev.id = d.record.id;
      dev.name = d.name;
      dev.compute_capability = std::to_string(d.record.cc_major) + "." + std::to_string(d.record.cc_minor);
      dev.sm_count = d.record.sm_count;
      dev.memory_bytes = d.record.memory_bytes;
      dev.host = c.host;
      for (const raw::DeviceIdentityRecord& id : c.device_identities) {
        if (id.id != dev.id) continue;
        dev.uuid = uuid_text(id.uuid);
        dev.pci_bus_id = pci_bus_id_text(id.pci_domain, id.pci_bus, id.pci_device);
      }
      if (!dev.uuid.empty()) {
        if (auto known = device_of_uuid.find(dev.uuid); known != device_of_uuid.end()) {
          dev.id = known->second;
        } else if (auto taken = devices.find(dev.id); taken != devices.end() && taken->second.uuid != dev.uuid) {
          dev.id = devices.rbegin()->first + 1;  // that ordinal is another GPU already: the next free id
        }
        device_of_uuid.emplace(dev.uuid, dev.id);
      }
      if (dev.id != d.record.id) renumbered = true;
      device_ids[d.record.id] = dev.id;
      devices.emplace(dev.id, dev);
    }
    auto device = [&](std::uint32_t ordinal) {
      auto it = device_ids.find(ordinal);
      return it == device_ids.end() ? ordinal : it->second;
    };
    const std::size_t first_kernel = t.kernels.size(), first_memcpy = t.memcpys.size(),
                      first_memset = t.memsets.size(), first_allocation = t.allocations.size();
    std::unordered_map<std::uint32_t, const raw::LaunchCallRecord*> calls;  // correlation id -> launch call
    calls.reserve(c.launch_calls.size());
    for (const raw::LaunchCallRecord& call : c.launch_calls) calls.emplace(call.correlation_id, &call);
    for (const auto& nk : c.kernels) {
      if (!in_range(nk.record.correlation_id)) {
        ++outside_kernels;
        continue;
      }
      auto it = names.find(nk.mangled_name);
      if (it == names.end()) {
        std::string name = demangle(nk.mangled_name);
        const bool kept = filter.keeps(name, nk.mangled_name);
        it = names.emplace(nk.mangled_name, NameInfo{std::move(name), kept}).first;
      }
      if (!it->second.kept) {
        ++t.filtered_kernels;
        continue;
      }
      Kernel& k = t.kernels.emplace_back(to_kernel(nk, it->second.name, c.process.pid));
      k.code_hash = code_hash_text(c.function_codes, nk.mangled_name);
      if (auto call = calls.find(k.correlation_id); call != calls.end()) {
        k.thread_id = call->second->thread_id;
        k.launch_ns = call->second->start_ns;
        k.launch_end_ns = std::max(call->second->end_ns, call->second->start_ns);
      }
    }
    for (const auto& r : c.memcpys) {
      if (!in_range(r.correlation_id)) {
        ++outside_copies;
        continue;
      }
      t.memcpys.push_back({memcpy_kind_name(r.copy_kind), r.bytes, r.start_ns, std::max(r.start_ns, r.end_ns),
                           r.device_id, r.context_id, r.stream_id, r.correlation_id});
    }
    for (const auto& r : c.memsets) {
      if (!in_range(r.correlation_id)) {
        ++outside_copies;
        continue;
      }
      t.memsets.push_back({r.bytes, r.value, r.start_ns, std::max(r.start_ns, r.end_ns), r.device_id, r.context_id,
                           r.stream_id, r.correlation_id});
    }
    if (t.run.mode != "accesses") add_allocations(c, t);  // access mode replays them with its launches
    for (std::size_t i = first_kernel; i < t.kernels.size(); ++i) t.kernels[i].device_id = device(t.kernels[i].device_id);
    for (std::size_t i = first_memcpy; i < t.memcpys.size(); ++i) t.memcpys[i].device_id = device(t.memcpys[i].device_id);
    for (std::size_t i = first_memset; i < t.memsets.size(); ++i) t.memsets[i].device_id = device(t.memsets[i].device_id);
    for (std::size_t i = first_allocation; i < t.allocations.size(); ++i)
      t.allocations[i].device_id = device(t.allocations[i].device_id);
    add_nvtx_ranges(c, t.nvtx_ranges);
    add_api_calls(c, t.api_calls);
    for (const auto& f : c.failed_launches) {
      if (!in_range(f.record.correlation_id)) continue;
      std::string kernel = demangle(f.kernel);
      if (!filter.keeps(kernel, f.kernel)) continue;
      t.failed_launches.push_back({f.api, kernel, f.record.status, f.record.correlation_id});
    }
  }
  for (auto& [id, d] : devices) t.devices.push_back(d);
  if (std::any_of(t.processes.begin(), t.processes.end(), [](const Process& p) {
        return p.clock_start && p.clock_start->clock == AnchorClock::kMonotonic;
      }))
    t.run.notes.push_back("clock anchors pair CLOCK_MONOTONIC with CLOCK_REALTIME (monotonic_ns): access mode's "
                          "records have no timestamps and the Compute Sanitizer API reads no GPU clock, so they say "
                          "only when each process ran, within uncertainty_ns, on its host's system clock");
  if (renumbered)
    t.run.notes.push_back("processes numbered their GPUs differently (CUDA_VISIBLE_DEVICES): devices are told apart by "
                          "UUID and renumbered; each device's uuid says which GPU it is");
  std::stable_sort(t.processes.begin(), t.processes.end(), [](const Process& a, const Process& b) { return a.id < b.id; });
  auto by_start = [](auto& records) {  // CUPTI delivers them nearly in order; sort only when needed
    auto earlier = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
    if (!std::is_sorted(records.begin(), records.end(), earlier))
      std::stable_sort(records.begin(), records.end(), earlier);
  };
  by_start(t.kernels);
  by_start(t.memcpys);
  by_start(t.memsets);
  by_start(t.nvtx_ranges);
  by_start(t.api_calls);
  if (t.filtered_kernels > 0)
    t.run.notes.push_back("--kernel '" + filter.pattern() + "' left out " + std::to_string(t.filtered_kernels) +
                          " kernel launches");
  if (in_ranges_only) {
    t.run.notes.push_back("--capture-range cudaProfilerApi left out " + std::to_string(outside_kernels) +
                          " kernel launches and " + std::to_string(outside_copies) +
                          " copies and sets launched outside the cudaProfilerStart/Stop ranges (" +
                          std::to_string(t.run.capture_ranges.size()) + " in run.capture_ranges)");
    t.filtered_kernels += outside_kernels;
  }
  if (t.dropped_records > 0)
    t.run.notes.push_back(std::to_string(t.dropped_records) + " activity records were dropped by the tracer");
  return t;
}

}  // namespace vtools::vtrace
