#include "tools/vplan/buffers.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "libcommon/error.hpp"
#include "tools/vplan/scratch.hpp"
#include "tools/vplan/ttgir_type.hpp"

namespace vtools::vplan {

namespace {
// Shapes come from input text: saturate instead of overflowing (anything this large is over budget anyway).
constexpr std::int64_t kHuge = std::int64_t{1} << 50;
std::int64_t saturating_mul(std::int64_t a, std::int64_t b) { return a > kHuge / std::max<std::int64_t>(b, 1) ? kHuge : a * b; }
std::string dims_text(const std::vector<std::int64_t>& shape) {
  std::string out;
  for (auto d : shape) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}
}  // namespace

std::int64_t smem_bytes(const Type& type) {
  std::int64_t elems = 1;
  for (auto d : type.shape) {
    if (d == 0) return 0;  // an empty memdesc holds nothing (a dynamic, negative, dimension counts as 1)
    elems = saturating_mul(elems, d > 0 ? d : 1);
    if (elems >= kHuge) return -1;
  }
  int bits = element_bits(type.element_type);
  if (bits == 0) bits = 8;
  return (elems * bits + 7) / 8;
}

namespace {

// The integer after `key = ` in an encoding's text ("colStride = 1"), or `fallback`.
int encoding_int(const std::string& text, const std::string& key, int fallback) {
  std::size_t pos = text.find(key + " = ");
  if (pos == std::string::npos) return fallback;
  pos += key.size() + 3;
  int v = 0;
  bool any = false;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && v < 1000000) v = v * 10 + (text[pos++] - '0'), any = true;
  return any ? v : fallback;
}

}  // namespace

void tmem_size(const Type& type, const std::string& encoding_text, int& rows, int& cols, int& copies) {
  const auto& s = type.shape;
  const int split_m = std::max(1, encoding_int(encoding_text, "CTASplitM", 1));
  const int split_n = std::max(1, encoding_int(encoding_text, "CTASplitN", 1));
  const std::int64_t m = std::max<std::int64_t>(1, (s.size() >= 2 ? s[s.size() - 2] : 128) / split_m);  // one CTA's
  const std::int64_t n = std::max<std::int64_t>(1, (s.empty() ? 1 : s.back()) / split_n);
  copies = s.size() >= 3 ? static_cast<int>(std::clamp<std::int64_t>(s[0], 1, 1 << 20)) : 1;
  const int bits = element_bits(type.element_type) == 0 ? 32 : element_bits(type.element_type);
  rows = 128;
  std::int64_t per_copy = 0;
  if (encoding_text.find("tensor_memory_scales_encoding") != std::string::npos) {
    // Scales: 32 lanes x 4 bytes hold a 64 x 4 tile (replicated over the 4 warps' lanes), tiles repeated in columns.
    per_copy = saturating_mul(2 * ((m + 63) / 64), (n + 3) / 4);
  } else {
    // Element columns of the layout: one block of blockM rows x blockN, repeated along the columns. An M = 64 block
    // takes lanes 0-15 of each warp; a second block of N (or of M) goes into lanes 16-31, else they stay free and
    // the allocation takes 64 rows.
    const int block_m = encoding_int(encoding_text, "blockM", m >= 128 ? 128 : 64);
    const int n_default = static_cast<int>(std::min<std::int64_t>(n, 1 << 20));
    const std::int64_t block_n = std::min<std::int64_t>(encoding_int(encoding_text, "blockN", n_default), n);
    std::int64_t elem_cols = saturating_mul(n, std::max<std::int64_t>(1, m / 128));
    if (block_m == 64 && m <= 64) {
      if (n > block_n) elem_cols = n / 2;
      else rows = 64, elem_cols = n;
    }
    // colStride: element slots per 32-bit column step; 1 packs 32 / bits elements per column ("unpacked = true",
    // the older spelling, is a stride of 32 / bits).
    const int col_stride = encoding_text.find("unpacked = true") != std::string::npos
                               ? std::max(1, 32 / bits)
                               : std::max(1, encoding_int(encoding_text, "colStride", 1));
    per_copy = (saturating_mul(saturating_mul(elem_cols, col_stride), bits) + 31) / 32;
  }
  cols = static_cast<int>(std::min<std::int64_t>(saturating_mul(per_copy, std::max(copies, 1)), 1 << 30));
}

std::vector<std::int64_t> parse_int_list(const std::string& value) {
  // Integers separated by commas; a scalar's type (" : i32") or the closing '>' / ']' ends the list.
  std::vector<std::int64_t> out;
  std::size_t i = value.find("array<");
  i = i == std::string::npos ? 0 : value.find(':', i);
  if (i == std::string::npos) return out;
  if (value.compare(0, 6, "array<") == 0) ++i;
  std::int64_t v = 0;
  bool any = false, neg = false;
  for (; i <= value.size(); ++i) {
    const char c = i < value.size() ? value[i] : '\0';
    if (c >= '0' && c <= '9') {
      if (v < (std::int64_t{1} << 50)) v = v * 10 + (c - '0');
      any = true;
      continue;
    }
    if (c == '-' && !any && !neg) {
      neg = true;
      continue;
    }
    if (c == ' ' || c == '[') continue;
    if (any) out.push_back(neg ? -v : v);
    if (c != ',') break;
    v = 0;
    any = neg = false;
  }
  return out;
}

void read_compiler_attributes(const Op& op, Buffer& b, const std::string& source) {
  // Offsets and ids are non-negative i32 values: anything else is a malformed attribute, located at its op.
  auto integers = [&](const char* key, bool list) -> std::vector<std::int64_t> {
    const std::string* v = op.attribute(key);
    if (!v) return {};
    auto out = parse_int_list(*v);
    bool ok = !out.empty() && (list || out.size() == 1);
    for (auto x : out) ok = ok && x >= 0 && x <= 2147483647;
    if (!ok)
      throw Error(ExitCode::kDataError,
                  std::string("expected ") + (list ? "a non-negative i32 or array<i32: ...>" : "a non-negative i32") +
                      " for '" + key + "', got '" + *v + "'",
                  SourceLocation{source, op.line, op.column});
    return out;
  };
  if (auto v = integers("allocation.offset", true); !v.empty()) b.compiler_offsets = v;
  if (auto v = integers("tensor_memory_col_offset", false); !v.empty()) b.compiler_offsets = v;
  if (auto v = integers("tensor_memory_row_offset", false); !v.empty()) b.compiler_row_offset = static_cast<int>(v[0]);
  if (auto v = integers("buffer.id", false); !v.empty()) b.planner_id = static_cast<int>(v[0]);
  if (auto v = integers("buffer.copy", false); !v.empty()) b.planner_copy = static_cast<int>(v[0]);
  if (auto v = integers("buffer.offset", false); !v.empty()) b.planner_offset = v[0];
}

namespace {

class Tracer {
 public:
  Tracer(const OpOrder& order, const Module& module, BufferTrace& out) : order_(order), module_(module), out_(out) {}

  using Scope = std::unordered_map<std::string, int>;

  void walk(const std::vector<Op>& ops, Scope& scope, std::unordered_set<std::string>& false_consts) {
    for (const Op& op : ops) visit(op, scope, false_consts);
  }

 private:
  static std::string value_base(const std::string& v) {
    auto hash = v.find('#');
    return hash == std::string::npos ? v : v.substr(0, hash);
  }

  int buffer_of(const Scope& scope, const std::string& value) const {
    auto it = scope.find(value_base(value));
    return it == scope.end() ? -1 : it->second;
  }

  std::string encoding_text(const std::string& encoding) const {
    auto it = module_.aliases.find(encoding);
    return it == module_.aliases.end() ? encoding : it->second;
  }

  void add_buffer(const Op& op, int id, Scope& scope) {
    if (op.result.empty() || op.result_types().empty() || op.result_types()[0]->kind != Type::Kind::kMemDesc) return;
    const Type& t = *op.result_types()[0];
    Buffer b;
    b.id = static_cast<int>(out_.buffers.size());
    b.value = op.result;
    b.name = op.loc.name.empty() ? op.result : op.loc.name;
    b.loc = op.loc;
    b.alloc_op = id;
    b.shape = t.shape;
    b.element_type = t.element_type;
    b.encoding = t.encoding;
    const std::string enc = encoding_text(t.encoding);
    if (op.name == "ttng.tmem_alloc" || t.tensor_memory) {
      b.space = MemorySpace::kTmem;
      tmem_size(t, enc, b.rows, b.cols, b.copies);
      b.bytes = saturating_mul(static_cast<std::int64_t>(b.rows) * 4, b.cols);
      b.alignment = 1;
    } else {
      b.space = MemorySpace::kSmem;
      b.bytes = smem_bytes(t);
      // A size at the cap is not a size: refuse it rather than report 2^50 elements' bytes as exact.
      if (b.bytes < 0)
        throw Error(ExitCode::kDataError,
                    "expected a shared memory buffer of fewer than 2^50 elements, got a memdesc of shape " +
                        dims_text(t.shape),
                    SourceLocation{module_.name, op.line, op.column});
      b.copies = t.shape.size() >= 3 ? static_cast<int>(std::clamp<std::int64_t>(t.shape[0], 1, 1 << 20)) : 1;
      // 1024 for NVMMA (swizzled, TMA-addressable) layouts as Triton requires; else 16, Triton 3.6's default for
      // local_alloc (the compiler's offsets of the mbarrier arrays in tests/data/vplan/compiler step by 16).
      b.alignment = enc.find("nvmma_shared") != std::string::npos ? 1024 : 16;
    }
    read_compiler_attributes(op, b, module_.name);
    scope[op.result] = b.id;
    out_.buffers.push_back(std::move(b));
    if (!op.operands.empty()) out_.accesses.push_back({static_cast<int>(out_.buffers.size()) - 1, id, Access::kWrite});
  }

  // Scratch of a non-alloc op: Triton's size rules (scratch.hpp); `allocation.size` wins where a compiler wrote it,
  // and an op with `allocation.offset` has scratch even when vplan's rules give none.
  void add_scratch(const Op& op, int id) {
    const bool used = scratch_depends_on_use(op) && !op.result.empty() && used_.count(op.result) > 0;
    ScratchSize size = op_scratch(op, module_, used, threads_per_warp_);
    const std::string* given = op.attribute("allocation.size");
    if (given) {
      auto v = parse_int_list(*given);
      if (v.size() != 1 || v[0] < 0 || v[0] > 2147483647)
        throw Error(ExitCode::kDataError, "expected a non-negative i32 for 'allocation.size', got '" + *given + "'",
                    SourceLocation{module_.name, op.line, op.column});
      size = {v[0], size.alignment, true, ""};
    }
    const bool placed = op.attribute("allocation.offset") != nullptr;
    if (post_allocation_ && !placed) return;  // the compiler decided it needs none
    if (placed && !given && size.bytes <= 0 && size.exact)
      size = {0, size.alignment, false, "the compiler gave it scratch, but vplan has no rule that sizes it"};
    if (size.bytes <= 0 && !placed && size.exact) return;
    Buffer b;
    b.scratch_op = op.name;
    b.value = op.result.empty() ? "" : op.result;
    b.name = std::string(op_base_name(op.name)) + (b.value.empty() ? "" : " " + b.value);
    b.loc = op.loc;
    b.alloc_op = id;
    b.space = MemorySpace::kSmem;
    b.bytes = std::max<std::int64_t>(size.bytes, 0);
    b.alignment = size.alignment;
    b.size_exact = size.exact;
    read_compiler_attributes(op, b, module_.name);
    if (!size.exact) unknown_.push_back(size.why);
    else unknown_.emplace_back();
    scratch_.push_back(std::move(b));
  }

  void visit(const Op& op, Scope& scope, std::unordered_set<std::string>& false_consts) {
    const int id = order_.id_of.at(&op);
    if (!is_alloc_op(op)) add_scratch(op, id);
    if (op.name == "arith.constant" && !op.result.empty()) {
      for (const auto& k : op.keywords())
        if (k == "false") false_consts.insert(op.result);
    }
    if (is_alloc_op(op)) {
      add_buffer(op, id, scope);
    } else if (is_view_op(op)) {
      int b = op.operands.empty() ? -1 : buffer_of(scope, op.operands[0]);
      if (b >= 0 && !op.result.empty()) scope[op.result] = b;
    } else if (op.name != "ttg.warp_specialize") {
      const bool use_acc_false = op.operands.size() > 3 && false_consts.count(op.operands[3]);
      for (std::size_t i = 0; i < op.operands.size(); ++i) {
        int b = buffer_of(scope, op.operands[i]);
        if (b < 0) continue;
        Access a = operand_access(op, i, use_acc_false);
        if (op.name == "ttng.init_barrier") out_.buffers[b].barrier = true;
        out_.accesses.push_back({b, id, a});
      }
    }
    for (const Region& region : op.regions) {
      const bool isolated = op.name == "ttg.warp_specialize" && region.label != "default" && !region.label.empty();
      if (!isolated) {
        walk(region.ops, scope, false_consts);
        continue;
      }
      Scope inner;
      std::unordered_set<std::string> inner_false;
      for (std::size_t i = 0; i < region.args.size() && i < op.operands.size(); ++i) {
        int b = buffer_of(scope, op.operands[i]);
        if (b < 0) continue;
        inner[region.args[i]] = b;
        if (out_.captures.empty() || out_.captures.back() != std::make_pair(b, id)) out_.captures.emplace_back(b, id);
      }
      walk(region.ops, inner, inner_false);
    }
  }

  const OpOrder& order_;
  const Module& module_;
  BufferTrace& out_;

 public:
  std::vector<Buffer> scratch_;         ///< scratch buffers, numbered after every allocation (stable planner ids)
  std::vector<std::string> unknown_;    ///< per scratch_ entry: why its size is a bound ("" when exact)
  std::unordered_set<std::string> used_;  ///< results of atomics that some op uses (they need scratch only then)
  int threads_per_warp_ = 32;
  bool post_allocation_ = false;  ///< the module carries ttg.shared: scratch is exactly the ops with an offset
};

// The first results of the ops whose scratch depends on use (atomics: few), then those some operand names.
void collect_use_candidates(const std::vector<Op>& ops, std::unordered_set<std::string>& candidates) {
  for (const Op& op : ops) {
    if (scratch_depends_on_use(op) && !op.result.empty()) candidates.insert(op.result);
    for (const Region& r : op.regions) collect_use_candidates(r.ops, candidates);
  }
}

void collect_used(const std::vector<Op>& ops, const std::unordered_set<std::string>& candidates,
                  std::unordered_set<std::string>& used) {
  for (const Op& op : ops) {
    for (const auto& v : op.operands) {
      const std::string base = v.substr(0, v.find('#'));
      if (candidates.count(base)) used.insert(base);
    }
    for (const Region& r : op.regions) collect_used(r.ops, candidates, used);
  }
}

}  // namespace

BufferTrace trace_buffers(const Op& function, const OpOrder& order, const Module& module) {
  BufferTrace out;
  Tracer tracer(order, module, out);
  std::unordered_set<std::string> candidates;
  for (const Region& region : function.regions) collect_use_candidates(region.ops, candidates);
  if (!candidates.empty())
    for (const Region& region : function.regions) collect_used(region.ops, candidates, tracer.used_);
  tracer.post_allocation_ = module.int_attribute("ttg.shared").has_value();
  tracer.threads_per_warp_ = static_cast<int>(module.int_attribute("ttg.threads-per-warp").value_or(32));
  Tracer::Scope scope;
  std::unordered_set<std::string> false_consts;
  for (const Region& region : function.regions) tracer.walk(region.ops, scope, false_consts);
  for (std::size_t i = 0; i < tracer.scratch_.size(); ++i) {
    Buffer& b = tracer.scratch_[i];
    b.id = static_cast<int>(out.buffers.size());
    if (!tracer.unknown_[i].empty()) out.unknown_scratch.push_back({b.id, tracer.unknown_[i]});
    out.buffers.push_back(std::move(b));
  }
  // Warp specialization passes each partition warp an index through shared memory: one byte per partition warp of
  // the largest warp_specialize, owned by the function and live throughout.
  int partition_warps = 0;
  std::function<void(const std::vector<Op>&)> find_ws = [&](const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.name == "ttg.warp_specialize") {
        int w = 0;
        for (const Region& r : op.regions)
          if (r.label != "default") w += r.num_warps;
        partition_warps = std::max(partition_warps, w);
      }
      for (const Region& r : op.regions) find_ws(r.ops);
    }
  };
  for (const Region& region : function.regions) find_ws(region.ops);
  const bool post_allocation = module.int_attribute("ttg.shared").has_value();
  if (post_allocation ? function.attribute("allocation.offset") != nullptr : partition_warps > 0) {
    Buffer b;
    b.id = static_cast<int>(out.buffers.size());
    b.scratch_op = function.name;
    b.name = "warp indices";
    b.loc = function.loc;
    b.space = MemorySpace::kSmem;
    b.bytes = partition_warps;
    b.alignment = 4;
    read_compiler_attributes(function, b, module.name);
    b.alloc_op = order.ops.empty() ? 0 : static_cast<int>(order.ops.size()) - 1;
    out.buffers.push_back(std::move(b));
  }
  for (auto& a : out.accesses) {
    if (out.buffers[a.buffer].barrier) a.access = Access::kSync;
    auto& users = out.buffers[a.buffer].users;
    if (users.empty() || users.back() != a.op) users.push_back(a.op);
  }
  for (auto& b : out.buffers) {
    std::sort(b.users.begin(), b.users.end());
    b.users.erase(std::unique(b.users.begin(), b.users.end()), b.users.end());
  }
  return out;
}

}  // namespace vtools::vplan
