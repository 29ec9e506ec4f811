#include "tools/vtrace/chrome_export.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "libcommon/human_units.hpp"
#include "formats/trace/trace_summary.hpp"

namespace vtools::vtrace {

namespace {

struct Clock {
  std::uint64_t origin_ns;
  [[nodiscard]] double us(std::uint64_t ns) const { return static_cast<double>(ns - origin_ns) / 1000.0; }
};

/// pid: a device (its stream as tid) or, for host ranges, a process (its thread as tid).
OrderedJson complete_event(const std::string& name, const char* category, std::int64_t pid, std::uint32_t tid,
                           std::uint64_t start_ns, std::uint64_t end_ns, const Clock& clock, OrderedJson args) {
  return OrderedJson{{"name", name},     {"cat", category},          {"ph", "X"},
                     {"pid", pid},       {"tid", tid},               {"ts", clock.us(start_ns)},
                     {"dur", static_cast<double>(end_ns - start_ns) / 1000.0}, {"args", std::move(args)}};
}

/// "rank 3 (node7)" for each process with a launcher rank ("rank 3" without a host).
std::map<std::int64_t, std::string> rank_labels(const Trace& t) {
  std::map<std::int64_t, std::string> labels;
  for (const Process& p : t.processes)
    if (p.rank >= 0)
      labels[p.id] = "rank " + std::to_string(p.rank) + (p.host.empty() ? "" : " (" + p.host + ")");
  return labels;
}

/// The host side, a process per traced process: per thread its NVTX ranges and marks, its blocking CUDA calls
/// (--api) and its kernel launch calls (--nvtx, --api), each launch with a flow arrow to its kernel; the
/// cudaProfilerStart/Stop ranges on a track of their own. A range that never ended runs to the last event.
/// `devices`: the ids of the Perfetto processes that are devices (chrome_trace's).
void add_host_ranges(const Trace& t, const Clock& clock, const std::set<std::uint32_t>& devices, OrderedJson& events) {
  std::uint64_t last_ns = clock.origin_ns;
  for (const auto& k : t.kernels) last_ns = std::max(last_ns, k.end_ns);
  for (const auto& m : t.memcpys) last_ns = std::max(last_ns, m.end_ns);
  for (const auto& m : t.memsets) last_ns = std::max(last_ns, m.end_ns);
  for (const auto& r : t.nvtx_ranges) last_ns = std::max({last_ns, r.start_ns, r.end_ns});
  for (const auto& r : t.run.capture_ranges) last_ns = std::max({last_ns, r.start_ns, r.end_ns});
  for (const auto& a : t.api_calls) last_ns = std::max(last_ns, a.end_ns);
  std::set<std::int64_t> processes;
  std::set<std::pair<std::int64_t, std::uint32_t>> threads;
  std::set<std::pair<std::int64_t, std::uint32_t>> nvtx_threads;
  for (const auto& r : t.nvtx_ranges) processes.insert(r.process_id), nvtx_threads.insert({r.process_id, r.thread_id});
  threads = nvtx_threads;
  for (const auto& r : t.run.capture_ranges) processes.insert(r.process_id), threads.insert({r.process_id, 0});
  for (const auto& a : t.api_calls) processes.insert(a.process_id), threads.insert({a.process_id, a.thread_id});
  for (const auto& k : t.kernels)
    if (k.launch_ns) processes.insert(k.process_id), threads.insert({k.process_id, k.thread_id});
  // Devices are the Perfetto processes numbered by device id; a host process whose pid is one of them (pid 1..7 in a
  // container with 8 GPUs) is moved past 2^32, where merged traces number their processes, its label keeping its pid.
  const auto host = [&](std::int64_t pid) {
    const bool device =
        pid >= 0 && pid <= std::numeric_limits<std::uint32_t>::max() && devices.count(static_cast<std::uint32_t>(pid));
    return device ? pid + (std::int64_t{1} << 32) : pid;
  };
  const std::map<std::int64_t, std::string> ranks = rank_labels(t);
  for (const std::int64_t pid : processes) {
    const auto rank = ranks.find(pid);
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", host(pid)},
                      {"args", {{"name", rank != ranks.end() ? rank->second + " host, process " + std::to_string(pid)
                                                             : "process " + std::to_string(pid) + " (host)"}}}});
  }
  for (const auto& [pid, tid] : threads) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", host(pid)}, {"tid", tid},
                      {"args", {{"name", tid == 0 ? std::string("cudaProfilerStart/Stop")
                                                  : "thread " + std::to_string(tid) +
                                                        (nvtx_threads.count({pid, tid}) ? " NVTX" : "")}}}});
  }
  for (const auto& a : t.api_calls)
    events.push_back(complete_event(a.name, "cuda_api", host(a.process_id), a.thread_id, a.start_ns, a.end_ns, clock,
                                    {{"correlation_id", a.correlation_id}}));
  // A launch call and its kernel: the call's slice on its thread, and a flow from it to the kernel (Perfetto draws
  // the arrow between the two slices; flow ids are the kernel's index, unique in the trace).
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    const Kernel& k = t.kernels[i];
    if (!k.launch_ns) continue;
    const std::uint64_t end = std::max(k.launch_end_ns, *k.launch_ns + 1);
    events.push_back(complete_event("launch", "launch", host(k.process_id), k.thread_id, *k.launch_ns, end, clock,
                                    {{"kernel", k.name}, {"correlation_id", k.correlation_id}}));
    events.push_back({{"name", "launch"}, {"cat", "launch"}, {"ph", "s"}, {"id", i}, {"pid", host(k.process_id)},
                      {"tid", k.thread_id}, {"ts", clock.us(*k.launch_ns)}});
    events.push_back({{"name", "launch"}, {"cat", "launch"}, {"ph", "f"}, {"bp", "e"}, {"id", i}, {"pid", k.device_id},
                      {"tid", k.stream_id}, {"ts", clock.us(k.start_ns)}});
  }
  for (const auto& r : t.nvtx_ranges) {
    OrderedJson args{{"domain", r.domain}};
    if (r.mark) {
      events.push_back({{"name", r.name}, {"cat", "nvtx"}, {"ph", "i"}, {"s", "t"}, {"pid", host(r.process_id)},
                        {"tid", r.thread_id}, {"ts", clock.us(r.start_ns)}, {"args", std::move(args)}});
      continue;
    }
    if (r.end_ns == 0) args["open"] = true;
    const std::uint64_t end = r.end_ns == 0 ? last_ns : r.end_ns;
    events.push_back(
        complete_event(r.name, "nvtx", host(r.process_id), r.thread_id, r.start_ns, end, clock, std::move(args)));
  }
  for (const auto& r : t.run.capture_ranges) {
    const std::uint64_t end = r.end_ns == 0 ? last_ns : r.end_ns;
    events.push_back(complete_event("capture range", "capture_range", host(r.process_id), 0, r.start_ns, end, clock,
                                    {{"open", r.end_ns == 0}}));
  }
}

}  // namespace

OrderedJson chrome_trace(const Trace& t) {
  std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
  for (const auto& k : t.kernels) origin = std::min(origin, k.start_ns);
  for (const auto& m : t.memcpys) origin = std::min(origin, m.start_ns);
  for (const auto& m : t.memsets) origin = std::min(origin, m.start_ns);
  for (const auto& r : t.nvtx_ranges) origin = std::min(origin, r.start_ns);
  for (const auto& r : t.run.capture_ranges) origin = std::min(origin, r.start_ns);
  for (const auto& a : t.api_calls) origin = std::min(origin, a.start_ns);
  for (const auto& k : t.kernels)
    if (k.launch_ns) origin = std::min(origin, *k.launch_ns);
  Clock clock{origin == std::numeric_limits<std::uint64_t>::max() ? 0 : origin};

  OrderedJson events = OrderedJson::array();
  std::map<std::uint32_t, std::string> device_names;
  for (const auto& d : t.devices) device_names[d.id] = d.name;
  std::set<std::pair<std::uint32_t, std::uint32_t>> streams;
  for (const auto& k : t.kernels) streams.insert({k.device_id, k.stream_id});
  for (const auto& m : t.memcpys) streams.insert({m.device_id, m.stream_id});
  for (const auto& m : t.memsets) streams.insert({m.device_id, m.stream_id});
  std::set<std::uint32_t> devices;
  for (const auto& [device, stream] : streams) devices.insert(device);
  // A distributed job: each device named after the rank whose kernels ran on it ("rank 1 (node3): GPU 1: H200").
  const std::map<std::int64_t, std::string> ranks = rank_labels(t);
  std::map<std::uint32_t, std::set<std::string>> device_ranks;
  for (const auto& k : t.kernels)
    if (auto r = ranks.find(k.process_id); r != ranks.end()) device_ranks[k.device_id].insert(r->second);
  for (auto device : devices) {
    std::string name = "GPU " + std::to_string(device);
    if (!device_names[device].empty()) name += ": " + device_names[device];
    if (device_ranks[device].size() == 1) name = *device_ranks[device].begin() + ": " + name;
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", device}, {"args", {{"name", name}}}});
  }
  for (const auto& [device, stream] : streams)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", device},
                      {"tid", stream},
                      {"args", {{"name", "stream " + std::to_string(stream)}}}});

  const std::vector<double> exposed = launch_exposed_ns(t);
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    const Kernel& k = t.kernels[i];
    events.push_back(complete_event(k.name, "kernel", k.device_id, k.stream_id, k.start_ns, k.end_ns, clock,
                                    {{"exposed_ns", exposed[i]},
                                     {"grid", k.grid},
                                     {"block", k.block},
                                     {"cluster", k.cluster},
                                     {"registers_per_thread", k.registers_per_thread},
                                     {"static_shared_bytes", k.static_shared_bytes},
                                     {"dynamic_shared_bytes", k.dynamic_shared_bytes},
                                     {"local_bytes_per_thread", k.local_bytes_per_thread},
                                     {"launch_type", k.launch_type},
                                     {"graph_id", k.graph_id},
                                     {"correlation_id", k.correlation_id},
                                     {"mangled_name", k.mangled_name}}));
  }
  for (const auto& m : t.memcpys)
    events.push_back(complete_event("memcpy " + m.kind + " " + format_bytes(m.bytes), "memcpy", m.device_id,
                                    m.stream_id, m.start_ns, m.end_ns, clock,
                                    {{"kind", m.kind}, {"bytes", m.bytes}, {"correlation_id", m.correlation_id}}));
  for (const auto& m : t.memsets)
    events.push_back(complete_event("memset " + format_bytes(m.bytes), "memset", m.device_id, m.stream_id,
                                    m.start_ns, m.end_ns, clock,
                                    {{"bytes", m.bytes}, {"value", m.value}, {"correlation_id", m.correlation_id}}));

  add_host_ranges(t, clock, devices, events);

  OrderedJson out;
  out["traceEvents"] = std::move(events);
  out["displayTimeUnit"] = "ns";
  out["otherData"] = {{"tool", "vtrace"},
                      {"command", t.run.command},
                      {"start_time", t.run.start_time},
                      {"origin_ns", clock.origin_ns},
                      {"partial", t.partial}};
  return out;
}

}  // namespace vtools::vtrace
