#include "tools/vtrace/trace_merge.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>

#include "libcommon/error.hpp"

namespace vtools::vtrace {

namespace {

[[noreturn]] void refuse(const std::string& input, const std::string& what) {
  throw Error(ExitCode::kDataError, what, SourceLocation{input});
}

// Differences of offsets in unsigned arithmetic: a crafted document's values cannot overflow a signed subtraction.
std::uint64_t distance(std::int64_t a, std::int64_t b) {
  const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
  return a > b ? ua - ub : ub - ua;
}

std::int64_t difference(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}

/// What every input must share with the first, else the merged trace would mix incomparable records.
void check_compatible(const MergeInput& first, const MergeInput& in) {
  const Trace &a = first.trace, &b = in.trace;
  // Launch mode's kernels have times and access mode's have accesses: one document holds one of the two.
  auto mode = [](const Trace& t) { return t.run.mode == "accesses" ? "an access-mode" : "a launch-mode"; };
  if (a.run.mode != b.run.mode)
    refuse(in.name, std::string(mode(b)) + " trace, but " + first.name + " is " + mode(a) +
                        " one: merge traces of one mode (all with --accesses, or none)");
  // A merge writes the current version: one of version-2 traces still merges with their siblings (same vtrace).
  if (a.format_version != b.format_version && a.merged_from.empty() && b.merged_from.empty())
    refuse(in.name, "a version " + std::to_string(b.format_version) + " vtools.trace document, but " + first.name +
                        " is version " + std::to_string(a.format_version) + ": merge traces written by one vtrace");
  if (a.run.tool_version != b.run.tool_version)
    refuse(in.name, "written by vtrace " + b.run.tool_version + ", but " + first.name + " by vtrace " +
                        a.run.tool_version + ": merge traces written by one vtrace (trace every host with the same build)");
}

/// Access mode's records have no timestamps: nothing to put on one clock (each process's CLOCK_MONOTONIC anchors stay
/// as they are, and say when it ran on its host's system clock).
bool has_timestamps(const Trace& t) { return t.run.mode != "accesses"; }

/// `t + shift`, refusing a timestamp the shift would take below 0 (a broken anchor).
std::uint64_t shifted(std::uint64_t t, std::int64_t shift, const std::string& input) {
  std::int64_t x = 0;
  if (t > static_cast<std::uint64_t>(INT64_MAX) || __builtin_add_overflow(static_cast<std::int64_t>(t), shift, &x) ||
      x < 0)
    refuse(input, "its clock anchor would move timestamp " + std::to_string(t) + " out of range (shift " +
                      std::to_string(shift) + " ns)");
  return static_cast<std::uint64_t>(x);
}

/// The same for a field where 0 means "not recorded" (a launch call's or an open range's end): 0 stays 0.
std::uint64_t shifted_or_none(std::uint64_t t, std::int64_t shift, const std::string& input) {
  return t == 0 ? 0 : shifted(t, shift, input);
}

/// Id maps of one input onto the merged trace.
struct Renumbering {
  std::map<std::uint32_t, std::uint32_t> devices;
  std::map<std::int64_t, std::int64_t> processes;
  std::uint64_t allocation_base = 0;
  std::int64_t shift_ns = 0;
};

/// The merged id of each device of `in`: the same device (host and UUID) seen in an earlier input keeps that one's
/// id; otherwise its own id when still free, else the next free one.
void renumber_devices(const Trace& in, Trace& out, Renumbering& map) {
  auto used = [&](std::uint32_t id) {
    return std::any_of(out.devices.begin(), out.devices.end(), [&](const Device& d) { return d.id == id; });
  };
  for (const Device& d : in.devices) {
    auto same = std::find_if(out.devices.begin(), out.devices.end(), [&](const Device& o) {
      return !d.uuid.empty() && o.uuid == d.uuid && o.host == d.host;
    });
    if (same != out.devices.end()) {
      map.devices[d.id] = same->id;
      continue;
    }
    std::uint32_t id = d.id;
    while (used(id)) ++id;
    map.devices[d.id] = id;
    Device copy = d;
    copy.id = id;
    out.devices.push_back(std::move(copy));
  }
}

std::uint32_t device_of(const Renumbering& map, std::uint32_t id) {
  auto it = map.devices.find(id);
  return it == map.devices.end() ? id : it->second;  // a record of a device without a device record keeps its id
}

std::int64_t process_of(const Renumbering& map, std::int64_t id) {
  auto it = map.processes.find(id);
  return it == map.processes.end() ? id : it->second;
}

std::int64_t allocation_of(const Renumbering& map, std::int64_t id) {
  return id < 0 ? id : id + static_cast<std::int64_t>(map.allocation_base);
}

/// Access mode's records of one input, with its processes and allocations renumbered as the merged trace numbers
/// them (a kernel's launch index stays: it counts within its process, which the record names).
void add_access_records(Trace& t, const Renumbering& map, Trace& out) {
  for (Access& a : t.accesses) {
    a.process_id = process_of(map, a.process_id);
    a.allocation = allocation_of(map, a.allocation);
    out.accesses.push_back(std::move(a));
  }
  for (Finding& f : t.findings) {
    f.process_id = process_of(map, f.process_id);
    f.allocation = allocation_of(map, f.allocation);
    out.findings.push_back(std::move(f));
  }
  for (FindingSite& s : t.finding_sites) {
    s.process_id = process_of(map, s.process_id);
    out.finding_sites.push_back(std::move(s));
  }
  for (HotLine& h : t.hot_lines) {
    h.process_id = process_of(map, h.process_id);
    out.hot_lines.push_back(std::move(h));
  }
  out.findings_total += t.findings_total;
  out.hot_lines_dropped_requests += t.hot_lines_dropped_requests;
  for (std::string& name : t.tma_kernels)
    if (std::find(out.tma_kernels.begin(), out.tma_kernels.end(), name) == out.tma_kernels.end())
      out.tma_kernels.push_back(std::move(name));
}

}  // namespace

std::optional<TraceClock> trace_clock(const Trace& t) {
  // Only CUPTI anchors map the trace's timestamps (access mode's CLOCK_MONOTONIC ones only say when a process ran).
  auto cupti = [](const std::optional<ClockAnchor>& a) { return a && a->clock == AnchorClock::kCupti; };
  const auto first =
      std::find_if(t.processes.begin(), t.processes.end(), [&](const Process& p) { return cupti(p.clock_start); });
  if (first == t.processes.end()) return std::nullopt;
  TraceClock c{first->clock_start->offset_ns(), first->clock_start->uncertainty_ns};
  std::uint64_t spread = 0;  // one host's processes share its CUPTI clock: what they disagree by is error
  for (const Process& p : t.processes) {
    for (const auto* a : {&p.clock_start, &p.clock_end})
      if (cupti(*a)) spread = std::max(spread, distance((*a)->offset_ns(), c.offset_ns) + (*a)->uncertainty_ns);
  }
  c.uncertainty_ns = std::max(c.uncertainty_ns, spread);
  return c;
}

Trace merge_traces(std::vector<MergeInput> inputs) {
  if (inputs.size() < 2) throw Error(ExitCode::kUsage, "merge: name at least two traces");
  std::vector<TraceClock> clocks;
  for (const MergeInput& in : inputs) {
    check_compatible(inputs.front(), in);
    if (!has_timestamps(in.trace)) {
      clocks.push_back({});
      continue;
    }
    const auto clock = trace_clock(in.trace);
    if (!clock)
      refuse(in.name, "no process has a clock anchor (a trace from before vtrace recorded them, or one where no "
                      "process initialised CUDA): it cannot be put on a common clock");
    clocks.push_back(*clock);
  }
  // The same process twice (a file given twice, a trace merged again), or one rank in two inputs.
  std::map<std::tuple<std::string, std::int64_t, std::uint64_t>, std::string> seen_processes;
  std::map<std::int64_t, std::string> seen_ranks;
  for (const MergeInput& in : inputs) {
    std::set<std::int64_t> ranks_here;
    for (const Process& p : in.trace.processes) {
      const auto key = std::make_tuple(p.host, p.pid, p.clock_start ? p.clock_start->realtime_ns : 0);
      if (auto [it, fresh] = seen_processes.try_emplace(key, in.name); !fresh)
        refuse(in.name, "process " + std::to_string(p.pid) + (p.host.empty() ? "" : " on " + p.host) +
                            " is also in " + it->second + " (the same trace given twice?)");
      if (p.rank < 0 || !ranks_here.insert(p.rank).second) continue;
      if (auto [it, fresh] = seen_ranks.try_emplace(p.rank, in.name); !fresh)
        refuse(in.name, "rank " + std::to_string(p.rank) + " is also in " + it->second +
                            ": merge one trace per rank or host of one job");
    }
  }

  Trace out;
  out.format_version = inputs.front().trace.format_version;
  out.run = inputs.front().trace.run;
  out.run.notes.clear();
  out.run.process_ids.clear();
  out.run.capture_ranges.clear();
  std::set<std::string> hosts;
  std::uint64_t worst = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Trace& t = inputs[i].trace;
    const std::string& name = inputs[i].name;
    Renumbering map;
    map.shift_ns = difference(clocks[i].offset_ns, clocks.front().offset_ns);
    map.allocation_base = out.allocations.size();
    renumber_devices(t, out, map);
    for (Process p : t.processes) {
      std::int64_t id = p.id;
      auto taken = [&](std::int64_t x) {
        return std::any_of(out.processes.begin(), out.processes.end(), [&](const Process& o) { return o.id == x; });
      };
      if (taken(id)) id = (static_cast<std::int64_t>(i) << 32) | (p.pid & 0xffffffff);
      while (taken(id)) ++id;
      map.processes[p.id] = id;
      p.id = id;
      for (auto* a : {&p.clock_start, &p.clock_end})  // the anchors stay true of the merged timeline
        if (*a && (*a)->clock == AnchorClock::kCupti) (*a)->clock_ns = shifted((*a)->clock_ns, map.shift_ns, name);
      if (!p.host.empty()) hosts.insert(p.host);
      out.processes.push_back(std::move(p));
    }
    for (std::int64_t pid : t.run.process_ids) out.run.process_ids.push_back(process_of(map, pid));
    for (Kernel& k : t.kernels) {
      k.device_id = device_of(map, k.device_id);
      k.process_id = process_of(map, k.process_id);
      k.start_ns = shifted(k.start_ns, map.shift_ns, name);
      k.end_ns = shifted(k.end_ns, map.shift_ns, name);
      if (k.launch_ns) k.launch_ns = shifted(*k.launch_ns, map.shift_ns, name);
      k.launch_end_ns = shifted_or_none(k.launch_end_ns, map.shift_ns, name);
      out.kernels.push_back(std::move(k));
    }
    for (Memcpy& m : t.memcpys) {
      m.device_id = device_of(map, m.device_id);
      m.start_ns = shifted(m.start_ns, map.shift_ns, name);
      m.end_ns = shifted(m.end_ns, map.shift_ns, name);
      out.memcpys.push_back(std::move(m));
    }
    for (Memset& m : t.memsets) {
      m.device_id = device_of(map, m.device_id);
      m.start_ns = shifted(m.start_ns, map.shift_ns, name);
      m.end_ns = shifted(m.end_ns, map.shift_ns, name);
      out.memsets.push_back(std::move(m));
    }
    for (Allocation& a : t.allocations) {
      a.id += map.allocation_base;
      a.device_id = device_of(map, a.device_id);
      a.allocated_ns = shifted(a.allocated_ns, map.shift_ns, name);
      if (a.freed_ns) a.freed_ns = shifted(*a.freed_ns, map.shift_ns, name);
      out.allocations.push_back(std::move(a));
    }
    for (FailedLaunch& f : t.failed_launches) out.failed_launches.push_back(std::move(f));
    add_access_records(t, map, out);
    for (NvtxRange& r : t.nvtx_ranges) {
      r.process_id = process_of(map, r.process_id);
      r.start_ns = shifted(r.start_ns, map.shift_ns, name);
      r.end_ns = shifted_or_none(r.end_ns, map.shift_ns, name);
      out.nvtx_ranges.push_back(std::move(r));
    }
    for (ApiCall& a : t.api_calls) {
      a.process_id = process_of(map, a.process_id);
      a.start_ns = shifted(a.start_ns, map.shift_ns, name);
      a.end_ns = shifted(a.end_ns, map.shift_ns, name);
      out.api_calls.push_back(std::move(a));
    }
    for (CaptureRange c : t.run.capture_ranges) {
      c.process_id = process_of(map, c.process_id);
      c.start_ns = shifted(c.start_ns, map.shift_ns, name);
      c.end_ns = shifted_or_none(c.end_ns, map.shift_ns, name);
      out.run.capture_ranges.push_back(c);
    }
    for (const std::string& n : t.run.notes) out.run.notes.push_back(name + ": " + n);
    // A merged input brings its own sources, moved by this input's shift.
    if (t.merged_from.empty()) {
      out.merged_from.push_back({name, t.run.host, t.run.start_time, t.run.command, map.shift_ns,
                                 clocks[i].uncertainty_ns});
    } else {
      for (MergeSource m : t.merged_from) {
        m.shift_ns = static_cast<std::int64_t>(static_cast<std::uint64_t>(m.shift_ns) +
                                               static_cast<std::uint64_t>(map.shift_ns));
        m.uncertainty_ns += clocks[i].uncertainty_ns;
        out.merged_from.push_back(std::move(m));
      }
    }
    worst = std::max(worst, clocks[i].uncertainty_ns);
    if (out.run.exit_status == 0) out.run.exit_status = t.run.exit_status, out.run.signal = t.run.signal;
    if (t.run.start_time < out.run.start_time) out.run.start_time = t.run.start_time;
    out.run.duration_ns = std::max(out.run.duration_ns, t.run.duration_ns);
    out.run.nvtx = out.run.nvtx && t.run.nvtx;
    if (t.run.capture_range != out.run.capture_range) out.run.capture_range = "none";
    out.partial = out.partial || t.partial;
    out.dropped_records += t.dropped_records;
    out.filtered_kernels += t.filtered_kernels;
  }
  out.run.host.clear();
  for (const std::string& h : hosts) out.run.host += (out.run.host.empty() ? "" : ",") + h;
  if (has_timestamps(out))
    out.run.notes.push_back("merged " + std::to_string(inputs.size()) + " traces on the clock of " +
                            inputs.front().name + "; each input's processes agree with its clock anchor within " +
                            std::to_string(worst) +
                            " ns (run.merged_from), and hosts line up only as well as their clocks (NTP/PTP) agree");
  else
    out.run.notes.push_back("merged " + std::to_string(inputs.size()) +
                            " access-mode traces: their records have no timestamps, so none was moved (shift_ns 0); "
                            "accesses, findings and hot lines name their process (process_id), and each process's "
                            "clock anchors say when it ran on its host's system clock");
  auto by_start = [](auto& records) {
    std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  };
  by_start(out.kernels);
  by_start(out.memcpys);
  by_start(out.memsets);
  by_start(out.nvtx_ranges);
  by_start(out.api_calls);
  std::stable_sort(out.processes.begin(), out.processes.end(), [](const Process& a, const Process& b) {
    return a.id < b.id;
  });
  std::stable_sort(out.devices.begin(), out.devices.end(), [](const Device& a, const Device& b) { return a.id < b.id; });
  return out;
}

}  // namespace vtools::vtrace
