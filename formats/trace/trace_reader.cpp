#include "formats/trace/trace_reader.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"

namespace vtools::vtrace {

namespace {

/// One JSON object being read, with its path for messages.
class Fields {
 public:
  Fields(const OrderedJson& obj, std::string path, std::string_view file) : obj_(obj), path_(std::move(path)), file_(file) {
    if (!obj_.is_object()) fail("", "expected an object");
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    std::string where = path_;
    if (!key.empty()) where += (where.empty() ? "" : ".") + key;
    throw Error(ExitCode::kDataError, where + ": " + what, SourceLocation{std::string(file_)});
  }

  const OrderedJson* find(const std::string& key) const {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  template <class T>
  void get_uint(const std::string& key, T& out) const {
    if (const auto* v = find(key)) {
      if (!v->is_number_integer() || (!v->is_number_unsigned() && v->get<std::int64_t>() < 0))
        fail(key, "expected a non-negative integer");
      out = in_range<T>(key, *v);
    }
  }
  template <class T>
  void get_int(const std::string& key, T& out) const {
    if (const auto* v = find(key)) {
      if (!v->is_number_integer()) fail(key, "expected an integer");
      out = in_range<T>(key, *v);
    }
  }
  /// v (a JSON integer) as a T; a value T cannot hold is an error, not wrapped around.
  template <class T>
  T in_range(const std::string& key, const OrderedJson& v) const {
    const std::optional<T> x = json_integer<T>(v);
    if (!x) fail(key, v.dump() + " is out of range");
    return *x;
  }
  void get_double(const std::string& key, double& out) const {
    if (const auto* v = find(key)) {
      if (!v->is_number()) fail(key, "expected a number");
      out = v->get<double>();
    }
  }
  void get_string(const std::string& key, std::string& out) const {
    if (const auto* v = find(key)) {
      if (!v->is_string()) fail(key, "expected a string");
      out = v->get<std::string>();
    }
  }
  void get_bool(const std::string& key, bool& out) const {
    if (const auto* v = find(key)) {
      if (!v->is_boolean()) fail(key, "expected true or false");
      out = v->get<bool>();
    }
  }
  void get_dim3(const std::string& key, Dim3& out) const {
    if (const auto* v = find(key)) {
      if (!v->is_array() || v->size() != 3) fail(key, "expected an array of 3 integers");
      for (int i = 0; i < 3; ++i) {
        if (!(*v)[i].is_number_integer()) fail(key, "expected an array of 3 integers");
        out[i] = in_range<std::int64_t>(key, (*v)[i]);
      }
    }
  }
  void get_strings(const std::string& key, std::vector<std::string>& out) const {
    if (const auto* v = find(key)) {
      if (!v->is_array()) fail(key, "expected an array of strings");
      for (const auto& s : *v) {
        if (!s.is_string()) fail(key, "expected an array of strings");
        out.push_back(s.get<std::string>());
      }
    }
  }
  /// Calls `read(Fields)` for the object `key` when it is there and not null.
  template <class F>
  void get_object(const std::string& key, F read) const {
    if (const auto* v = find(key)) read(Fields(*v, path_.empty() ? key : path_ + "." + key, file_));
  }
  /// Calls `each(Fields)` for every object in the array `key`.
  template <class F>
  void for_each(const std::string& key, F each) const {
    const auto* v = find(key);
    if (!v) return;
    if (!v->is_array()) fail(key, "expected an array");
    std::string base = path_.empty() ? key : path_ + "." + key;
    for (std::size_t i = 0; i < v->size(); ++i) each(Fields((*v)[i], base + "[" + std::to_string(i) + "]", file_));
  }
  /// `end` (of field end_ns) is not before `start`; an `open` range may have no end (0, from null).
  void check_end(std::uint64_t start, std::uint64_t end, bool open = false) const {
    if (end < start && !(open && end == 0))
      fail("end_ns", "ends before it starts (start_ns " + std::to_string(start) + ")");
  }
  const std::string& path() const { return path_; }

 private:
  const OrderedJson& obj_;
  std::string path_;
  std::string_view file_;
};

Kernel read_kernel(const Fields& f) {
  Kernel k;
  f.get_string("name", k.name);
  f.get_string("mangled_name", k.mangled_name);
  f.get_string("code_hash", k.code_hash);  // absent before traces carried it
  f.get_uint("device_id", k.device_id);
  f.get_uint("context_id", k.context_id);
  f.get_uint("stream_id", k.stream_id);
  f.get_uint("correlation_id", k.correlation_id);
  f.get_int("process_id", k.process_id);
  f.get_dim3("grid", k.grid);
  f.get_dim3("block", k.block);
  f.get_dim3("cluster", k.cluster);
  f.get_uint("registers_per_thread", k.registers_per_thread);
  f.get_uint("static_shared_bytes", k.static_shared_bytes);
  f.get_uint("dynamic_shared_bytes", k.dynamic_shared_bytes);
  f.get_uint("local_bytes_per_thread", k.local_bytes_per_thread);
  f.get_uint("local_bytes_total", k.local_bytes_total);
  f.get_string("launch_type", k.launch_type);
  f.get_uint("graph_id", k.graph_id);
  f.get_uint("graph_node_id", k.graph_node_id);
  f.get_uint("start_ns", k.start_ns);
  f.get_uint("end_ns", k.end_ns);
  f.check_end(k.start_ns, k.end_ns);
  f.get_uint("thread_id", k.thread_id);
  f.get_uint("launch_ns", k.launch_ns);  // null: not recorded
  f.get_uint("launch_end_ns", k.launch_end_ns);
  if (k.launch_end_ns != 0 && k.launch_end_ns < k.launch_ns)
    f.fail("launch_end_ns", "ends before the launch call starts (launch_ns " + std::to_string(k.launch_ns) + ")");
  return k;
}

/// Version 2 names the kernel by `kernel_id` (returned in `id`) into access_kernels (`names`; null when not read
/// yet: the caller resolves it later); version 1 by name (`last`: the name of the record before, so that records of
/// one kernel share its copy).
Access read_access(const Fields& f, const std::vector<SharedName>* names, SharedName& last, std::uint64_t& id) {
  Access a;
  if (f.find("kernel_id")) {
    f.get_uint("kernel_id", id);
    if (names && id >= names->size())
      f.fail("kernel_id", "expected an index into access_kernels (" + std::to_string(names->size()) +
                              " names), got " + std::to_string(id));
    if (names) a.kernel = (*names)[id];
  } else {
    std::string kernel;
    f.get_string("kernel", kernel);
    if (last.str() != kernel) last = SharedName(std::move(kernel));
    a.kernel = last;
  }
  f.get_uint("launch", a.launch);
  f.get_dim3("block", a.block);
  f.get_int("allocation", a.allocation);
  f.get_int("argument", a.argument);
  f.get_string("argument_type", a.argument_type);
  if (const auto* r = f.find("ranges")) {
    if (!r->is_array()) f.fail("ranges", "expected an array of [lo, hi) pairs");
    for (const auto& p : *r) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() || !p[1].is_number_unsigned() ||
          p[1].get<std::uint64_t>() < p[0].get<std::uint64_t>())
        f.fail("ranges", "expected an array of [lo, hi) pairs with lo <= hi");
      a.ranges.push_back({p[0].get<std::uint64_t>(), p[1].get<std::uint64_t>()});
    }
  }
  f.get_bool("ranges_exact", a.ranges_exact);
  f.get_uint("ranges_merged", a.ranges_merged);
  f.get_uint("loads", a.loads);
  f.get_uint("stores", a.stores);
  f.get_uint("atomics", a.atomics);
  f.get_uint("bytes_loaded", a.bytes_loaded);
  f.get_uint("bytes_stored", a.bytes_stored);
  f.get_uint("bulk_copies", a.bulk_copies);
  f.get_double("sectors_per_request", a.sectors_per_request);
  f.get_double("active_lanes_per_request", a.active_lanes_per_request);
  return a;
}

void read_source_frame(const Fields& f, SourceFrame& out) {
  f.get_string("file", out.file);
  f.get_uint("line", out.line);
  f.get_uint("column", out.column);
  f.get_string("function", out.function);
}

Finding read_finding(const Fields& f) {
  Finding x;
  f.get_string("kind", x.kind);
  f.get_string("kernel", x.kernel);
  f.get_uint("launch", x.launch);
  f.get_dim3("block", x.block);
  f.get_dim3("thread", x.thread);
  f.get_uint("pc_offset", x.pc_offset);
  f.get_uint("address", x.address);
  f.get_uint("size", x.size);
  f.get_string("operation", x.operation);
  f.get_int("allocation", x.allocation);
  f.get_int("distance", x.distance);
  f.get_int("argument", x.argument);
  f.get_string("argument_type", x.argument_type);
  f.get_object("source", [&](const Fields& s) {  // absent (or null) before traces carried source lines
    SourceLine line;
    read_source_frame(s, line);
    s.for_each("inlined_at", [&](const Fields& frame) {
      SourceFrame at;
      read_source_frame(frame, at);
      line.inlined_at.push_back(std::move(at));
    });
    s.get_string("text", line.text);
    x.source = std::move(line);
  });
  f.get_string("sass", x.sass);
  f.get_string("source_note", x.source_note);
  return x;
}

Device read_device(const Fields& f) {
  Device d;
  f.get_uint("id", d.id);
  f.get_string("name", d.name);
  f.get_string("uuid", d.uuid);  // absent before traces carried ranks
  f.get_string("pci_bus_id", d.pci_bus_id);
  f.get_string("host", d.host);
  f.get_string("compute_capability", d.compute_capability);
  f.get_uint("sm_count", d.sm_count);
  f.get_uint("memory_bytes", d.memory_bytes);
  return d;
}

std::optional<ClockAnchor> read_clock_anchor(const Fields& f, const std::string& key) {
  std::optional<ClockAnchor> out;
  f.get_object(key, [&](const Fields& a) {
    ClockAnchor x;
    a.get_uint("cupti_ns", x.cupti_ns);
    a.get_int("realtime_ns", x.realtime_ns);
    a.get_uint("uncertainty_ns", x.uncertainty_ns);
    out = x;
  });
  return out;
}

Process read_process(const Fields& f) {
  Process p;
  f.get_int("id", p.id);
  f.get_int("pid", p.pid);
  f.get_string("host", p.host);
  f.get_uint("rank", p.rank);  // null: the launcher did not say (-1)
  f.get_uint("local_rank", p.local_rank);
  f.get_uint("world_size", p.world_size);
  f.get_string("launcher", p.launcher);
  p.clock_start = read_clock_anchor(f, "clock_start");
  p.clock_end = read_clock_anchor(f, "clock_end");
  return p;
}

MergeSource read_merge_source(const Fields& f) {
  MergeSource m;
  f.get_string("name", m.name);
  f.get_string("host", m.host);
  f.get_string("start_time", m.start_time);
  f.get_strings("command", m.command);
  f.get_int("shift_ns", m.shift_ns);
  f.get_uint("uncertainty_ns", m.uncertainty_ns);
  return m;
}

Allocation read_allocation(const Fields& f) {
  Allocation a;
  f.get_uint("id", a.id);
  f.get_uint("address", a.address);
  f.get_uint("size", a.size);
  f.get_string("name", a.name);
  f.get_string("memory_kind", a.memory_kind);
  f.get_uint("device_id", a.device_id);
  f.get_uint("allocated_ns", a.allocated_ns);
  std::uint64_t freed = 0;
  if (f.find("freed_ns")) {
    f.get_uint("freed_ns", freed);
    a.freed_ns = freed;
  }
  return a;
}

FailedLaunch read_failed_launch(const Fields& f) {
  FailedLaunch x;
  f.get_string("api", x.api);
  f.get_string("kernel", x.kernel);
  f.get_int("status", x.status);
  f.get_uint("correlation_id", x.correlation_id);
  return x;
}

NvtxRange read_nvtx_range(const Fields& f) {
  NvtxRange x;
  f.get_string("name", x.name);
  f.get_string("domain", x.domain);
  f.get_int("process_id", x.process_id);
  f.get_uint("thread_id", x.thread_id);
  f.get_uint("start_ns", x.start_ns);
  f.get_uint("end_ns", x.end_ns);  // null: never ended
  f.get_bool("mark", x.mark);
  f.check_end(x.start_ns, x.end_ns, /*open=*/true);
  return x;
}

ApiCall read_api_call(const Fields& f) {
  ApiCall x;
  f.get_string("name", x.name);
  f.get_int("process_id", x.process_id);
  f.get_uint("thread_id", x.thread_id);
  f.get_uint("start_ns", x.start_ns);
  f.get_uint("end_ns", x.end_ns);
  f.get_uint("correlation_id", x.correlation_id);
  f.check_end(x.start_ns, x.end_ns, /*open=*/false);
  return x;
}

FindingSite read_finding_site(const Fields& f) {
  FindingSite s;
  f.get_string("kernel", s.kernel);
  f.get_uint("pc_offset", s.pc_offset);
  f.get_string("operation", s.operation);
  f.get_uint("count", s.count);
  f.get_uint("listed", s.listed);
  return s;
}

/// The fields memcpy and memset records share: when (start/end ns) and where (device, context, stream), and the
/// correlation id that ties them to their API call.
template <typename Activity>
void read_activity_placement(const Fields& f, Activity& a) {
  f.get_uint("start_ns", a.start_ns);
  f.get_uint("end_ns", a.end_ns);
  f.get_uint("device_id", a.device_id);
  f.get_uint("context_id", a.context_id);
  f.get_uint("stream_id", a.stream_id);
  f.get_uint("correlation_id", a.correlation_id);
}

Memcpy read_memcpy(const Fields& f) {
  Memcpy m;
  f.get_string("kind", m.kind);
  f.get_uint("bytes", m.bytes);
  read_activity_placement(f, m);
  return m;
}

Memset read_memset(const Fields& f) {
  Memset m;
  f.get_uint("bytes", m.bytes);
  f.get_uint("value", m.value);
  read_activity_placement(f, m);
  return m;
}

}  // namespace

Trace read_trace(std::string_view text, std::string_view name) {
  Trace t;
  // Records are read as the parser reaches them, one at a time (a 10^6-launch trace is never one tree).
  std::vector<SharedName> access_kernels;
  bool access_kernels_seen = false;
  SharedName last_kernel;
  struct Unresolved {
    std::size_t access, index;
    std::uint64_t id;
  };
  std::vector<Unresolved> unresolved;  // kernel_ids read before access_kernels (not where vtrace writes it)
  using Reader = void (*)(const Fields&, Trace&);
  static const std::map<std::string, Reader, std::less<>> readers = {
      {"processes", [](const Fields& f, Trace& x) { x.processes.push_back(read_process(f)); }},
      {"devices", [](const Fields& f, Trace& x) { x.devices.push_back(read_device(f)); }},
      {"kernels", [](const Fields& f, Trace& x) { x.kernels.push_back(read_kernel(f)); }},
      {"memcpys", [](const Fields& f, Trace& x) { x.memcpys.push_back(read_memcpy(f)); }},
      {"memsets", [](const Fields& f, Trace& x) { x.memsets.push_back(read_memset(f)); }},
      {"allocations", [](const Fields& f, Trace& x) { x.allocations.push_back(read_allocation(f)); }},
      {"failed_launches", [](const Fields& f, Trace& x) { x.failed_launches.push_back(read_failed_launch(f)); }},
      {"nvtx_ranges", [](const Fields& f, Trace& x) { x.nvtx_ranges.push_back(read_nvtx_range(f)); }},
      {"api_calls", [](const Fields& f, Trace& x) { x.api_calls.push_back(read_api_call(f)); }},
      {"findings", [](const Fields& f, Trace& x) { x.findings.push_back(read_finding(f)); }},
      {"finding_sites", [](const Fields& f, Trace& x) { x.finding_sites.push_back(read_finding_site(f)); }},
  };
  auto element = [&](std::string_view key, std::size_t i, OrderedJson&& v) {
    const std::string path = std::string(key) + "[" + std::to_string(i) + "]";
    if (key == "access_kernels" || key == "tma_kernels") {
      if (!v.is_string())
        throw Error(ExitCode::kDataError, std::string(key) + ": expected an array of strings",
                    SourceLocation{std::string(name)});
      if (key == "tma_kernels") {
        t.tma_kernels.push_back(v.get<std::string>());
      } else {
        access_kernels.emplace_back(v.get<std::string>());
        access_kernels_seen = true;
      }
      return;
    }
    if (key == "accesses") {
      const Fields f(v, path, name);
      std::uint64_t id = 0;
      t.accesses.push_back(read_access(f, access_kernels_seen ? &access_kernels : nullptr, last_kernel, id));
      if (!access_kernels_seen && f.find("kernel_id")) unresolved.push_back({t.accesses.size() - 1, i, id});
      return;
    }
    if (auto it = readers.find(key); it != readers.end()) it->second(Fields(v, path, name), t);
  };
  OrderedJson doc = parse_document_streamed(text, name, {kTraceFormat}, element);
  Fields top(doc, "", name);
  top.get_int("version", t.format_version);
  if (!top.find("run")) top.fail("run", "missing (every vtools.trace document has a run object)");
  if (!top.find("kernels")) top.fail("kernels", "missing (every vtools.trace document has a kernels array)");
  // What the parser streamed stays as an empty array; anything else under these keys is refused here.
  for (const auto& [key, reader] : readers) top.for_each(key, [](const Fields&) {});
  for (const char* key : {"accesses", "access_kernels", "tma_kernels"}) top.for_each(key, [](const Fields&) {});
  for (const Unresolved& u : unresolved) {
    if (u.id >= access_kernels.size())
      Fields(OrderedJson::object(), "accesses[" + std::to_string(u.index) + "]", name)
          .fail("kernel_id", "expected an index into access_kernels (" + std::to_string(access_kernels.size()) +
                                 " names), got " + std::to_string(u.id));
    t.accesses[u.access].kernel = access_kernels[u.id];
  }
  {
    Fields r(*top.find("run"), "run", name);
    r.get_strings("command", t.run.command);
    r.get_int("exit_status", t.run.exit_status);
    r.get_int("signal", t.run.signal);
    r.get_string("start_time", t.run.start_time);
    r.get_string("host", t.run.host);
    r.get_string("tool_version", t.run.tool_version);
    r.get_string("mode", t.run.mode);
    r.get_uint("duration_ns", t.run.duration_ns);
    r.get_strings("notes", t.run.notes);
    r.get_string("capture_range", t.run.capture_range);
    r.get_bool("nvtx", t.run.nvtx);
    r.get_bool("api", t.run.api);
    r.for_each("merged_from", [&](const Fields& f) { t.merged_from.push_back(read_merge_source(f)); });
    r.for_each("capture_ranges", [&](const Fields& f) {
      CaptureRange c;
      f.get_int("process_id", c.process_id);
      f.get_uint("start_ns", c.start_ns);
      f.get_uint("end_ns", c.end_ns);  // null: no stop came
      f.check_end(c.start_ns, c.end_ns, /*open=*/true);
      t.run.capture_ranges.push_back(c);
    });
  }
  // Documents from before finding_sites: every finding was listed.
  t.findings_total = t.findings.size();
  top.get_uint("findings_total", t.findings_total);
  top.get_bool("partial", t.partial);
  top.get_uint("dropped_records", t.dropped_records);
  top.get_uint("filtered_kernels", t.filtered_kernels);
  return t;
}

}  // namespace vtools::vtrace
