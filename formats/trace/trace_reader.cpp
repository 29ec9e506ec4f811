#include "formats/trace/trace_reader.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <string>
#include <vector>

#include "formats/trace/access_reader.hpp"
#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/field_reader.hpp"

namespace vtools::vtrace {

namespace {

using reader::AccessReader;
using reader::get_dim3;
using reader::kNoFields;

/// `end` (of field end_ns) is not before `start`; an `open` range may have no end (0, from null).
void check_end(const FieldReader& f, std::uint64_t start, std::uint64_t end, bool open = false) {
  if (end < start && !(open && end == 0))
    f.fail("end_ns", "expected at least start_ns (" + std::to_string(start) + "), got " + std::to_string(end));
}

/// One SharedName per distinct text: the launches of one kernel share their names (trace_model.hpp's Kernel).
class NameTable {
 public:
  /// The field `key`'s string (read as FieldReader::get reads it), shared with every equal one read before.
  SharedName get(const FieldReader& f, std::string_view key) {
    text_.clear();  // absent: ""
    f.get(key, text_);
    auto it = names_.find(text_);
    if (it == names_.end()) it = names_.emplace(text_, SharedName(text_)).first;
    return it->second;
  }

 private:
  std::string text_;
  std::unordered_map<std::string, SharedName> names_;
};

Kernel read_kernel(const FieldReader& f, NameTable& names) {
  // A kernel's times come as a pair (access mode writes 0 for both): one of them alone would read as a kernel that
  // ran from 0 ns, decades long.
  if (f.has("start_ns") != f.has("end_ns")) f.missing(f.has("start_ns") ? "end_ns" : "start_ns", "an integer");
  Kernel k;
  k.name = names.get(f, "name");
  k.mangled_name = names.get(f, "mangled_name");
  k.code_hash = names.get(f, "code_hash");  // absent before traces carried it
  f.get("device_id", k.device_id);
  f.get("context_id", k.context_id);
  f.get("stream_id", k.stream_id);
  f.get("correlation_id", k.correlation_id);
  f.get("process_id", k.process_id);
  get_dim3(f, "grid", k.grid);
  get_dim3(f, "block", k.block);
  get_dim3(f, "cluster", k.cluster);
  f.get("registers_per_thread", k.registers_per_thread);
  f.get("static_shared_bytes", k.static_shared_bytes);
  f.get("dynamic_shared_bytes", k.dynamic_shared_bytes);
  f.get("local_bytes_per_thread", k.local_bytes_per_thread);
  f.get("local_bytes_total", k.local_bytes_total);
  f.get("launch_type", k.launch_type);
  f.get("graph_id", k.graph_id);
  f.get("graph_node_id", k.graph_node_id);
  f.get("start_ns", k.start_ns);
  f.get("end_ns", k.end_ns);
  check_end(f, k.start_ns, k.end_ns);
  f.get("thread_id", k.thread_id);
  k.launch_ns = f.optional_integer<std::uint64_t>("launch_ns");  // null: not recorded
  f.get("launch_end_ns", k.launch_end_ns);
  if (k.launch_end_ns != 0 && k.launch_ns && k.launch_end_ns < *k.launch_ns)
    f.fail("launch_end_ns", "expected at least launch_ns (" + std::to_string(*k.launch_ns) + "), got " +
                                std::to_string(k.launch_end_ns));
  return k;
}

void read_source_frame(const FieldReader& f, SourceFrame& out) {
  f.get("file", out.file);
  f.get("line", out.line);
  f.get("column", out.column);
  f.get("function", out.function);
}

Finding read_finding(const FieldReader& f) {
  Finding x;
  f.get("kind", x.kind);
  f.get("kernel", x.kernel);
  f.get("process_id", x.process_id);
  f.get("launch", x.launch);
  get_dim3(f, "block", x.block);
  get_dim3(f, "thread", x.thread);
  f.get("pc_offset", x.pc_offset);
  f.get("address", x.address);
  f.get("size", x.size);
  f.get("operation", x.operation);
  f.get("allocation", x.allocation);
  f.get("distance", x.distance);
  f.get("argument", x.argument);
  f.get("argument_type", x.argument_type);
  if (const std::optional<FieldReader> s = f.object("source")) {  // absent (or null) before traces carried it
    SourceLine line;
    read_source_frame(*s, line);
    s->for_each("inlined_at", [&](const FieldReader& frame) {
      SourceFrame at;
      read_source_frame(frame, at);
      line.inlined_at.push_back(std::move(at));
    });
    s->get("text", line.text);
    x.source = std::move(line);
  }
  f.get("sass", x.sass);
  f.get("source_note", x.source_note);
  return x;
}

Device read_device(const FieldReader& f) {
  Device d;
  f.get("id", d.id);
  f.get("name", d.name);
  f.get("uuid", d.uuid);  // absent before traces carried ranks
  f.get("pci_bus_id", d.pci_bus_id);
  f.get("host", d.host);
  f.get("compute_capability", d.compute_capability);
  f.get("sm_count", d.sm_count);
  f.get("memory_bytes", d.memory_bytes);
  return d;
}

std::optional<ClockAnchor> read_clock_anchor(const FieldReader& f, const std::string& key) {
  const std::optional<FieldReader> a = f.object(key);
  if (!a) return std::nullopt;
  ClockAnchor x;
  a->get("cupti_ns", x.clock_ns);
  if (a->has("monotonic_ns")) {  // access mode's anchor: CLOCK_MONOTONIC, not CUPTI's clock
    a->get("monotonic_ns", x.clock_ns);
    x.clock = AnchorClock::kMonotonic;
  }
  a->get("realtime_ns", x.realtime_ns);
  a->get("uncertainty_ns", x.uncertainty_ns);
  return x;
}

Process read_process(const FieldReader& f) {
  Process p;
  f.get("id", p.id);
  f.get("pid", p.pid);
  f.get("host", p.host);
  p.rank = f.integer<std::int64_t>("rank", p.rank, 0);  // null: the launcher did not say (-1)
  p.local_rank = f.integer<std::int64_t>("local_rank", p.local_rank, 0);
  p.world_size = f.integer<std::int64_t>("world_size", p.world_size, 0);
  f.get("launcher", p.launcher);
  p.clock_start = read_clock_anchor(f, "clock_start");
  p.clock_end = read_clock_anchor(f, "clock_end");
  return p;
}

MergeSource read_merge_source(const FieldReader& f) {
  MergeSource m;
  f.get("name", m.name);
  f.get("host", m.host);
  f.get("start_time", m.start_time);
  m.command = f.strings("command");
  f.get("shift_ns", m.shift_ns);
  f.get("uncertainty_ns", m.uncertainty_ns);
  return m;
}

Allocation read_allocation(const FieldReader& f) {
  Allocation a;
  f.get("id", a.id);
  f.get("address", a.address);
  f.get("size", a.size);
  f.get("name", a.name);
  f.get("memory_kind", a.memory_kind);
  f.get("device_id", a.device_id);
  f.get("allocated_ns", a.allocated_ns);
  a.freed_ns = f.optional_integer<std::uint64_t>("freed_ns");  // null: not freed
  return a;
}

FailedLaunch read_failed_launch(const FieldReader& f) {
  FailedLaunch x;
  f.get("api", x.api);
  f.get("kernel", x.kernel);
  f.get("status", x.status);
  f.get("correlation_id", x.correlation_id);
  return x;
}

NvtxRange read_nvtx_range(const FieldReader& f) {
  NvtxRange x;
  f.get("name", x.name);
  f.get("domain", x.domain);
  f.get("process_id", x.process_id);
  f.get("thread_id", x.thread_id);
  f.get("start_ns", x.start_ns);
  f.get("end_ns", x.end_ns);  // null: never ended
  f.get("mark", x.mark);
  check_end(f, x.start_ns, x.end_ns, /*open=*/true);
  return x;
}

ApiCall read_api_call(const FieldReader& f) {
  ApiCall x;
  f.get("name", x.name);
  f.get("process_id", x.process_id);
  f.get("thread_id", x.thread_id);
  f.get("start_ns", x.start_ns);
  f.get("end_ns", x.end_ns);
  f.get("correlation_id", x.correlation_id);
  check_end(f, x.start_ns, x.end_ns, /*open=*/false);
  return x;
}

FindingSite read_finding_site(const FieldReader& f) {
  FindingSite s;
  f.get("kernel", s.kernel);
  f.get("process_id", s.process_id);
  f.get("pc_offset", s.pc_offset);
  f.get("operation", s.operation);
  f.get("count", s.count);
  f.get("listed", s.listed);
  return s;
}

HotLine read_hot_line(const FieldReader& f) {
  HotLine h;
  f.get("kernel", h.kernel);
  f.get("process_id", h.process_id);
  f.get("file", h.file);  // null: an instruction row
  if (!h.file.empty()) {
    h.line = f.integer<std::uint32_t>("line", 0, 1);
    if (h.line == 0) f.fail("line", "missing, expected an integer from 1 to 4294967295 where file is given");
  }
  f.get("function", h.function);
  f.get("text", h.text);
  f.get("pcs", h.pcs);
  f.get("pc_offset", h.pc_offset);
  f.get("sass", h.sass);
  f.get("note", h.note);
  f.get("loads", h.loads);
  f.get("stores", h.stores);
  f.get("atomics", h.atomics);
  f.get("bytes_loaded", h.bytes_loaded);
  f.get("bytes_stored", h.bytes_stored);
  f.get("requests", h.requests);
  f.get("sectors", h.sectors);
  f.get("lanes", h.lanes);
  f.get("bulk_copies", h.bulk_copies);
  f.get("findings", h.findings);
  return h;  // the per-request averages are derived from the sums
}

/// The fields memcpy and memset records share: when (start/end ns) and where (device, context, stream), and the
/// correlation id that ties them to their API call.
template <typename Activity>
void read_activity_placement(const FieldReader& f, Activity& a) {
  f.get("start_ns", a.start_ns);
  f.get("end_ns", a.end_ns);
  f.get("device_id", a.device_id);
  f.get("context_id", a.context_id);
  f.get("stream_id", a.stream_id);
  f.get("correlation_id", a.correlation_id);
}

Memcpy read_memcpy(const FieldReader& f) {
  Memcpy m;
  f.get("kind", m.kind);
  f.get("bytes", m.bytes);
  read_activity_placement(f, m);
  return m;
}

Memset read_memset(const FieldReader& f) {
  Memset m;
  f.get("bytes", m.bytes);
  f.get("value", m.value);
  read_activity_placement(f, m);
  return m;
}

/// A document from before access rows, findings and hot lines named their process (process_id 0): where the trace
/// has one process, they are all its own.
void attribute_to_only_process(Trace& t) {
  std::int64_t only = 0;
  if (t.processes.size() == 1) only = t.processes.front().id;
  else if (t.processes.empty() && t.run.process_ids.size() == 1) only = t.run.process_ids.front();
  if (only == 0) return;
  auto fill = [&](auto& records) {
    for (auto& r : records)
      if (r.process_id == 0) r.process_id = only;
  };
  fill(t.accesses);
  fill(t.findings);
  fill(t.finding_sites);
  fill(t.hot_lines);
}

/// Parses the document with `parse` (over a text in memory or read in passes), which hands each record to the
/// ElementReader it is given.
Trace read_trace_with(std::string_view name, const std::function<OrderedJson(const ElementReader&)>& parse) {
  Trace t;
  // Records are read as the parser reaches them, one at a time (a 10^6-launch trace is never one tree).
  AccessReader accesses(t, name);
  NameTable kernel_names;
  using Reader = void (*)(const FieldReader&, Trace&);
  static const std::map<std::string, Reader, std::less<>> readers = {
      {"processes", [](const FieldReader& f, Trace& x) { x.processes.push_back(read_process(f)); }},
      {"devices", [](const FieldReader& f, Trace& x) { x.devices.push_back(read_device(f)); }},
      {"memcpys", [](const FieldReader& f, Trace& x) { x.memcpys.push_back(read_memcpy(f)); }},
      {"memsets", [](const FieldReader& f, Trace& x) { x.memsets.push_back(read_memset(f)); }},
      {"allocations", [](const FieldReader& f, Trace& x) { x.allocations.push_back(read_allocation(f)); }},
      {"failed_launches", [](const FieldReader& f, Trace& x) { x.failed_launches.push_back(read_failed_launch(f)); }},
      {"nvtx_ranges", [](const FieldReader& f, Trace& x) { x.nvtx_ranges.push_back(read_nvtx_range(f)); }},
      {"api_calls", [](const FieldReader& f, Trace& x) { x.api_calls.push_back(read_api_call(f)); }},
      {"findings", [](const FieldReader& f, Trace& x) { x.findings.push_back(read_finding(f)); }},
      {"finding_sites", [](const FieldReader& f, Trace& x) { x.finding_sites.push_back(read_finding_site(f)); }},
      {"hot_lines", [](const FieldReader& f, Trace& x) { x.hot_lines.push_back(read_hot_line(f)); }},
  };
  std::set<std::string, std::less<>> arrays_begun;  // a streamed array's key given twice: JSON tools keep the last
  auto element = [&](std::string_view key, std::size_t i, OrderedJson&& v) {
    // (two lists joined would double the records, silently; access_columns: AccessReader checks its names first)
    if (i == 0 && key != "access_columns" && !arrays_begun.emplace(key).second)
      FieldReader(kNoFields, "", name).fail(key, "given twice, expected once");
    if (accesses.element(key, i, v)) return;
    if (key == "tma_kernels") {
      if (!v.is_string()) FieldReader(kNoFields, "", name).expected(key, "a string", v, i);
      t.tma_kernels.push_back(v.get<std::string>());
      return;
    }
    if (key == "kernels") {
      t.kernels.push_back(read_kernel(FieldReader(v, key, i, name), kernel_names));
      return;
    }
    if (auto it = readers.find(key); it != readers.end()) it->second(FieldReader(v, key, i, name), t);
  };
  OrderedJson doc = parse(element);
  const FieldReader top(doc, "", name);
  top.get("version", t.format_version);
  const FieldReader r = top.required_object("run");
  (void)top.required_array("kernels");
  // What the parser streamed stays as an empty array; anything else under these keys is refused here.
  for (const auto& [key, reader] : readers) (void)top.array(key);
  for (const char* key : {"kernels", "accesses", "access_columns", "access_kernels", "tma_kernels"}) (void)top.array(key);
  accesses.finish();
  {
    t.run.command = r.strings("command");
    r.get("exit_status", t.run.exit_status);
    r.get("signal", t.run.signal);
    r.get("start_time", t.run.start_time);
    r.get("host", t.run.host);
    r.get("tool_version", t.run.tool_version);
    r.get("mode", t.run.mode);
    r.get("duration_ns", t.run.duration_ns);
    t.run.process_ids = r.integers<std::int64_t>("process_ids");
    t.run.notes = r.strings("notes");
    r.get("capture_range", t.run.capture_range);
    r.get("nvtx", t.run.nvtx);
    r.get("api", t.run.api);
    r.for_each("merged_from", [&](const FieldReader& f) { t.merged_from.push_back(read_merge_source(f)); });
    r.for_each("capture_ranges", [&](const FieldReader& f) {
      CaptureRange c;
      f.get("process_id", c.process_id);
      f.get("start_ns", c.start_ns);
      f.get("end_ns", c.end_ns);  // null: no stop came
      check_end(f, c.start_ns, c.end_ns, /*open=*/true);
      t.run.capture_ranges.push_back(c);
    });
  }
  // Documents from before finding_sites: every finding was listed.
  t.findings_total = t.findings.size();
  top.get("findings_total", t.findings_total);
  top.get("hot_lines_dropped_requests", t.hot_lines_dropped_requests);
  top.get("partial", t.partial);
  top.get("dropped_records", t.dropped_records);
  top.get("filtered_kernels", t.filtered_kernels);
  attribute_to_only_process(t);
  return t;
}

}  // namespace

Trace read_trace(std::string_view text, std::string_view name, const ReadProgress& passed) {
  return read_trace_with(name, [&](const ElementReader& element) {
    return parse_document_streamed(text, name, {kTraceFormat}, element, passed);
  });
}

Trace read_trace(const OpenText& open, std::string_view name) {
  return read_trace_with(name, [&](const ElementReader& element) {
    return parse_document_streamed(open, name, {kTraceFormat}, element);
  });
}

Trace read_trace(const InputText& input, std::string_view name) {
  if (input.compressed()) return read_trace([&] { return input.open(); }, name);
  return read_trace(input.text(), name, [&](std::size_t offset) { input.passed(offset); });
}

}  // namespace vtools::vtrace
