#include "formats/plan/plan_json.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/plan/plan_writer.hpp"
#include "libcommon/error.hpp"
#include "libcommon/field_reader.hpp"

namespace vtools::vplan {

OrderedJson plan_document(const Plan& plan, std::string_view source_format) {
  return parse_json(plan_document_text(plan, source_format), "plan");
}

namespace {

SourceLoc loc_from(const FieldReader& parent) {
  const std::optional<FieldReader> j = parent.object("loc");
  if (!j) return {};
  return SourceLoc{j->string("name"), j->string("file"), j->integer<int>("line", 0), j->integer<int>("column", 0)};
}

/// `id` (read from `key`, element `index` where given) is an index into `count` objects of `kind`; refused otherwise.
void check_index(const FieldReader& f, std::string_view key, std::size_t index, int id, std::size_t count,
                 const char* kind) {
  if (id >= 0 && static_cast<std::size_t>(id) < count) return;
  const std::string ids = count == 0 ? "there are none" : "0 to " + std::to_string(count - 1);
  f.fail(key, "expected the id of " + std::string(kind) + " (" + ids + "), got " + std::to_string(id), index);
}

/// Objects of one array are numbered by their `id`: 0, 1, 2, ... in document order.
int read_id(const FieldReader& f, std::size_t index) {
  const int id = f.required_integer<int>("id");
  if (id != static_cast<int>(index))
    f.fail("id", "expected " + std::to_string(index) + " (ids count 0, 1, 2, ...), got " + std::to_string(id));
  return id;
}

}  // namespace

Plan plan_from_document(const OrderedJson& doc, std::string_view name) {
  const FieldReader top(doc, "", name);
  Plan plan;
  const FieldReader k = top.required_object("kernel");
  plan.kernel.name = k.string("name");
  plan.kernel.target = k.string("target");
  plan.kernel.num_warps = k.integer<int>("num_warps", 0);
  plan.kernel.total_warps = k.integer<int>("total_warps", plan.kernel.num_warps);
  if (const std::optional<FieldReader> source = top.object("source")) plan.kernel.source = source->string("path");
  std::size_t i = 0;
  top.for_each("partitions", [&](const FieldReader& p) {
    plan.partitions.push_back(
        {p.required_integer<int>("id"), p.string("region"), p.integer<int>("num_warps", 0), p.integer<int>("op_count", 0)});
  });
  i = 0;
  top.for_each("ops", [&](const FieldReader& o) {
    PlanOp op;
    op.id = read_id(o, i++);
    op.name = o.required_string("name");
    op.partition = o.integer<int>("partition", kNoPartition);
    op.result = o.string("result");
    op.operands = o.strings("operands");
    op.shape = o.string("shape");
    op.loc = loc_from(o);
    op.key = key_kind_from_name(o.string("key"));
    op.sync = o.boolean("sync", false);
    op.parent = o.integer<int>("parent", -1);
    plan.ops.push_back(std::move(op));
  });
  (void)top.required_array("buffers");
  i = 0;
  top.for_each("buffers", [&](const FieldReader& j) {
    Buffer b;
    b.id = read_id(j, i++);
    b.name = j.required_string("name");
    b.value = j.string("value");
    b.space = j.string("space", "smem") == "tmem" ? MemorySpace::kTmem : MemorySpace::kSmem;
    b.shape = j.integers<std::int64_t>("shape");
    b.element_type = j.string("element_type");
    b.encoding = j.string("encoding");
    b.bytes = j.integer<std::int64_t>("bytes", 0);
    b.rows = j.integer<int>("rows", 0);
    b.cols = j.integer<int>("cols", 0);
    b.copies = j.integer<int>("copies", 1);
    b.barrier = j.boolean("barrier", false);
    b.alloc_op = j.integer<int>("alloc_op", 0);
    const OrderedJson& liveness = j.required_array("liveness");
    const std::vector<int> live = j.integers<int>("liveness");
    if (live.size() != 2) j.expected("liveness", "[start, end]", liveness);
    b.start = live[0];
    b.end = live[1];
    b.offset = j.integer<std::int64_t>("offset", 0);
    b.alignment = j.integer<std::int64_t>("alignment", 1);
    b.channels = j.integers<int>("channels");
    b.operand_d = j.integer<int>("operand_d", 0);
    b.users = j.integers<int>("users");
    b.loc = loc_from(j);
    b.scratch_op = j.string("scratch_op");
    b.size_exact = j.boolean("size_exact", true);
    b.compiler_offsets = j.integers<std::int64_t>("compiler_offsets");
    b.planner_id = j.integer<int>("planner_id", -1);
    b.planner_copy = j.integer<int>("planner_copy", 0);
    b.planner_offset = j.integer<std::int64_t>("planner_offset", -1);
    plan.buffers.push_back(std::move(b));
  });
  i = 0;
  top.for_each("channels", [&](const FieldReader& j) {
    Channel c;
    c.id = read_id(j, i++);
    c.buffer = j.required_integer<int>("buffer");
    check_index(j, "buffer", FieldReader::npos, c.buffer, plan.buffers.size(), "a buffer");
    c.space = plan.buffers[c.buffer].space;
    const FieldReader p = j.required_object("producer");
    c.producer = {p.required_integer<int>("op"), p.integer<int>("partition", kNoPartition)};
    j.for_each("consumers", [&](const FieldReader& e) {
      c.consumers.push_back({e.required_integer<int>("op"), e.integer<int>("partition", kNoPartition)});
    });
    c.operand_d = j.boolean("operand_d", false);
    plan.channels.push_back(std::move(c));
  });
  i = 0;
  top.for_each("buffers", [&](const FieldReader& j) {
    const Buffer& b = plan.buffers[i++];
    for (std::size_t n = 0; n < b.channels.size(); ++n)
      check_index(j, "channels", n, b.channels[n], plan.channels.size(), "a channel");
  });
  const FieldReader s = top.required_object("summary");
  Summary& sum = plan.summary;
  sum.smem_peak_bytes = s.integer<std::int64_t>("smem_peak_bytes", 0);
  sum.smem_limit_bytes = s.integer<std::int64_t>("smem_limit_bytes", 0);
  sum.smem_peak_op = s.integer<int>("smem_peak_op", 0);
  sum.smem_live_at_peak = s.integers<int>("smem_live_at_peak");
  sum.tmem_peak_cols = s.integer<std::int64_t>("tmem_peak_cols", 0);
  sum.tmem_allocated_cols = s.integer<std::int64_t>("tmem_allocated_cols", 0);
  sum.tmem_limit_cols = s.integer<std::int64_t>("tmem_limit_cols", 0);
  sum.tmem_peak_op = s.integer<int>("tmem_peak_op", 0);
  sum.tmem_live_at_peak = s.integers<int>("tmem_live_at_peak");
  sum.capture_bytes = s.integer<std::int64_t>("capture_bytes", 0);
  sum.triton_shared_bytes = s.optional_integer<std::int64_t>("triton_shared_bytes");
  // Documents written before smem_total_bytes carried smem_allocated_bytes (vplan's own layout, captures apart).
  const std::int64_t legacy_total = s.integer<std::int64_t>("smem_allocated_bytes", 0) + sum.capture_bytes;
  sum.smem_total_bytes = s.integer<std::int64_t>("smem_total_bytes", legacy_total);
  sum.smem_total_min_bytes = s.integer<std::int64_t>("smem_total_min_bytes", sum.smem_total_bytes);
  sum.scratch_bytes = s.integer<std::int64_t>("scratch_bytes", 0);
  sum.unknown_scratch_bytes = s.integer<std::int64_t>("unknown_scratch_bytes", 0);
  sum.compiler_layout = s.boolean("compiler_layout", false);
  sum.compiler_shared_bytes = s.optional_integer<std::int64_t>("compiler_shared_bytes");
  sum.compiler_tmem_cols = s.optional_integer<std::int64_t>("compiler_tmem_cols");
  sum.fits = s.boolean("fits", true);
  sum.notes = s.strings("notes");
  for (std::size_t n = 0; n < sum.smem_live_at_peak.size(); ++n)
    check_index(s, "smem_live_at_peak", n, sum.smem_live_at_peak[n], plan.buffers.size(), "a buffer");
  for (std::size_t n = 0; n < sum.tmem_live_at_peak.size(); ++n)
    check_index(s, "tmem_live_at_peak", n, sum.tmem_live_at_peak[n], plan.buffers.size(), "a buffer");
  return plan;
}

Plan read_plan_json(std::string_view text, std::string_view name) {
  return plan_from_document(parse_document(text, name, {kPlanFormat}), name);
}

}  // namespace vtools::vplan
