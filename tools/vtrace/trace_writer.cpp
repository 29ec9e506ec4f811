#include "tools/vtrace/trace_writer.hpp"

namespace vtools::vtrace {

namespace {

OrderedJson dim3_json(const Dim3& d) { return OrderedJson::array({d[0], d[1], d[2]}); }

OrderedJson run_json(const RunInfo& r) {
  OrderedJson j;
  j["command"] = r.command;
  j["exit_status"] = r.exit_status;
  j["signal"] = r.signal;
  j["start_time"] = r.start_time;
  j["host"] = r.host;
  j["tool_version"] = r.tool_version;
  j["mode"] = r.mode;
  j["duration_ns"] = r.duration_ns;
  j["process_ids"] = r.process_ids;
  j["notes"] = r.notes;
  return j;
}

OrderedJson kernel_json(const Kernel& k) {
  OrderedJson j;
  j["name"] = k.name;
  j["mangled_name"] = k.mangled_name;
  j["device_id"] = k.device_id;
  j["context_id"] = k.context_id;
  j["stream_id"] = k.stream_id;
  j["correlation_id"] = k.correlation_id;
  j["process_id"] = k.process_id;
  j["grid"] = dim3_json(k.grid);
  j["block"] = dim3_json(k.block);
  j["cluster"] = dim3_json(k.cluster);
  j["registers_per_thread"] = k.registers_per_thread;
  j["static_shared_bytes"] = k.static_shared_bytes;
  j["dynamic_shared_bytes"] = k.dynamic_shared_bytes;
  j["local_bytes_per_thread"] = k.local_bytes_per_thread;
  j["local_bytes_total"] = k.local_bytes_total;
  j["launch_type"] = k.launch_type;
  j["graph_id"] = k.graph_id;
  j["graph_node_id"] = k.graph_node_id;
  j["start_ns"] = k.start_ns;
  j["end_ns"] = k.end_ns;
  return j;
}

OrderedJson memcpy_json(const Memcpy& m) {
  return OrderedJson{{"kind", m.kind},           {"bytes", m.bytes},         {"start_ns", m.start_ns},
                     {"end_ns", m.end_ns},       {"stream_id", m.stream_id}, {"device_id", m.device_id},
                     {"context_id", m.context_id}, {"correlation_id", m.correlation_id}};
}

OrderedJson memset_json(const Memset& m) {
  return OrderedJson{{"bytes", m.bytes},         {"value", m.value},         {"start_ns", m.start_ns},
                     {"end_ns", m.end_ns},       {"stream_id", m.stream_id}, {"device_id", m.device_id},
                     {"context_id", m.context_id}, {"correlation_id", m.correlation_id}};
}

OrderedJson allocation_json(const Allocation& a) {
  OrderedJson j{{"id", a.id},
                {"address", a.address},
                {"size", a.size},
                {"name", a.name},
                {"memory_kind", a.memory_kind},
                {"device_id", a.device_id},
                {"allocated_ns", a.allocated_ns}};
  j["freed_ns"] = a.freed_ns ? OrderedJson(*a.freed_ns) : OrderedJson(nullptr);
  return j;
}

OrderedJson access_json(const Access& a) {
  OrderedJson ranges = OrderedJson::array();
  for (const auto& r : a.ranges) ranges.push_back(OrderedJson::array({r[0], r[1]}));
  return OrderedJson{{"kernel", a.kernel},
                     {"launch", a.launch},
                     {"block", dim3_json(a.block)},
                     {"allocation", a.allocation},
                     {"argument", a.argument},
                     {"argument_type", a.argument_type},
                     {"ranges", ranges},
                     {"loads", a.loads},
                     {"stores", a.stores},
                     {"atomics", a.atomics},
                     {"bytes_loaded", a.bytes_loaded},
                     {"bytes_stored", a.bytes_stored},
                     {"bulk_copies", a.bulk_copies},
                     {"sectors_per_request", a.sectors_per_request},
                     {"active_lanes_per_request", a.active_lanes_per_request}};
}

OrderedJson finding_json(const Finding& f) {
  return OrderedJson{{"kind", f.kind},       {"kernel", f.kernel},         {"launch", f.launch},
                     {"block", dim3_json(f.block)}, {"thread", dim3_json(f.thread)}, {"pc_offset", f.pc_offset},
                     {"address", f.address}, {"size", f.size},             {"operation", f.operation},
                     {"allocation", f.allocation}, {"distance", f.distance},
                     {"argument", f.argument},     {"argument_type", f.argument_type}};
}

template <class T, class F>
OrderedJson array_of(const std::vector<T>& items, F to_json) {
  OrderedJson out = OrderedJson::array();
  for (const auto& item : items) out.push_back(to_json(item));
  return out;
}

}  // namespace

OrderedJson trace_to_document(const Trace& t) {
  OrderedJson doc = new_document(kTraceFormat, "vtrace");
  doc["run"] = run_json(t.run);
  doc["devices"] = array_of(t.devices, [](const Device& d) {
    return OrderedJson{{"id", d.id},
                       {"name", d.name},
                       {"compute_capability", d.compute_capability},
                       {"sm_count", d.sm_count},
                       {"memory_bytes", d.memory_bytes}};
  });
  doc["kernels"] = array_of(t.kernels, kernel_json);
  doc["memcpys"] = array_of(t.memcpys, memcpy_json);
  doc["memsets"] = array_of(t.memsets, memset_json);
  doc["allocations"] = array_of(t.allocations, allocation_json);
  doc["failed_launches"] = array_of(t.failed_launches, [](const FailedLaunch& f) {
    return OrderedJson{
        {"api", f.api}, {"kernel", f.kernel}, {"status", f.status}, {"correlation_id", f.correlation_id}};
  });
  if (t.run.mode == "accesses") {
    doc["accesses"] = array_of(t.accesses, access_json);
    doc["findings"] = array_of(t.findings, finding_json);
    doc["tma_kernels"] = t.tma_kernels;
  }
  doc["partial"] = t.partial;
  doc["dropped_records"] = t.dropped_records;
  doc["filtered_kernels"] = t.filtered_kernels;
  return doc;
}

}  // namespace vtools::vtrace
