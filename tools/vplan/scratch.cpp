#include "tools/vplan/scratch.hpp"

#include <algorithm>

#include "tools/vplan/budget.hpp"
#include "tools/vplan/ttgir_type.hpp"

namespace vtools::vplan {

namespace {

// `key = [1, 4]` in a layout's text -> {1, 4}; empty when absent or malformed.
std::vector<std::int64_t> int_list(const std::string& text, const std::string& key) {
  std::vector<std::int64_t> out;
  std::size_t pos = text.find(key + " = [");
  if (pos == std::string::npos) return out;
  pos += key.size() + 4;
  std::int64_t v = 0;
  bool any = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c >= '0' && c <= '9') {
      if (v < (std::int64_t{1} << 40)) v = v * 10 + (c - '0');
      any = true;
    } else if (c == ',' || c == ']') {
      if (!any) return {};
      out.push_back(v);
      v = 0;
      any = false;
      if (c == ']') return out;
    } else if (c != ' ') {
      return {};
    }
  }
  return {};
}

std::string encoding_text(const Module& module, const std::string& encoding) {
  auto it = module.aliases.find(encoding);
  return it == module.aliases.end() ? encoding : it->second;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

// Bytes of one element as Triton's getBitwidth sees it: pointers are 64 bits.
std::int64_t element_bytes_of(const Type& t) {
  if (t.element_type.rfind("!tt.ptr", 0) == 0 || t.text.find("!tt.ptr") != std::string::npos) return 8;
  return (std::max(element_bits(t.element_type), 8) + 7) / 8;
}

std::int64_t elements_of(const Type& t) {
  std::int64_t n = 1;
  for (auto d : t.shape) n *= std::max<std::int64_t>(d, 1);
  return n;
}

// The op's operand types (the types before '->' of a generic op, e.g. `(tensor<..>, tensor<..>) -> (f32, f32)`).
std::vector<const Type*> input_types(const Op& op) {
  std::vector<const Type*> out;
  for (TypeRef t : op.operand_types()) out.push_back(t);
  return out;
}

int int_attribute(const Op& op, const std::string& key, int fallback) {
  const std::string* v = op.attribute(key);
  if (!v) return fallback;
  try {
    return std::stoi(*v);
  } catch (const std::exception&) {
    return fallback;
  }
}

ScratchSize unknown(std::int64_t upper_bound, std::string why) {
  ScratchSize s;
  s.bytes = upper_bound;
  s.exact = false;
  s.why = std::move(why);
  return s;
}

// Warps along `axis` that hold distinct data: the layout's warps, fewer when the shape is smaller than one tile.
std::int64_t unique_warps(const BlockedLayout& l, const std::vector<std::int64_t>& shape, std::size_t axis) {
  return std::min(l.warps_per_cta[axis],
                  std::max<std::int64_t>(1, ceil_div(shape[axis], l.size_per_thread[axis] * l.threads_per_warp[axis])));
}

// tt.reduce: the source shape with the reduced axis replaced by its warps; nothing when one warp holds the axis.
ScratchSize reduce_scratch(const Op& op, const Module& module) {
  auto inputs = input_types(op);
  if (inputs.empty() || inputs[0]->kind != Type::Kind::kTensor) return unknown(0, "its operand type is not printed");
  const Type& src = *inputs[0];
  const auto axis = static_cast<std::size_t>(std::max(0, int_attribute(op, "axis", 0)));
  BlockedLayout l;
  const std::string layout = encoding_text(module, src.encoding);
  std::int64_t warps = 0;
  if (axis < src.shape.size() && parse_blocked_layout(layout, l) && l.warps_per_cta.size() == src.shape.size()) {
    warps = unique_warps(l, src.shape, axis);
  } else if (auto w = int_list(layout, "warpsPerCTA");  // MMA layouts print their warps too
             axis < src.shape.size() && w.size() == src.shape.size() && layout.find("slice<") == std::string::npos) {
    warps = w[axis];
  } else {
    return unknown(std::max<std::int64_t>(elements_of(src), 1) * element_bytes_of(src),
                   "its operand layout " + src.encoding + " does not say how many warps share the axis");
  }
  if (warps <= 1) return {};
  std::int64_t elems = 1;
  for (std::size_t i = 0; i < src.shape.size(); ++i) elems *= i == axis ? warps : std::max<std::int64_t>(src.shape[i], 1);
  std::int64_t bytes_per_elem = 0;
  for (const Type* t : inputs) bytes_per_elem += (std::max(element_bits(t->element_type), 1) + 7) / 8;
  ScratchSize s;
  s.bytes = elems * bytes_per_elem;
  return s;
}

// tt.scan (blocked layouts only, as Triton lowers it): warps x non-axis elements per warp x blocks.
ScratchSize scan_scratch(const Op& op, const Module& module) {
  auto inputs = input_types(op);
  if (inputs.empty() || inputs[0]->kind != Type::Kind::kTensor) return unknown(0, "its operand type is not printed");
  const Type& src = *inputs[0];
  const auto axis = static_cast<std::size_t>(std::max(0, int_attribute(op, "axis", 0)));
  BlockedLayout l;
  if (axis >= src.shape.size() || !parse_blocked_layout(encoding_text(module, src.encoding), l) ||
      l.warps_per_cta.size() != src.shape.size())
    return unknown(0, "its operand layout " + src.encoding + " is not a blocked layout vplan can read");
  if (unique_warps(l, src.shape, axis) == 1) return {};
  std::int64_t warps = 1, non_axis_threads = 1, non_axis_elems = 1, non_axis_blocks = 1;
  for (std::size_t i = 0; i < src.shape.size(); ++i) {
    warps *= l.warps_per_cta[i];
    if (i == axis) continue;
    non_axis_threads *= l.threads_per_warp[i];
    non_axis_elems *= l.size_per_thread[i];
    non_axis_blocks *= ceil_div(src.shape[i], l.size_per_thread[i] * l.threads_per_warp[i] * l.warps_per_cta[i]);
  }
  const std::int64_t axis_blocks =
      ceil_div(src.shape[axis], l.size_per_thread[axis] * l.threads_per_warp[axis] * l.warps_per_cta[axis]);
  std::int64_t bytes_per_elem = 0;
  for (const Type* t : inputs) bytes_per_elem += (std::max(element_bits(t->element_type), 1) + 7) / 8;
  ScratchSize s;
  s.bytes = warps * non_axis_threads * non_axis_elems * axis_blocks * non_axis_blocks * bytes_per_elem;
  return s;
}

}  // namespace

bool parse_blocked_layout(const std::string& text, BlockedLayout& out) {
  if (text.find("#ttg.blocked<") == std::string::npos) return false;
  out.size_per_thread = int_list(text, "sizePerThread");
  out.threads_per_warp = int_list(text, "threadsPerWarp");
  out.warps_per_cta = int_list(text, "warpsPerCTA");
  const std::size_t rank = out.size_per_thread.size();
  if (rank == 0 || out.threads_per_warp.size() != rank || out.warps_per_cta.size() != rank) return false;
  for (std::size_t i = 0; i < rank; ++i)
    if (out.size_per_thread[i] <= 0 || out.threads_per_warp[i] <= 0 || out.warps_per_cta[i] <= 0) return false;
  return true;
}

bool scratch_depends_on_use(const Op& op) { return op.name == "tt.atomic_rmw" || op.name == "tt.atomic_cas"; }

ScratchSize op_scratch(const Op& op, const Module& module, bool used, int threads_per_warp) {
  const std::string& n = op.name;
  if (n == "tt.reduce") return reduce_scratch(op, module);
  if (n == "tt.scan") return scan_scratch(op, module);
  if (n == "ttng.tensormap_create") return {128, kScratchAlignment, true, ""};
  if (n == "ttg.warp_specialize") return {warp_specialize_capture_bytes(op), 8, true, ""};
  if (n == "ttg.convert_layout") {
    // Triton sizes it by the swizzled shared-memory layout of the two register layouts (the tensor divided by the
    // repetitions of the optimal swizzle), and needs none when the conversion stays within warps.
    if (op.result_types().empty() || op.result_types()[0]->kind != Type::Kind::kTensor) return {};
    const Type& t = *op.result_types()[0];
    return unknown(elements_of(t) * element_bytes_of(t),
                   "Triton sizes it from the swizzled layout of both register layouts; vplan takes the whole tensor");
  }
  if (scratch_depends_on_use(op)) {
    if (!used || op.result_types().empty()) return {};
    const Type& r = *op.result_types()[0];
    if (r.kind != Type::Kind::kTensor)
      return {std::max<std::int64_t>(8, element_bits(r.element_type)) / 8, kScratchAlignment, true, ""};
    // A tensor result needs scratch only when its layout broadcasts (repeats elements across threads).
    return unknown(elements_of(r) * std::max<std::int64_t>(8, element_bits(r.element_type)) / 8,
                   "a tensor atomic needs it only when its layout broadcasts, which vplan does not read");
  }
  if (n == "tt.histogram") {
    if (op.result_types().empty()) return {};
    const Type& r = *op.result_types()[0];
    return {std::max<std::int64_t>(elements_of(r), threads_per_warp) * std::max(element_bits(r.element_type), 8) / 8,
            kScratchAlignment, true, ""};
  }
  if (n == "tt.gather") return unknown(0, "gather scratch is not modelled");
  if (n == "tt.call") return unknown(0, "the callee's shared memory is not modelled");
  return {};
}

}  // namespace vtools::vplan
