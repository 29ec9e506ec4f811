#include "formats/plan/plan_json.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "formats/plan/plan_writer.hpp"
#include "libcommon/error.hpp"

namespace vtools::vplan {

OrderedJson plan_document(const Plan& plan, std::string_view source_format) {
  return parse_json(plan_document_text(plan, source_format), "plan");
}

namespace {

template <class T>
struct is_vector : std::false_type {};
template <class E>
struct is_vector<std::vector<E>> : std::true_type {};

// Whether v holds a T: integers only from JSON integers within T's range (nlohmann's get<int>() would cast a float
// such as 1e80 to int, which is undefined behaviour), vectors element by element; other types as nlohmann checks.
template <class T>
bool holds(const OrderedJson& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return json_integer<T>(v).has_value();
  } else if constexpr (is_vector<T>::value) {
    using Element = typename T::value_type;
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const OrderedJson& e) { return holds<Element>(e); });
  } else {
    return true;
  }
}

// "field 'x' has the wrong type", or for a number where an integer of T is expected, the number and T's range.
template <class T>
std::string mistyped(const OrderedJson& v, const std::string& field) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (v.is_number()) return "field '" + field + "' " + integer_out_of_range<T>(v);
  }
  return "field '" + field + "' has the wrong type";
}

// Field access that names the missing/mistyped field in its error.
class Fields {
 public:
  explicit Fields(std::string_view name) : name_(name) {}

  const OrderedJson& at(const OrderedJson& obj, const char* key, const std::string& where) const {
    if (!obj.is_object() || !obj.contains(key)) fail("missing field '" + where + key + "'");
    return obj.at(key);
  }
  template <class T>
  T get(const OrderedJson& obj, const char* key, const std::string& where) const {
    const OrderedJson& v = at(obj, key, where);
    if (!holds<T>(v)) fail(mistyped<T>(v, where + key));
    try {
      return v.get<T>();
    } catch (const std::exception&) {
      fail("field '" + where + key + "' has the wrong type");
    }
  }
  /// An optional field: `fallback` where it is absent or null; present with the wrong type, an error (not the
  /// fallback: that would drop the value silently).
  template <class T>
  T get_or(const OrderedJson& obj, const char* key, const std::string& where, T fallback) const {
    if (!obj.is_object() || !obj.contains(key) || obj.at(key).is_null()) return fallback;
    return get<T>(obj, key, where);
  }
  /// An optional field with no default: left unset where absent or null.
  template <class T>
  std::optional<T> get_opt(const OrderedJson& obj, const char* key, const std::string& where) const {
    if (!obj.is_object() || !obj.contains(key) || obj.at(key).is_null()) return std::nullopt;
    return get<T>(obj, key, where);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ExitCode::kDataError, what, SourceLocation{std::string(name_)});
  }

 private:
  std::string_view name_;
};

// Fields are named by their path in messages: "buffers[3].liveness", "kernel.num_warps".
SourceLoc loc_from(const Fields& f, const OrderedJson& parent, const std::string& where) {
  if (!parent.is_object() || !parent.contains("loc") || parent["loc"].is_null()) return {};
  const OrderedJson& j = parent["loc"];
  if (!j.is_object()) f.fail("field '" + where + "loc' has the wrong type");
  const std::string at = where + "loc.";
  return SourceLoc{f.get_or<std::string>(j, "name", at, ""), f.get_or<std::string>(j, "file", at, ""),
                   f.get_or<int>(j, "line", at, 0), f.get_or<int>(j, "column", at, 0)};
}

// Elements of an optional array member (none where absent or null; another type is an error).
const OrderedJson& array_or_empty(const Fields& f, const OrderedJson& doc, const char* key) {
  static const OrderedJson kEmpty = OrderedJson::array();
  if (!doc.contains(key) || doc[key].is_null()) return kEmpty;
  if (!doc[key].is_array()) f.fail(std::string("field '") + key + "' has the wrong type");
  return doc[key];
}

std::string element(const char* array, std::size_t i) { return std::string(array) + "[" + std::to_string(i) + "]."; }

}  // namespace

Plan plan_from_document(const OrderedJson& doc, std::string_view name) {
  Fields f(name);
  Plan plan;
  const auto& k = f.at(doc, "kernel", "");
  plan.kernel.name = f.get_or<std::string>(k, "name", "kernel.", "");
  plan.kernel.target = f.get_or<std::string>(k, "target", "kernel.", "");
  plan.kernel.num_warps = f.get_or<int>(k, "num_warps", "kernel.", 0);
  plan.kernel.total_warps = f.get_or<int>(k, "total_warps", "kernel.", plan.kernel.num_warps);
  if (doc.contains("source")) plan.kernel.source = f.get_or<std::string>(doc["source"], "path", "source.", "");
  const OrderedJson& partitions = array_or_empty(f, doc, "partitions");
  for (std::size_t i = 0; i < partitions.size(); ++i) {
    const OrderedJson& p = partitions[i];
    const std::string at = element("partitions", i);
    plan.partitions.push_back({f.get<int>(p, "id", at), f.get_or<std::string>(p, "region", at, ""),
                               f.get_or<int>(p, "num_warps", at, 0), f.get_or<int>(p, "op_count", at, 0)});
  }
  const OrderedJson& ops = array_or_empty(f, doc, "ops");
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OrderedJson& o = ops[i];
    const std::string at = element("ops", i);
    PlanOp op;
    op.id = f.get<int>(o, "id", at);
    if (op.id != static_cast<int>(i))
      f.fail("ops[" + std::to_string(i) + "].id is " + std::to_string(op.id) + ", expected ids 0, 1, 2, ...");
    op.name = f.get<std::string>(o, "name", at);
    op.partition = f.get_or<int>(o, "partition", at, kNoPartition);
    op.result = f.get_or<std::string>(o, "result", at, "");
    op.operands = f.get_or<std::vector<std::string>>(o, "operands", at, {});
    op.shape = f.get_or<std::string>(o, "shape", at, "");
    op.loc = loc_from(f, o, at);
    op.key = key_kind_from_name(f.get_or<std::string>(o, "key", at, ""));
    op.sync = f.get_or<bool>(o, "sync", at, false);
    op.parent = f.get_or<int>(o, "parent", at, -1);
    plan.ops.push_back(std::move(op));
  }
  const auto& buffers = f.at(doc, "buffers", "");
  if (!buffers.is_array()) f.fail("field 'buffers' has the wrong type");
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const OrderedJson& j = buffers[i];
    const std::string at = element("buffers", i);
    Buffer b;
    b.id = f.get<int>(j, "id", at);
    if (b.id != static_cast<int>(i))
      f.fail("buffers[" + std::to_string(i) + "].id is " + std::to_string(b.id) + ", expected ids 0, 1, 2, ...");
    b.name = f.get<std::string>(j, "name", at);
    b.value = f.get_or<std::string>(j, "value", at, "");
    b.space = f.get_or<std::string>(j, "space", at, "smem") == "tmem" ? MemorySpace::kTmem : MemorySpace::kSmem;
    b.shape = f.get_or<std::vector<std::int64_t>>(j, "shape", at, {});
    b.element_type = f.get_or<std::string>(j, "element_type", at, "");
    b.encoding = f.get_or<std::string>(j, "encoding", at, "");
    b.bytes = f.get_or<std::int64_t>(j, "bytes", at, 0);
    b.rows = f.get_or<int>(j, "rows", at, 0);
    b.cols = f.get_or<int>(j, "cols", at, 0);
    b.copies = f.get_or<int>(j, "copies", at, 1);
    b.barrier = f.get_or<bool>(j, "barrier", at, false);
    b.alloc_op = f.get_or<int>(j, "alloc_op", at, 0);
    auto live = f.get<std::vector<int>>(j, "liveness", at);
    if (live.size() != 2) f.fail("field '" + at + "liveness' must be [start, end]");
    b.start = live[0];
    b.end = live[1];
    b.offset = f.get_or<std::int64_t>(j, "offset", at, 0);
    b.alignment = f.get_or<std::int64_t>(j, "alignment", at, 1);
    b.channels = f.get_or<std::vector<int>>(j, "channels", at, {});
    b.operand_d = f.get_or<int>(j, "operand_d", at, 0);
    b.users = f.get_or<std::vector<int>>(j, "users", at, {});
    b.loc = loc_from(f, j, at);
    b.scratch_op = f.get_or<std::string>(j, "scratch_op", at, "");
    b.size_exact = f.get_or<bool>(j, "size_exact", at, true);
    b.compiler_offsets = f.get_or<std::vector<std::int64_t>>(j, "compiler_offsets", at, {});
    b.planner_id = f.get_or<int>(j, "planner_id", at, -1);
    b.planner_copy = f.get_or<int>(j, "planner_copy", at, 0);
    b.planner_offset = f.get_or<std::int64_t>(j, "planner_offset", at, -1);
    plan.buffers.push_back(std::move(b));
  }
  const OrderedJson& channels = array_or_empty(f, doc, "channels");
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const OrderedJson& j = channels[i];
    const std::string at = element("channels", i);
    Channel c;
    c.id = f.get<int>(j, "id", at);
    if (c.id != static_cast<int>(i))
      f.fail("channels[" + std::to_string(i) + "].id is " + std::to_string(c.id) + ", expected ids 0, 1, 2, ...");
    c.buffer = f.get<int>(j, "buffer", at);
    if (c.buffer < 0 || c.buffer >= static_cast<int>(plan.buffers.size()))
      f.fail("channels[" + std::to_string(c.id) + "].buffer " + std::to_string(c.buffer) + " names no buffer");
    c.space = plan.buffers[c.buffer].space;
    const auto& p = f.at(j, "producer", at);
    c.producer = {f.get<int>(p, "op", at + "producer."), f.get_or<int>(p, "partition", at + "producer.", kNoPartition)};
    const OrderedJson& consumers = j.contains("consumers") && !j["consumers"].is_null() ? j["consumers"] : OrderedJson::array();
    if (!consumers.is_array()) f.fail("field '" + at + "consumers' has the wrong type");
    for (std::size_t n = 0; n < consumers.size(); ++n) {
      const std::string end = at + "consumers[" + std::to_string(n) + "].";
      c.consumers.push_back({f.get<int>(consumers[n], "op", end), f.get_or<int>(consumers[n], "partition", end, kNoPartition)});
    }
    c.operand_d = f.get_or<bool>(j, "operand_d", at, false);
    plan.channels.push_back(std::move(c));
  }
  for (const auto& b : plan.buffers)
    for (int c : b.channels)
      if (c < 0 || c >= static_cast<int>(plan.channels.size()))
        f.fail("buffers[" + std::to_string(b.id) + "].channels names no channel (" + std::to_string(c) + ")");
  const auto& s = f.at(doc, "summary", "");
  const std::string at = "summary.";
  Summary& sum = plan.summary;
  sum.smem_peak_bytes = f.get_or<std::int64_t>(s, "smem_peak_bytes", at, 0);
  sum.smem_limit_bytes = f.get_or<std::int64_t>(s, "smem_limit_bytes", at, 0);
  sum.smem_peak_op = f.get_or<int>(s, "smem_peak_op", at, 0);
  sum.smem_live_at_peak = f.get_or<std::vector<int>>(s, "smem_live_at_peak", at, {});
  sum.tmem_peak_cols = f.get_or<std::int64_t>(s, "tmem_peak_cols", at, 0);
  sum.tmem_allocated_cols = f.get_or<std::int64_t>(s, "tmem_allocated_cols", at, 0);
  sum.tmem_limit_cols = f.get_or<std::int64_t>(s, "tmem_limit_cols", at, 0);
  sum.tmem_peak_op = f.get_or<int>(s, "tmem_peak_op", at, 0);
  sum.tmem_live_at_peak = f.get_or<std::vector<int>>(s, "tmem_live_at_peak", at, {});
  sum.capture_bytes = f.get_or<std::int64_t>(s, "capture_bytes", at, 0);
  sum.triton_shared_bytes = f.get_opt<std::int64_t>(s, "triton_shared_bytes", at);
  // Documents written before smem_total_bytes carried smem_allocated_bytes (vplan's own layout, captures apart).
  const std::int64_t legacy_total = f.get_or<std::int64_t>(s, "smem_allocated_bytes", at, 0) + sum.capture_bytes;
  sum.smem_total_bytes = f.get_or<std::int64_t>(s, "smem_total_bytes", at, legacy_total);
  sum.smem_total_min_bytes = f.get_or<std::int64_t>(s, "smem_total_min_bytes", at, sum.smem_total_bytes);
  sum.scratch_bytes = f.get_or<std::int64_t>(s, "scratch_bytes", at, 0);
  sum.unknown_scratch_bytes = f.get_or<std::int64_t>(s, "unknown_scratch_bytes", at, 0);
  sum.compiler_layout = f.get_or<bool>(s, "compiler_layout", at, false);
  sum.compiler_shared_bytes = f.get_opt<std::int64_t>(s, "compiler_shared_bytes", at);
  sum.compiler_tmem_cols = f.get_opt<std::int64_t>(s, "compiler_tmem_cols", at);
  sum.fits = f.get_or<bool>(s, "fits", at, true);
  sum.notes = f.get_or<std::vector<std::string>>(s, "notes", at, {});
  for (int id : sum.smem_live_at_peak)
    if (id < 0 || id >= static_cast<int>(plan.buffers.size())) f.fail("summary.smem_live_at_peak names no buffer");
  for (int id : sum.tmem_live_at_peak)
    if (id < 0 || id >= static_cast<int>(plan.buffers.size())) f.fail("summary.tmem_live_at_peak names no buffer");
  return plan;
}

Plan read_plan_json(std::string_view text, std::string_view name) {
  return plan_from_document(parse_document(text, name, {kPlanFormat}), name);
}

}  // namespace vtools::vplan
