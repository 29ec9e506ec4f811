#include "formats/plan/plan_writer.hpp"

#include "libcommon/document.hpp"
#include "libcommon/json_writer.hpp"

namespace vtools::vplan {

namespace {

using Layout = JsonWriter::Layout;
constexpr Layout kLines = Layout::kLines;  // dump_json's layout: every container one element per line
constexpr std::size_t kPiece = std::size_t{1} << 20;

// A small parsed subtree (the envelope) in the same layout.
void write_tree(JsonWriter& w, const OrderedJson& j) {
  if (j.is_object()) {
    w.begin_object(kLines);
    for (const auto& item : j.items()) {
      w.key(item.key());
      write_tree(w, item.value());
    }
    w.end_object();
  } else if (j.is_array()) {
    w.begin_array(kLines);
    for (const auto& e : j) write_tree(w, e);
    w.end_array();
  } else {
    w.value(j);  // a scalar: compact and pretty are the same text
  }
}

template <class T>
void array_field(JsonWriter& w, std::string_view name, const std::vector<T>& values) {
  w.key(name);
  w.begin_array(kLines);
  for (const auto& v : values) w.value(v);
  w.end_array();
}

void partition_field(JsonWriter& w, std::string_view name, int p) {
  w.key(name);
  if (p == kNoPartition) w.value(nullptr);
  else w.value(p);
}

template <class T>
void int_or_null(JsonWriter& w, std::string_view name, bool present, T v) {
  w.key(name);
  if (present) w.value(v);
  else w.value(nullptr);
}

void loc_field(JsonWriter& w, const SourceLoc& loc) {
  w.key("loc");
  if (loc.name.empty() && loc.file.empty()) {
    w.value(nullptr);
    return;
  }
  w.begin_object(kLines);
  w.field("name", loc.name);
  w.field("file", loc.file);
  w.field("line", loc.line);
  w.field("column", loc.column);
  w.end_object();
}

void end_object(JsonWriter& w, const ChannelEnd& e) {
  w.begin_object(kLines);
  w.field("op", e.op);
  partition_field(w, "partition", e.partition);
  w.end_object();
}

void write_op(JsonWriter& w, const PlanOp& op) {
  w.begin_object(kLines);
  w.field("id", op.id);
  w.field("name", op.name);
  partition_field(w, "partition", op.partition);
  w.field("result", op.result);
  array_field(w, "operands", op.operands);
  w.field("shape", op.shape);
  loc_field(w, op.loc);
  w.key("key");
  if (op.key == KeyKind::kNone) w.value(nullptr);
  else w.value(key_kind_name(op.key));
  w.field("sync", op.sync);
  w.field("parent", op.parent);
  w.end_object();
}

void write_buffer(JsonWriter& w, const Buffer& b) {
  w.begin_object(kLines);
  w.field("id", b.id);
  w.field("name", b.name);
  w.field("value", b.value);
  w.field("space", space_name(b.space));
  array_field(w, "shape", b.shape);
  w.field("element_type", b.element_type);
  w.field("encoding", b.encoding);
  w.field("bytes", b.bytes);
  w.field("rows", b.rows);
  w.field("cols", b.cols);
  w.field("copies", b.copies);
  w.field("barrier", b.barrier);
  w.field("alloc_op", b.alloc_op);
  w.key("liveness");
  w.begin_array(kLines);
  w.value(b.start);
  w.value(b.end);
  w.end_array();
  w.field("offset", b.offset);
  if (b.space == MemorySpace::kTmem) w.field("row_offset", b.row_offset);
  w.field("alignment", b.alignment);
  array_field(w, "channels", b.channels);
  w.field("operand_d", b.operand_d);
  array_field(w, "users", b.users);
  loc_field(w, b.loc);
  w.key("scratch_op");
  if (b.is_scratch()) w.value(b.scratch_op);
  else w.value(nullptr);
  w.field("size_exact", b.size_exact);
  array_field(w, "compiler_offsets", b.compiler_offsets);
  if (b.space == MemorySpace::kTmem)
    int_or_null(w, "compiler_row_offset", b.compiler_row_offset >= 0, b.compiler_row_offset);
  int_or_null(w, "planner_id", b.planner_id >= 0, b.planner_id);
  int_or_null(w, "planner_copy", b.planner_copy > 0, b.planner_copy);
  int_or_null(w, "planner_offset", b.planner_offset >= 0, b.planner_offset);
  w.end_object();
}

void write_channel(JsonWriter& w, const Channel& c) {
  w.begin_object(kLines);
  w.field("id", c.id);
  w.field("buffer", c.buffer);
  w.field("space", space_name(c.space));
  w.key("producer");
  end_object(w, c.producer);
  w.key("consumers");
  w.begin_array(kLines);
  for (const auto& e : c.consumers) end_object(w, e);
  w.end_array();
  w.field("operand_d", c.operand_d);
  w.end_object();
}

void write_summary(JsonWriter& w, const Summary& s) {
  w.begin_object(kLines);
  w.field("smem_peak_bytes", s.smem_peak_bytes);
  w.field("smem_limit_bytes", s.smem_limit_bytes);
  w.field("smem_peak_op", s.smem_peak_op);
  array_field(w, "smem_live_at_peak", s.smem_live_at_peak);
  w.field("smem_peak_regions", s.smem_peak_regions);
  w.field("tmem_peak_cols", s.tmem_peak_cols);
  w.field("tmem_allocated_cols", s.tmem_allocated_cols);
  w.field("tmem_limit_cols", s.tmem_limit_cols);
  w.field("tmem_peak_op", s.tmem_peak_op);
  array_field(w, "tmem_live_at_peak", s.tmem_live_at_peak);
  w.field("capture_bytes", s.capture_bytes);
  int_or_null(w, "triton_shared_bytes", s.triton_shared_bytes.has_value(), s.triton_shared_bytes.value_or(0));
  w.field("smem_total_bytes", s.smem_total_bytes);
  w.field("smem_total_min_bytes", s.smem_total_min_bytes);
  w.field("scratch_bytes", s.scratch_bytes);
  w.field("unknown_scratch_bytes", s.unknown_scratch_bytes);
  w.field("compiler_layout", s.compiler_layout);
  int_or_null(w, "compiler_shared_bytes", s.compiler_shared_bytes.has_value(), s.compiler_shared_bytes.value_or(0));
  int_or_null(w, "compiler_tmem_cols", s.compiler_tmem_cols.has_value(), s.compiler_tmem_cols.value_or(0));
  w.field("fits", s.fits);
  array_field(w, "notes", s.notes);
  w.end_object();
}

void write_hazard(JsonWriter& w, const ReuseHazard& h) {
  w.begin_object(kLines);
  w.field("group", h.group);
  w.field("first", h.first);
  w.field("second", h.second);
  w.field("first_op", h.first_op);
  w.field("second_op", h.second_op);
  partition_field(w, "first_partition", h.first_partition);
  partition_field(w, "second_partition", h.second_partition);
  w.end_object();
}

}  // namespace

void write_plan_document(const Plan& plan, std::string_view source_format, const PlanEmit& emit) {
  std::string buf;
  JsonWriter w(buf);
  auto flush = [&](bool force) {
    if (buf.size() >= kPiece || (force && !buf.empty())) {
      emit(buf);
      buf.clear();
    }
  };
  w.begin_object(kLines);
  const OrderedJson envelope = new_document(kPlanFormat, "vplan");
  for (const auto& item : envelope.items()) {
    w.key(item.key());
    write_tree(w, item.value());
  }
  w.key("source");
  w.begin_object(kLines);
  w.field("path", plan.kernel.source);
  w.field("format", source_format);
  w.end_object();
  w.key("kernel");
  w.begin_object(kLines);
  w.field("name", plan.kernel.name);
  w.field("target", plan.kernel.target);
  w.field("num_warps", plan.kernel.num_warps);
  w.field("total_warps", plan.kernel.total_warps);
  w.end_object();
  w.key("partitions");
  w.begin_array(kLines);
  for (const auto& p : plan.partitions) {
    w.begin_object(kLines);
    w.field("id", p.id);
    w.field("region", p.region);
    w.field("num_warps", p.num_warps);
    w.field("op_count", p.op_count);
    w.end_object();
  }
  w.end_array();
  w.key("ops");
  w.begin_array(kLines);
  for (const auto& op : plan.ops) write_op(w, op), flush(false);
  w.end_array();
  w.key("buffers");
  w.begin_array(kLines);
  for (const auto& b : plan.buffers) write_buffer(w, b), flush(false);
  w.end_array();
  w.key("channels");
  w.begin_array(kLines);
  for (const auto& c : plan.channels) write_channel(w, c), flush(false);
  w.end_array();
  w.key("summary");
  write_summary(w, plan.summary);
  w.key("reuse_hazards");
  w.begin_array(kLines);
  for (const auto& h : plan.reuse_hazards) write_hazard(w, h), flush(false);
  w.end_array();
  w.end_object();
  flush(true);
}

std::string plan_document_text(const Plan& plan, std::string_view source_format) {
  std::string out;
  write_plan_document(plan, source_format, [&](std::string_view piece) { out += piece; });
  return out;
}

}  // namespace vtools::vplan
