#include "tools/vplan/buffers.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "tools/vplan/ttgir_type.hpp"

namespace vtools::vplan {

namespace {
// Shapes come from input text: saturate instead of overflowing (anything this large is over budget anyway).
constexpr std::int64_t kHuge = std::int64_t{1} << 50;
std::int64_t saturating_mul(std::int64_t a, std::int64_t b) { return a > kHuge / std::max<std::int64_t>(b, 1) ? kHuge : a * b; }
}  // namespace

std::int64_t smem_bytes(const Type& type) {
  std::int64_t elems = 1;
  for (auto d : type.shape) elems = saturating_mul(elems, d > 0 ? d : 1);
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
  const std::int64_t m = s.size() >= 2 ? s[s.size() - 2] : 128;
  const std::int64_t n = s.empty() ? 1 : s.back();
  copies = s.size() >= 3 ? static_cast<int>(std::clamp<std::int64_t>(s[0], 1, 1 << 20)) : 1;
  const int bits = element_bits(type.element_type) == 0 ? 32 : element_bits(type.element_type);
  // colStride = 1 packs 32 / bits elements per 32-bit column; colStride = 32 / bits (or unpacked = true) does not.
  bool packed = bits < 32 && encoding_int(encoding_text, "colStride", 1) == 1 &&
                encoding_text.find("unpacked = true") == std::string::npos;
  std::int64_t per_copy = packed ? (saturating_mul(n, bits) + 31) / 32 : n;
  if (m > 128) per_copy = saturating_mul(per_copy, (m + 127) / 128);
  rows = static_cast<int>(m < 128 ? (m > 0 ? m : 0) : 128);
  cols = static_cast<int>(std::min<std::int64_t>(saturating_mul(per_copy, std::max(copies, 1)), 1 << 30));
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
    if (op.results.empty() || op.result_types.empty() || op.result_types[0].kind != Type::Kind::kMemDesc) return;
    const Type& t = op.result_types[0];
    Buffer b;
    b.id = static_cast<int>(out_.buffers.size());
    b.value = op.results[0];
    b.name = op.loc.name.empty() ? op.results[0] : op.loc.name;
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
      b.copies = t.shape.size() >= 3 ? static_cast<int>(std::clamp<std::int64_t>(t.shape[0], 1, 1 << 20)) : 1;
      // 1024 for NVMMA (swizzled, TMA-addressable) layouts as Triton requires; else the element size, at least 8
      // (mbarriers pack at 8 bytes, which matches Triton's totals on the bundled fixtures).
      const std::int64_t elem_bytes = (element_bits(t.element_type) + 7) / 8;
      b.alignment = enc.find("nvmma_shared") != std::string::npos ? 1024 : std::max<std::int64_t>(8, elem_bytes);
    }
    scope[op.results[0]] = b.id;
    out_.buffers.push_back(std::move(b));
    if (!op.operands.empty()) out_.accesses.push_back({static_cast<int>(out_.buffers.size()) - 1, id, Access::kWrite});
  }

  void visit(const Op& op, Scope& scope, std::unordered_set<std::string>& false_consts) {
    const int id = order_.id_of.at(&op);
    if (op.name == "arith.constant" && !op.results.empty()) {
      for (const auto& k : op.keywords)
        if (k == "false") false_consts.insert(op.results[0]);
    }
    if (is_alloc_op(op)) {
      add_buffer(op, id, scope);
    } else if (is_view_op(op)) {
      int b = op.operands.empty() ? -1 : buffer_of(scope, op.operands[0]);
      if (b >= 0 && !op.results.empty()) scope[op.results[0]] = b;
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
        if (b >= 0) inner[region.args[i]] = b;
      }
      walk(region.ops, inner, inner_false);
    }
  }

  const OpOrder& order_;
  const Module& module_;
  BufferTrace& out_;
};

}  // namespace

BufferTrace trace_buffers(const Op& function, const OpOrder& order, const Module& module) {
  BufferTrace out;
  Tracer tracer(order, module, out);
  Tracer::Scope scope;
  std::unordered_set<std::string> false_consts;
  for (const Region& region : function.regions) tracer.walk(region.ops, scope, false_consts);
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
