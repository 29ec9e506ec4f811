#include "formats/plan/plan_json.hpp"

#include <cstdint>
#include <map>
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

const OrderedJson kNoFields = OrderedJson::object();

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

// One reader per part of the document, in the order a plan is read (both paths below call them in that order, so a
// document with several faults is refused for the same one).

void read_kernel(const FieldReader& top, Plan& plan) {
  const FieldReader k = top.required_object("kernel");
  plan.kernel.name = k.string("name");
  plan.kernel.target = k.string("target");
  plan.kernel.num_warps = k.integer<int>("num_warps", 0);
  plan.kernel.total_warps = k.integer<int>("total_warps", plan.kernel.num_warps);
  if (const std::optional<FieldReader> source = top.object("source")) plan.kernel.source = source->string("path");
}

Partition read_partition(const FieldReader& p) {
  return {p.required_integer<int>("id"), p.string("region"), p.integer<int>("num_warps", 0), p.integer<int>("op_count", 0)};
}

PlanOp read_op(const FieldReader& o, std::size_t index) {
  PlanOp op;
  op.id = read_id(o, index);
  op.name = o.required_string("name");
  op.partition = o.integer<int>("partition", kNoPartition);
  op.result = o.string("result");
  op.operands = o.strings("operands");
  op.shape = o.string("shape");
  op.loc = loc_from(o);
  op.key = key_kind_from_name(o.string("key"));
  op.sync = o.boolean("sync", false);
  op.parent = o.integer<int>("parent", -1);
  return op;
}

Buffer read_buffer(const FieldReader& j, std::size_t index) {
  Buffer b;
  b.id = read_id(j, index);
  b.name = j.required_string("name");
  b.value = j.string("value");
  b.space = j.string("space", "smem") == "tmem" ? MemorySpace::kTmem : MemorySpace::kSmem;
  b.shape = j.integers<std::int64_t>("shape");
  b.element_type = j.string("element_type");
  b.encoding = j.string("encoding");
  b.bytes = j.integer<std::int64_t>("bytes", 0, 0);
  b.rows = j.integer<int>("rows", 0);
  b.cols = j.integer<int>("cols", 0);
  b.copies = j.integer<int>("copies", 1);
  b.barrier = j.boolean("barrier", false);
  b.alloc_op = j.integer<int>("alloc_op", 0);
  const OrderedJson& liveness = j.required_array("liveness");
  const std::vector<int> live = j.integers<int>("liveness");
  if (live.size() != 2 || live[1] < live[0]) j.expected("liveness", "[start, end] with start <= end", liveness);
  b.start = live[0];
  b.end = live[1];
  b.offset = j.integer<std::int64_t>("offset", 0);
  b.row_offset = j.integer<int>("row_offset", 0);
  b.alignment = j.integer<std::int64_t>("alignment", 1);
  b.channels = j.integers<int>("channels");
  b.operand_d = j.integer<int>("operand_d", 0);
  b.users = j.integers<int>("users");
  b.loc = loc_from(j);
  b.scratch_op = j.string("scratch_op");
  b.size_exact = j.boolean("size_exact", true);
  b.compiler_offsets = j.integers<std::int64_t>("compiler_offsets");
  b.compiler_row_offset = j.integer<int>("compiler_row_offset", -1);
  b.planner_id = j.integer<int>("planner_id", -1);
  b.planner_copy = j.integer<int>("planner_copy", 0);
  b.planner_offset = j.integer<std::int64_t>("planner_offset", -1);
  return b;
}

/// A channel names its buffer by id: read once every buffer is.
Channel read_channel(const FieldReader& j, std::size_t index, const std::vector<Buffer>& buffers) {
  Channel c;
  c.id = read_id(j, index);
  c.buffer = j.required_integer<int>("buffer");
  check_index(j, "buffer", FieldReader::npos, c.buffer, buffers.size(), "a buffer");
  c.space = buffers[c.buffer].space;
  const FieldReader p = j.required_object("producer");
  c.producer = {p.required_integer<int>("op"), p.integer<int>("partition", kNoPartition)};
  j.for_each("consumers", [&](const FieldReader& e) {
    c.consumers.push_back({e.required_integer<int>("op"), e.integer<int>("partition", kNoPartition)});
  });
  c.operand_d = j.boolean("operand_d", false);
  return c;
}

/// A buffer's channels, by id: checked once every channel is read. `j` names the buffer in messages.
void check_buffer_channels(const FieldReader& j, const Buffer& b, std::size_t channel_count) {
  for (std::size_t n = 0; n < b.channels.size(); ++n)
    check_index(j, "channels", n, b.channels[n], channel_count, "a channel");
}

void read_summary(const FieldReader& top, Plan& plan) {
  const FieldReader s = top.required_object("summary");
  Summary& sum = plan.summary;
  sum.smem_peak_bytes = s.integer<std::int64_t>("smem_peak_bytes", 0);
  sum.smem_limit_bytes = s.integer<std::int64_t>("smem_limit_bytes", 0);
  sum.smem_peak_op = s.integer<int>("smem_peak_op", 0);
  sum.smem_live_at_peak = s.integers<int>("smem_live_at_peak");
  sum.smem_peak_regions = s.boolean("smem_peak_regions", false);
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
  // check and table report the summary's figures: a buffer larger than the whole total means they are not this
  // plan's (an edited document), and a pass on them would be false.
  for (std::size_t n = 0; n < plan.buffers.size(); ++n) {
    const Buffer& b = plan.buffers[n];
    if (b.space == MemorySpace::kSmem && sum.smem_total_bytes > 0 && b.bytes > sum.smem_total_bytes)
      s.fail("smem_total_bytes", std::to_string(sum.smem_total_bytes) + " is less than buffers[" + std::to_string(n) +
                                     "]'s " + std::to_string(b.bytes) + " bytes");
  }
}

/// The records of a document as the parser reaches them (parse_document_streamed): ops, buffers and partitions go
/// into the plan at once; a record's fault is kept, not thrown, so that finish() refuses the document for the fault
/// plan_from_document would name first (a JSON syntax error anywhere, then the envelope, then the parts in order).
/// Channels, which name buffers, wait as JSON (a few per thousand ops) until the buffers are all read.
class StreamedPlan {
 public:
  explicit StreamedPlan(std::string_view name) : name_(name) {}

  void array_start(std::string_view key) {  // a key given twice: the last array counts, as in a parsed tree
    if (key == "ops") ops_.reset(), plan_.ops.clear();
    if (key == "buffers") buffers_.reset(), plan_.buffers.clear();
    if (key == "partitions") partitions_.reset(), plan_.partitions.clear();
    if (key == "channels") channels_.clear();
    if (key == "kernel" || key == "source" || key == "summary") objects_[std::string(key)] = OrderedJson::array();
  }

  void element(std::string_view key, std::size_t index, OrderedJson&& v) {
    if (key == "ops") {
      read(ops_, [&] { plan_.ops.push_back(read_op(FieldReader(v, key, index, name_), index)); });
    } else if (key == "buffers") {
      read(buffers_, [&] { plan_.buffers.push_back(read_buffer(FieldReader(v, key, index, name_), index)); });
    } else if (key == "partitions") {
      read(partitions_, [&] { plan_.partitions.push_back(read_partition(FieldReader(v, key, index, name_))); });
    } else if (key == "channels") {
      channels_.push_back(std::move(v));
    } else if (auto it = objects_.find(key); it != objects_.end()) {
      it->second.push_back(std::move(v));  // an array where an object belongs: refused, quoted, in finish()
    }  // other arrays (reuse_hazards, unknown members) are not read
  }

  /// The plan, or the first fault in plan_from_document's order. `top`: the document less its arrays' elements.
  Plan finish(OrderedJson top) {
    for (auto& [key, elements] : objects_)
      if (auto it = top.find(key); it != top.end() && it->is_array()) *it = std::move(elements);
    const FieldReader t(top, "", name_);
    read_kernel(t, plan_);
    take(t.array("partitions"), partitions_, plan_.partitions);
    take(t.array("ops"), ops_, plan_.ops);
    (void)t.required_array("buffers");
    take(t.array("buffers"), buffers_, plan_.buffers);
    if (t.array("channels"))
      for (std::size_t i = 0; i < channels_.size(); ++i)
        plan_.channels.push_back(read_channel(FieldReader(channels_[i], "channels", i, name_), i, plan_.buffers));
    channels_ = {};
    for (std::size_t i = 0; i < plan_.buffers.size(); ++i)
      check_buffer_channels(FieldReader(kNoFields, "buffers", i, name_), plan_.buffers[i], plan_.channels.size());
    read_summary(t, plan_);
    return std::move(plan_);
  }

 private:
  using Part = std::optional<Error>;  ///< the first fault of one array's records

  template <class F>
  void read(Part& part, F each) {
    if (part) return;  // the records after a fault are not read: the document is refused anyway
    try {
      each();
    } catch (const Error& e) {
      part = e;
    }
  }
  /// The records streamed under a key stand for the document's member only where it is still an array (a later
  /// duplicate that is null or absent leaves none, as in a parsed tree); a kept fault is thrown now, in order.
  template <class T>
  void take(const OrderedJson* array, Part& part, std::vector<T>& records) {
    if (!array) {
      records.clear();
      return;
    }
    if (part) throw *part;
  }

  std::string_view name_;
  Plan plan_;
  Part partitions_, ops_, buffers_;
  std::vector<OrderedJson> channels_;
  std::map<std::string, OrderedJson, std::less<>> objects_;  ///< kernel/source/summary given as arrays
};

}  // namespace

Plan plan_from_document(const OrderedJson& doc, std::string_view name) {
  const FieldReader top(doc, "", name);
  Plan plan;
  read_kernel(top, plan);
  top.for_each("partitions", [&](const FieldReader& p) { plan.partitions.push_back(read_partition(p)); });
  std::size_t i = 0;
  top.for_each("ops", [&](const FieldReader& o) { plan.ops.push_back(read_op(o, i++)); });
  (void)top.required_array("buffers");
  i = 0;
  top.for_each("buffers", [&](const FieldReader& j) { plan.buffers.push_back(read_buffer(j, i++)); });
  i = 0;
  top.for_each("channels", [&](const FieldReader& j) { plan.channels.push_back(read_channel(j, i++, plan.buffers)); });
  i = 0;
  top.for_each("buffers", [&](const FieldReader& j) { check_buffer_channels(j, plan.buffers[i++], plan.channels.size()); });
  read_summary(top, plan);
  return plan;
}

Plan read_plan_json(std::string_view text, std::string_view name, const ReadProgress& passed) {
  StreamedPlan streamed(name);
  OrderedJson top;
  try {
    top = parse_document_streamed(
        text, name, {kPlanFormat},
        [&](std::string_view key, std::size_t index, OrderedJson&& v) { streamed.element(key, index, std::move(v)); },
        passed, [&](std::string_view key) { streamed.array_start(key); });
  } catch (const Error&) {
    // The streamed parse refuses a document that is no object, or of another format, where it meets the fault; a
    // whole parse names invalid JSON anywhere first. So does this reader: the rest of the text is checked too.
    if (!OrderedJson::accept(text.begin(), text.end())) (void)parse_json(text, name);
    throw;
  }
  return streamed.finish(std::move(top));
}

}  // namespace vtools::vplan
