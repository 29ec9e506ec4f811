#include "formats/trace/trace_writer.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "libcommon/json_writer.hpp"
#include "libcommon/parallel_tasks.hpp"

namespace vtools::vtrace {

namespace {

using Layout = JsonWriter::Layout;

/// `name`: `ns`, or null where 0 means "none" (a range that never ended).
void ns_or_null(JsonWriter& w, std::string_view name, std::uint64_t ns) {
  w.key(name);
  if (ns > 0) w.value(ns);
  else w.value(nullptr);
}

/// `name`: `ns`, or null where it was not recorded (0 is a time here: a launch call, a free).
void ns_or_null(JsonWriter& w, std::string_view name, const std::optional<std::uint64_t>& ns) {
  w.key(name);
  if (ns) w.value(*ns);
  else w.value(nullptr);
}

void write_run(JsonWriter& w, const RunInfo& r, const std::vector<MergeSource>& merged_from) {
  w.begin_object();
  w.key("command");
  w.begin_array();
  for (const auto& arg : r.command) w.value(arg);
  w.end_array();
  w.field("exit_status", r.exit_status);
  w.field("signal", r.signal);
  w.field("start_time", r.start_time);
  w.field("host", r.host);
  w.field("tool_version", r.tool_version);
  w.field("mode", r.mode);
  w.field("duration_ns", r.duration_ns);
  w.key("process_ids");
  w.begin_array();
  for (auto pid : r.process_ids) w.value(pid);
  w.end_array();
  w.key("notes");
  w.begin_array();
  for (const auto& n : r.notes) w.value(n);
  w.end_array();
  w.field("capture_range", r.capture_range);
  w.field("nvtx", r.nvtx);
  if (r.api) w.field("api", r.api);
  w.key("capture_ranges");
  w.begin_array();
  for (const CaptureRange& c : r.capture_ranges) {
    w.begin_object();
    w.field("process_id", c.process_id);
    w.field("start_ns", c.start_ns);
    ns_or_null(w, "end_ns", c.end_ns);  // null: no stop came
    w.end_object();
  }
  w.end_array();
  w.key("merged_from");  // vtrace merge: its inputs and the shift that put each on the merged clock
  w.begin_array();
  for (const MergeSource& m : merged_from) {
    w.begin_object();
    w.field("name", m.name);
    w.field("host", m.host);
    w.field("start_time", m.start_time);
    w.key("command");
    w.begin_array();
    for (const auto& arg : m.command) w.value(arg);
    w.end_array();
    w.field("shift_ns", m.shift_ns);
    w.field("uncertainty_ns", m.uncertainty_ns);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

/// `name`: n, or null where -1 means "not known" (a rank the launcher did not give).
void int_or_null(JsonWriter& w, std::string_view name, std::int64_t n) {
  w.key(name);
  if (n >= 0) w.value(n);
  else w.value(nullptr);
}

void write_clock_anchor(JsonWriter& w, std::string_view name, const std::optional<ClockAnchor>& a) {
  w.key(name);
  if (!a) {
    w.value(nullptr);
    return;
  }
  w.begin_object();
  w.field(a->clock == AnchorClock::kMonotonic ? "monotonic_ns" : "cupti_ns", a->clock_ns);
  w.field("realtime_ns", a->realtime_ns);
  w.field("uncertainty_ns", a->uncertainty_ns);
  w.end_object();
}

void write_process(JsonWriter& w, const Process& p) {
  w.begin_object();
  w.field("id", p.id);
  w.field("pid", p.pid);
  w.field("host", p.host);
  int_or_null(w, "rank", p.rank);
  int_or_null(w, "local_rank", p.local_rank);
  int_or_null(w, "world_size", p.world_size);
  w.field("launcher", p.launcher);
  write_clock_anchor(w, "clock_start", p.clock_start);
  write_clock_anchor(w, "clock_end", p.clock_end);
  w.end_object();
}

void write_device(JsonWriter& w, const Device& d) {
  w.begin_object();
  w.field("id", d.id);
  w.field("name", d.name);
  w.field("compute_capability", d.compute_capability);
  w.field("sm_count", d.sm_count);
  w.field("memory_bytes", d.memory_bytes);
  w.field("uuid", d.uuid);
  w.field("pci_bus_id", d.pci_bus_id);
  w.field("host", d.host);
  w.end_object();
}

void write_kernel(JsonWriter& w, const Kernel& k) {
  w.begin_object();
  w.field("name", k.name.str());
  w.field("mangled_name", k.mangled_name.str());
  w.field("code_hash", k.code_hash.str());
  w.field("device_id", k.device_id);
  w.field("context_id", k.context_id);
  w.field("stream_id", k.stream_id);
  w.field("correlation_id", k.correlation_id);
  w.field("process_id", k.process_id);
  w.field("grid", k.grid);
  w.field("block", k.block);
  w.field("cluster", k.cluster);
  w.field("registers_per_thread", k.registers_per_thread);
  w.field("static_shared_bytes", k.static_shared_bytes);
  w.field("dynamic_shared_bytes", k.dynamic_shared_bytes);
  w.field("local_bytes_per_thread", k.local_bytes_per_thread);
  w.field("local_bytes_total", k.local_bytes_total);
  w.field("launch_type", k.launch_type);
  w.field("graph_id", k.graph_id);
  w.field("graph_node_id", k.graph_node_id);
  w.field("start_ns", k.start_ns);
  w.field("end_ns", k.end_ns);
  w.field("thread_id", k.thread_id);
  ns_or_null(w, "launch_ns", k.launch_ns);
  if (k.launch_end_ns) w.field("launch_end_ns", k.launch_end_ns);
  w.end_object();
}

// Fields memcpys and memsets share after their own.
void write_copy_place(JsonWriter& w, std::uint64_t start_ns, std::uint64_t end_ns, std::uint32_t stream_id,
                      std::uint32_t device_id, std::uint32_t context_id, std::uint32_t correlation_id) {
  w.field("start_ns", start_ns);
  w.field("end_ns", end_ns);
  w.field("stream_id", stream_id);
  w.field("device_id", device_id);
  w.field("context_id", context_id);
  w.field("correlation_id", correlation_id);
}

void write_memcpy(JsonWriter& w, const Memcpy& m) {
  w.begin_object();
  w.field("kind", m.kind);
  w.field("bytes", m.bytes);
  write_copy_place(w, m.start_ns, m.end_ns, m.stream_id, m.device_id, m.context_id, m.correlation_id);
  w.end_object();
}

void write_memset(JsonWriter& w, const Memset& m) {
  w.begin_object();
  w.field("bytes", m.bytes);
  w.field("value", m.value);
  write_copy_place(w, m.start_ns, m.end_ns, m.stream_id, m.device_id, m.context_id, m.correlation_id);
  w.end_object();
}

void write_allocation(JsonWriter& w, const Allocation& a) {
  w.begin_object();
  w.field("id", a.id);
  w.field("address", a.address);
  w.field("size", a.size);
  w.field("name", a.name);
  w.field("memory_kind", a.memory_kind);
  w.field("device_id", a.device_id);
  w.field("allocated_ns", a.allocated_ns);
  ns_or_null(w, "freed_ns", a.freed_ns);
  w.end_object();
}

void write_failed_launch(JsonWriter& w, const FailedLaunch& f) {
  w.begin_object();
  w.field("api", f.api);
  w.field("kernel", f.kernel);
  w.field("status", f.status);
  w.field("correlation_id", f.correlation_id);
  w.end_object();
}

void write_api_call(JsonWriter& w, const ApiCall& a) {
  w.begin_object();
  w.field("name", a.name);
  w.field("process_id", a.process_id);
  w.field("thread_id", a.thread_id);
  w.field("start_ns", a.start_ns);
  w.field("end_ns", a.end_ns);
  w.field("correlation_id", a.correlation_id);
  w.end_object();
}

void write_nvtx_range(JsonWriter& w, const NvtxRange& r) {
  w.begin_object();
  w.field("name", r.name);
  w.field("domain", r.domain);
  w.field("process_id", r.process_id);
  w.field("thread_id", r.thread_id);
  w.field("start_ns", r.start_ns);
  ns_or_null(w, "end_ns", r.end_ns);
  w.field("mark", r.mark);
  w.end_object();
}

/// An access record is a row of these columns (access_columns in the document): a GPT-2 training step has ~2 M of
/// them, and as objects their keys were three quarters of a 714 MiB document. process_id came last (a row of the
/// first 17 is an older document's, read with its process unknown).
constexpr std::string_view kAccessColumns[] = {
    "kernel_id",    "launch",        "block",       "allocation",   "argument",
    "argument_type", "ranges",       "ranges_exact", "ranges_merged", "loads",
    "stores",       "atomics",       "bytes_loaded", "bytes_stored", "bulk_copies",
    "sectors_per_request", "active_lanes_per_request", "process_id"};

/// One row, formatted in one buffer without spaces: the writer's per-value path was most of the time spent writing
/// a training step's document.
void write_access(JsonWriter& w, const Access& a, std::uint32_t kernel_id) {
  thread_local std::string row;
  row.clear();
  row += '[';
  JsonWriter::append_integer(row, kernel_id);
  row += ',';
  JsonWriter::append_integer(row, a.launch);
  row += ",[";
  for (std::size_t i = 0; i < 3; ++i) {
    if (i) row += ',';
    JsonWriter::append_integer(row, a.block[i]);
  }
  row += "],";
  JsonWriter::append_integer(row, a.allocation);
  row += ',';
  JsonWriter::append_integer(row, a.argument);
  row += ',';
  JsonWriter::append_string(row, a.argument_type);
  row += ",[";
  for (std::size_t i = 0; i < a.ranges.size(); ++i) {
    row += i ? ",[" : "[";
    JsonWriter::append_integer(row, a.ranges[i][0]);
    row += ',';
    JsonWriter::append_integer(row, a.ranges[i][1]);
    row += ']';
  }
  row += a.ranges_exact ? "],true," : "],false,";
  for (std::uint64_t n : {a.ranges_merged, a.loads, a.stores, a.atomics, a.bytes_loaded, a.bytes_stored,
                          a.bulk_copies}) {
    JsonWriter::append_integer(row, n);
    row += ',';
  }
  JsonWriter::append_number(row, a.sectors_per_request);
  row += ',';
  JsonWriter::append_number(row, a.active_lanes_per_request);
  row += ',';
  JsonWriter::append_integer(row, a.process_id);
  row += ']';
  w.formatted(row);
}

void write_source_frame_fields(JsonWriter& w, const SourceFrame& f) {
  w.field("file", f.file);
  w.field("line", f.line);
  w.field("column", f.column);
  w.field("function", f.function);
}

/// {file, line, column, function, inlined_at: [{file, line, column, function}, ...]}, or null when unknown.
void write_source_line(JsonWriter& w, const std::optional<SourceLine>& s) {
  w.key("source");
  if (!s) {
    w.value(nullptr);
    return;
  }
  w.begin_object();
  write_source_frame_fields(w, *s);
  w.key("inlined_at");
  w.begin_array();
  for (const auto& frame : s->inlined_at) {
    w.begin_object();
    write_source_frame_fields(w, frame);
    w.end_object();
  }
  w.end_array();
  w.field("text", s->text);
  w.end_object();
}

void write_finding(JsonWriter& w, const Finding& f) {
  w.begin_object();
  w.field("kind", f.kind);
  w.field("kernel", f.kernel);
  w.field("process_id", f.process_id);
  w.field("launch", f.launch);
  w.field("block", f.block);
  w.field("thread", f.thread);
  w.field("pc_offset", f.pc_offset);
  w.field("address", f.address);
  w.field("size", f.size);
  w.field("operation", f.operation);
  w.field("allocation", f.allocation);
  w.field("distance", f.distance);
  w.field("argument", f.argument);
  w.field("argument_type", f.argument_type);
  write_source_line(w, f.source);
  w.field("sass", f.sass);
  w.field("source_note", f.source_note);
  w.end_object();
}

void write_finding_site(JsonWriter& w, const FindingSite& s) {
  w.begin_object();
  w.field("kernel", s.kernel);
  w.field("process_id", s.process_id);
  w.field("pc_offset", s.pc_offset);
  w.field("operation", s.operation);
  w.field("count", s.count);
  w.field("listed", s.listed);
  w.end_object();
}

/// A hot line; an instruction row (no line information) has file and line null.
void write_hot_line(JsonWriter& w, const HotLine& h) {
  w.begin_object();
  w.field("kernel", h.kernel);
  w.field("process_id", h.process_id);
  if (h.file.empty()) {
    w.key("file");
    w.value(nullptr);
    w.key("line");
    w.value(nullptr);
  } else {
    w.field("file", h.file);
    w.field("line", h.line);
  }
  w.field("function", h.function);
  w.field("text", h.text);
  w.field("pcs", h.pcs);
  w.field("pc_offset", h.pc_offset);
  w.field("sass", h.sass);
  w.field("note", h.note);
  w.field("loads", h.loads);
  w.field("stores", h.stores);
  w.field("atomics", h.atomics);
  w.field("bytes_loaded", h.bytes_loaded);
  w.field("bytes_stored", h.bytes_stored);
  w.field("requests", h.requests);
  w.field("sectors", h.sectors);
  w.field("lanes", h.lanes);
  w.field("bulk_copies", h.bulk_copies);
  w.field("sectors_per_request", h.sectors_per_request());
  w.field("active_lanes_per_request", h.active_lanes_per_request());
  w.field("findings", h.findings);
  w.end_object();
}

/// `name`: one element per line.
template <class T, class F>
void records(JsonWriter& w, std::string_view name, const std::vector<T>& items, F write_one) {
  w.key(name);
  w.begin_array(Layout::kLines);
  for (const auto& item : items) write_one(w, item);
  w.end_array();
}

/// The access records' kernel names, each once, and each record's index into them: a GPT-2 training step's 2 M block
/// records repeated names of ~470 characters, half of the document.
struct AccessKernels {
  std::vector<const std::string*> names;  ///< in order of first record
  std::vector<std::uint32_t> ids;         ///< per access record
};

AccessKernels access_kernels(const std::vector<Access>& accesses) {
  AccessKernels k;
  k.ids.reserve(accesses.size());
  std::unordered_map<std::string_view, std::uint32_t> by_name;
  const std::string* last = nullptr;  // records of one kernel share one copy of its name, and mostly come together
  std::uint32_t last_id = 0;
  for (const Access& a : accesses) {
    const std::string& name = a.kernel.str();
    if (&name != last) {
      auto [it, fresh] = by_name.try_emplace(name, static_cast<std::uint32_t>(k.names.size()));
      if (fresh) k.names.push_back(&name);
      last = &name;
      last_id = it->second;
    }
    k.ids.push_back(last_id);
  }
  return k;
}

/// `name`, formatted on up to 16 threads in blocks of records that are sent to `emit` in order as soon as each is
/// ready, after the writer's output so far (`out`): writing overlaps formatting, and only a few blocks are held at
/// once, in reused buffers (a 10^8-byte document is never joined, and no fresh memory is faulted in). A launch-bound
/// PyTorch loop leaves ~10^5 kernels, and the time spent here after the command exits is part of vtrace's overhead
/// (bench/vtrace_perftest).
template <class T, class F>
void records_in_parallel(JsonWriter& w, std::string& out, const Emit& emit, std::string_view name,
                         const std::vector<T>& items, F write_one) {
  constexpr std::size_t kBlock = 1024;  // records per block: ~1 MB of kernel lines
  const std::size_t blocks = (items.size() + kBlock - 1) / kBlock;
  const std::size_t threads = task_threads(blocks / 2);
  if (threads <= 1) return records(w, name, items, write_one);
  w.key(name);
  w.begin_array(Layout::kLines);
  const std::size_t slots = 2 * threads;  // block b is formatted into buffer b % slots once block b - slots is out
  std::vector<std::string> buffers(slots);
  std::vector<std::size_t> ready(slots, blocks);  // the block each buffer holds (blocks: none yet)
  std::size_t next = 0, emitted = 0;
  bool stop = false;
  std::mutex m;
  std::condition_variable cv;
  auto work = [&] {
    std::unique_lock lock(m);
    for (;;) {
      cv.wait(lock, [&] { return stop || next == blocks || next < emitted + slots; });
      if (stop || next == blocks) return;
      const std::size_t b = next++;
      lock.unlock();
      std::string& buffer = buffers[b % slots];
      buffer.clear();
      JsonWriter part(buffer, 2);  // elements of an array in the top-level object
      if (b > 0) buffer += ',';    // after the last element of block b - 1
      for (std::size_t i = b * kBlock; i < std::min(items.size(), (b + 1) * kBlock); ++i) write_one(part, items[i]);
      lock.lock();
      ready[b % slots] = b;
      cv.notify_all();
    }
  };
  std::vector<std::thread> workers;
  for (std::size_t i = 0; i < threads; ++i) workers.emplace_back(work);
  auto finish = [&] {
    {
      std::lock_guard lock(m);
      stop = true;
    }
    cv.notify_all();
    for (auto& t : workers) t.join();
  };
  try {
    w.before_elements();
    emit(out);
    out.clear();
    for (std::size_t b = 0; b < blocks; ++b) {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return ready[b % slots] == b; });
      lock.unlock();
      emit(buffers[b % slots]);
      lock.lock();
      ++emitted;
      cv.notify_all();
    }
  } catch (...) {
    finish();  // an output error: stop the workers before the error goes on
    throw;
  }
  finish();
  w.end_array();
}

/// Access mode's per-line view: hot_lines and the requests it could not place; nothing when there are none (a trace
/// made with VTRACE_ACCESS_PCS=0, or one read from a document without them), so such documents keep their bytes.
void write_hot_lines(JsonWriter& w, const Trace& t) {
  if (t.hot_lines.empty() && t.hot_lines_dropped_requests == 0) return;
  records(w, "hot_lines", t.hot_lines, write_hot_line);
  w.field("hot_lines_dropped_requests", t.hot_lines_dropped_requests);
}

}  // namespace

void write_trace_document(const Trace& t, const Emit& emit) {
  std::string out;
  JsonWriter w(out);
  w.begin_object(Layout::kLines);
  const OrderedJson envelope = new_document(kTraceFormat, "vtrace");
  for (const auto& [key, value] : envelope.items()) {
    w.key(key);
    w.value(value);
  }
  w.key("run");
  write_run(w, t.run, t.merged_from);
  records(w, "processes", t.processes, write_process);
  records(w, "devices", t.devices, write_device);
  records_in_parallel(w, out, emit, "kernels", t.kernels, write_kernel);
  records(w, "memcpys", t.memcpys, write_memcpy);
  records(w, "memsets", t.memsets, write_memset);
  records(w, "allocations", t.allocations, write_allocation);
  records(w, "failed_launches", t.failed_launches, write_failed_launch);
  records(w, "nvtx_ranges", t.nvtx_ranges, write_nvtx_range);
  if (t.run.api || !t.api_calls.empty()) records(w, "api_calls", t.api_calls, write_api_call);
  if (t.run.mode == "accesses") {
    const AccessKernels kernels = access_kernels(t.accesses);
    w.key("access_columns");
    w.begin_array();
    for (std::string_view column : kAccessColumns) w.value(column);
    w.end_array();
    w.key("access_kernels");
    w.begin_array(Layout::kLines);
    for (const std::string* name : kernels.names) w.value(*name);
    w.end_array();
    records_in_parallel(w, out, emit, "accesses", t.accesses, [&](JsonWriter& part, const Access& a) {
      write_access(part, a, kernels.ids[static_cast<std::size_t>(&a - t.accesses.data())]);
    });
    records(w, "findings", t.findings, write_finding);
    records(w, "finding_sites", t.finding_sites, write_finding_site);
    w.field("findings_total", t.findings_total);
    w.key("tma_kernels");
    w.begin_array(Layout::kLines);
    for (const auto& k : t.tma_kernels) w.value(k);
    w.end_array();
    write_hot_lines(w, t);
  }
  w.field("partial", t.partial);
  w.field("dropped_records", t.dropped_records);
  w.field("filtered_kernels", t.filtered_kernels);
  w.end_object();
  emit(out);
}

std::string trace_document_text(const Trace& t) {
  std::string text;
  text.reserve(4096 + t.kernels.size() * 1024 + t.accesses.size() * 256);
  write_trace_document(t, [&](std::string_view piece) { text += piece; });
  return text;
}

OrderedJson trace_to_document(const Trace& t) { return parse_json(trace_document_text(t), "trace"); }

}  // namespace vtools::vtrace
