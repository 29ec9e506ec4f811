#include "tools/vplan/plan_diff.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "formats/plan/budget_figures.hpp"

namespace vtools::vplan {

namespace {

// Keys with ordinals: the second "acc (barrier)" is "smem acc (barrier) #2".
std::vector<std::string> keyed(const Plan& p) {
  std::vector<std::string> out;
  std::unordered_map<std::string, int> seen;
  for (const Buffer& b : p.buffers) {
    std::string k = buffer_key(b);
    const int n = ++seen[k];
    out.push_back(n == 1 ? k : k + " #" + std::to_string(n));
  }
  return out;
}

std::string size_text(const Buffer& b) {
  if (b.space == MemorySpace::kTmem) return std::to_string(b.rows) + "x" + std::to_string(b.cols) + " cols";
  return (b.size_exact ? "" : "<=") + std::to_string(b.bytes) + " B";
}

std::string shape_text(const Buffer& b) {
  std::string s;
  for (auto d : b.shape) s += std::to_string(d) + "x";
  return s + b.element_type + (b.copies > 1 ? " (" + std::to_string(b.copies) + " copies)" : "");
}

std::string offset_text(const Buffer& b) {
  if (b.compiler_offsets.empty()) return std::to_string(b.offset) + " (vplan's)";
  std::string s;
  for (auto o : b.compiler_offsets) s += (s.empty() ? "" : "/") + std::to_string(o);
  return s;
}

std::string planner_text(const Buffer& b) {
  if (b.planner_id < 0) return "";
  return "buffer.id " + std::to_string(b.planner_id) +
         (b.planner_copy > 0 ? ", buffer.copy " + std::to_string(b.planner_copy) : "") +
         (b.planner_offset >= 0 ? ", buffer.offset " + std::to_string(b.planner_offset) : "");
}

std::string partition_text(int p) { return p == kNoPartition ? "-" : "P" + std::to_string(p); }

// A channel as text that survives renumbering: the buffer's key, the producer and consumers by partition and op.
std::vector<std::string> channel_texts(const Plan& p, const std::vector<std::string>& keys) {
  std::vector<std::string> out;
  for (const Channel& c : p.channels) {
    std::vector<std::string> consumers;
    for (const auto& e : c.consumers)
      consumers.push_back(partition_text(e.partition) + " " + (e.op < static_cast<int>(p.ops.size()) ? p.ops[e.op].name : "?"));
    std::sort(consumers.begin(), consumers.end());
    consumers.erase(std::unique(consumers.begin(), consumers.end()), consumers.end());
    std::string s = keys[c.buffer] + ": " + partition_text(c.producer.partition) + " " +
                    (c.producer.op < static_cast<int>(p.ops.size()) ? p.ops[c.producer.op].name : "?") + " ->";
    for (const auto& e : consumers) s += " " + e + (&e == &consumers.back() ? "" : ",");
    out.push_back(s + (c.operand_d ? " (OperandD)" : ""));
  }
  return out;
}

// Reuse groups of the WS planner: members' keys per buffer.id.
std::vector<std::string> group_texts(const Plan& p, const std::vector<std::string>& keys) {
  std::map<int, std::vector<std::string>> groups;
  for (const Buffer& b : p.buffers)
    if (b.planner_id >= 0) groups[b.planner_id].push_back(keys[b.id]);
  std::vector<std::string> out;
  for (auto& [id, members] : groups) {
    std::sort(members.begin(), members.end());
    std::string s;
    for (const auto& m : members) s += (s.empty() ? "" : " + ") + m;
    out.push_back(s);
  }
  return out;
}

// Multiset difference both ways: what only `a` has is removed, what only `b` has is added.
void compare_sets(std::vector<std::string> a, std::vector<std::string> b, const std::string& section,
                  std::vector<PlanChange>& out) {
  std::map<std::string, int> count;
  for (const auto& s : b) ++count[s];
  for (const auto& s : a)
    if (count[s]-- <= 0) out.push_back({section, "removed", s, s, ""});
  std::map<std::string, int> count_a;
  for (const auto& s : a) ++count_a[s];
  for (const auto& s : b)
    if (count_a[s]-- <= 0) out.push_back({section, "added", s, "", s});
}

void compare_value(const std::string& section, const std::string& subject, const std::string& before,
                   const std::string& after, std::vector<PlanChange>& out, const std::string& change = "changed") {
  if (before != after) out.push_back({section, change, subject, before, after});
}

std::string fits_text(const Summary& s) { return s.fits ? "fits" : "over budget"; }

}  // namespace

std::string buffer_key(const Buffer& b) {
  return std::string(space_name(b.space)) + " " + (b.is_scratch() ? "scratch " + b.scratch_op + " " : "") + b.name +
         (b.barrier ? " (barrier)" : "");
}

PlanDiff diff_plans(const Plan& a, const Plan& b) {
  PlanDiff d;
  d.a_kernel = a.kernel.name;
  d.b_kernel = b.kernel.name;
  d.a_source = a.kernel.source;
  d.b_source = b.kernel.source;
  auto& out = d.changes;
  compare_value("kernel", "target", a.kernel.target, b.kernel.target, out);
  compare_value("kernel", "warps in all", std::to_string(a.kernel.total_warps), std::to_string(b.kernel.total_warps),
                out);

  const auto ka = keyed(a), kb = keyed(b);
  std::unordered_map<std::string, int> in_b;
  for (std::size_t i = 0; i < kb.size(); ++i) in_b[kb[i]] = static_cast<int>(i);
  std::vector<bool> matched(kb.size(), false);
  for (std::size_t i = 0; i < ka.size(); ++i) {
    auto it = in_b.find(ka[i]);
    const Buffer& x = a.buffers[i];
    if (it == in_b.end()) {
      out.push_back({"buffer", "removed", ka[i], size_text(x) + " " + shape_text(x), ""});
      continue;
    }
    matched[it->second] = true;
    const Buffer& y = b.buffers[it->second];
    compare_value("buffer", ka[i], size_text(x) + " " + shape_text(x), size_text(y) + " " + shape_text(y), out,
                  "resized");
    compare_value("buffer", ka[i] + " offset", offset_text(x), offset_text(y), out, "moved");
    compare_value("reuse", ka[i], planner_text(x), planner_text(y), out);
  }
  for (std::size_t i = 0; i < kb.size(); ++i)
    if (!matched[i]) out.push_back({"buffer", "added", kb[i], "", size_text(b.buffers[i]) + " " + shape_text(b.buffers[i])});

  compare_sets(group_texts(a, ka), group_texts(b, kb), "reuse group", out);
  compare_sets(channel_texts(a, ka), channel_texts(b, kb), "channel", out);
  std::vector<std::string> pa, pb;
  for (const auto& p : a.partitions)
    pa.push_back("P" + std::to_string(p.id) + " " + p.region + " " + std::to_string(p.num_warps) + " warps");
  for (const auto& p : b.partitions)
    pb.push_back("P" + std::to_string(p.id) + " " + p.region + " " + std::to_string(p.num_warps) + " warps");
  compare_sets(pa, pb, "partition", out);

  const Summary &sa = a.summary, &sb = b.summary;
  // The names and values of formats/plan/budget_figures.hpp (peaks without their op: op ids differ between kernels).
  compare_value("total", "SMEM total", smem_total_text(sa), smem_total_text(sb), out);
  compare_value("total", "SMEM peak", std::to_string(sa.smem_peak_bytes) + " B", std::to_string(sb.smem_peak_bytes) + " B",
                out);
  compare_value("total", "SMEM scratch", std::to_string(sa.scratch_bytes) + " B", std::to_string(sb.scratch_bytes) + " B",
                out);
  compare_value("total", "TMEM total", std::to_string(sa.tmem_allocated_cols) + " cols",
                std::to_string(sb.tmem_allocated_cols) + " cols", out);
  compare_value("total", "TMEM peak", std::to_string(sa.tmem_peak_cols) + " cols",
                std::to_string(sb.tmem_peak_cols) + " cols", out);
  auto opt = [](const std::optional<std::int64_t>& v, const char* unit) {
    return v ? std::to_string(*v) + unit : std::string("-");
  };
  compare_value("total", "Triton's shared", opt(triton_shared(sa), " B"), opt(triton_shared(sb), " B"), out);
  compare_value("total", "Triton's TMEM", opt(sa.compiler_tmem_cols, " cols"), opt(sb.compiler_tmem_cols, " cols"), out);
  compare_value("total", "budget verdict", fits_text(sa), fits_text(sb), out);
  return d;
}

}  // namespace vtools::vplan
