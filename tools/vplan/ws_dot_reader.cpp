#include "tools/vplan/ws_dot_reader.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "libcommon/error.hpp"
#include "tools/vplan/budget.hpp"
#include "tools/vplan/dot_syntax.hpp"
#include "tools/vplan/ws_log_extract.hpp"

namespace vtools::vplan {

namespace {

// ---- meaning -----------------------------------------------------------------------------------------------------
// libstdc++'s regex recurses per character: labels longer than any the planner writes are not matched.
constexpr std::size_t kMaxLabel = 4096;

struct Builder {
  Plan plan;
  std::string file;  ///< the text being read, for messages
  std::map<std::string, int> buffer_by_key;  // space|name|start|end|id|occurrence
  struct EdgeBuffer {
    MemorySpace space;
    int id;
    std::string name;
  };
  std::map<int, EdgeBuffer> edge_buffer;  // channel id -> buffer named by a combined-graph edge

  /// The buffer a label names. The same label in another graph (a log that dumps a graph twice) is the same buffer;
  /// within one graph, the `occurrence`-th cluster of a label is a buffer of its own (two TMEM accumulators of one
  /// shape and liveness have equal labels, and merging them would hide one from `check`).
  int buffer(MemorySpace space, const std::string& name, int start, int end, int planner_id, int occurrence = 0) {
    std::string key = std::string(space_name(space)) + "|" + name + "|" + std::to_string(start) + "|" +
                      std::to_string(end) + "|" + std::to_string(planner_id) + "|" + std::to_string(occurrence);
    auto it = buffer_by_key.find(key);
    if (it != buffer_by_key.end()) return it->second;
    Buffer b;
    b.id = static_cast<int>(plan.buffers.size());
    b.name = name;
    b.space = space;
    b.start = start;
    b.end = end;
    plan.buffers.push_back(b);
    buffer_by_key[key] = b.id;
    return b.id;
  }

  /// A number of a planner label (an id, an op position, a size in bytes): "?" and "" are 0; more digits than
  /// `max_digits` is bad input, reported rather than cut.
  std::int64_t number(const std::string& s, std::size_t max_digits = 9) const {
    if (s.empty() || s == "?") return 0;
    if (s.size() > max_digits)
      throw Error(ExitCode::kDataError,
                  "expected a number of at most " + std::to_string(max_digits) + " digits in a planner label, got '" +
                      s + "'",
                  SourceLocation{file});
    return std::stoll(s);
  }
  int small(const std::string& s) const { return static_cast<int>(number(s)); }

  /// A label where the planner writes one of a known form, in another form: refused, as skipping it would leave a
  /// plan that silently lacks a buffer, channel or op (and `check` would pass it).
  [[noreturn]] void unreadable(const std::string& expected, const std::string& label, DotPosition at) const {
    throw Error(ExitCode::kDataError, "expected " + expected + ", got " + quoted_value(label, 80),
                SourceLocation{file, at.line, at.column});
  }

  Channel& channel(int id) {
    for (auto& c : plan.channels)
      if (c.id == id) return c;
    Channel c;
    c.id = id;
    c.buffer = -1;
    plan.channels.push_back(c);
    return plan.channels.back();
  }

  void add_consumer(Channel& c, int op) {
    for (const auto& e : c.consumers)
      if (e.op == op) return;
    c.consumers.push_back({op, kNoPartition});
  }
};

void read_liveness(const DotGraph& g, MemorySpace space, Builder& b) {
  static const std::regex smem_re(R"(^(.*) B(\d+) \[(\d+)-(\d+)\) size=(\d+)$)");
  static const std::regex tmem_re(R"(^(.*) (\d+)x(\d+) \[(\d+)-(\d+)\)( \[(\d+) OperandD\])?$)");
  static const std::regex ch_re(R"(^ch(\d+)( \[D\])? \((\d+) to (\d+)\)$)");
  std::map<std::string, int> buffer_of_cluster;
  std::map<std::string, int> occurrences;  // label -> clusters of this graph with it so far
  const std::string prefix = space == MemorySpace::kSmem ? "cluster_smem_" : "cluster_tmem_";
  for (const auto& [cluster, dot_label] : g.cluster_labels) {
    if (cluster.rfind(prefix, 0) != 0) continue;
    const std::string& label = dot_label.text;
    const bool fits = label.size() <= kMaxLabel;
    std::smatch m;
    if (space == MemorySpace::kSmem) {
      if (!fits || !std::regex_match(label, m, smem_re))
        b.unreadable("an SMEM buffer label '<name> B<id> [<start>-<end>) size=<bytes>'", label, dot_label.at);
      int id = b.buffer(space, m[1], b.small(m[3]), b.small(m[4]), b.small(m[2]), occurrences[label]++);
      b.plan.buffers[id].bytes = b.number(m[5], 15);
      buffer_of_cluster[cluster] = id;
    } else {
      if (!fits || !std::regex_match(label, m, tmem_re))
        b.unreadable("a TMEM buffer label '<name> <rows>x<cols> [<start>-<end>)', ' [<k> OperandD]' optional", label,
                     dot_label.at);
      int id = b.buffer(space, m[1], b.small(m[4]), b.small(m[5]), -1, occurrences[label]++);
      Buffer& buf = b.plan.buffers[id];
      buf.rows = b.small(m[2]);
      buf.cols = b.small(m[3]);
      buf.bytes = static_cast<std::int64_t>(buf.rows) * buf.cols * 4;
      buffer_of_cluster[cluster] = id;
    }
  }
  for (const auto& n : g.nodes) {
    auto bit = buffer_of_cluster.find(n.cluster);
    auto lit = n.attrs.find("label");
    if (bit == buffer_of_cluster.end()) continue;
    const std::string label = lit == n.attrs.end() ? std::string() : lit->second;
    if (label == "no channels") continue;
    std::smatch m;
    if (label.size() > kMaxLabel || !std::regex_match(label, m, ch_re))
      b.unreadable("a channel label 'ch<id> (<src> to <dst>)', ' [D]' after the id optional, or 'no channels'", label,
                   n.at);
    Channel& c = b.channel(b.small(m[1]));
    c.buffer = bit->second;
    c.space = space;
    c.operand_d = c.operand_d || m[2].matched;
    c.producer.op = b.small(m[3]);
    b.add_consumer(c, b.small(m[4]));
  }
}

void read_combined(const DotGraph& g, Builder& b) {
  static const std::regex node_re(R"(^op_op_(\d+)$)");
  // An op vplan knows nothing of but its id is written bare ("[12]") or with an empty name ("[12] ()\nL?").
  static const std::regex label_re(R"(^\[(\d+)\] (?:(\S+) = )?([^(\s]*)\((.*)\)\n(?:(\S+), )?L(\d+|\?)$)");
  static const std::regex bare_re(R"(^\[(\d+)\]$)");
  static const std::regex part_re(R"(^cluster_partition_(\d+)$)");
  static const std::regex edge_re(R"re(^ch(\d+) B(\d+)\n"(.*)"(\n\(TMEM\))?( \[D\])?$)re");
  std::map<int, PlanOp> ops;
  for (const auto& n : g.nodes) {
    std::smatch m, lm, pm;
    if (n.id.size() > 64 || !std::regex_match(n.id, m, node_re)) continue;
    PlanOp op;
    op.id = b.small(m[1]);
    auto lit = n.attrs.find("label");
    if (lit != n.attrs.end()) {
      const std::string& label = lit->second;
      if (label.size() <= kMaxLabel && std::regex_match(label, lm, label_re)) {
        op.result = lm[2];
        op.name = lm[3];
        op.shape = lm[5];
        op.loc.line = b.small(lm[6]);
      } else if (label.size() > kMaxLabel || !std::regex_match(label, lm, bare_re)) {
        b.unreadable("an op label '[<id>] <result> = <op>(<operands>)\\n<shape>, L<line>'", label, n.at);
      }
    }
    if (n.cluster.size() <= 64 && std::regex_match(n.cluster, pm, part_re)) op.partition = b.small(pm[1]);
    ops[op.id] = op;
  }
  for (const auto& [id, op] : ops) {
    if (id > 1000000)
      throw Error(ExitCode::kDataError, "expected op ids below 1000000, got " + std::to_string(id),
                  SourceLocation{b.file});
    if (static_cast<int>(b.plan.ops.size()) <= id) b.plan.ops.resize(id + 1);
    b.plan.ops[id] = op;
  }
  for (const auto& e : g.edges) {
    std::smatch fm, tm, lm;
    auto lit = e.attrs.find("label");
    if (lit == e.attrs.end() || e.from.size() > 64 || e.to.size() > 64 || !std::regex_match(e.from, fm, node_re) ||
        !std::regex_match(e.to, tm, node_re))
      continue;  // the invisible edges that keep a partition's ops in order carry no label
    if (lit->second.size() > kMaxLabel || !std::regex_match(lit->second, lm, edge_re))
      b.unreadable("a channel edge label 'ch<id> B<buffer>\\n\"<name>\"', '\\n(TMEM)' and ' [D]' optional",
                   lit->second, e.at);
    Channel& c = b.channel(b.small(lm[1]));
    c.producer.op = b.small(fm[1]);
    b.add_consumer(c, b.small(tm[1]));
    c.operand_d = c.operand_d || lm[5].matched;
    c.space = lm[4].matched ? MemorySpace::kTmem : MemorySpace::kSmem;
    b.edge_buffer[c.id] = {c.space, b.small(lm[2]), lm[3]};
  }
}

// Channels seen only in the combined graph get a buffer per B<id> named on the edge, with unknown liveness.
void resolve_edge_buffers(Builder& b) {
  std::map<int, int> placeholder;  // B id of the dump -> our buffer
  for (auto& c : b.plan.channels) {
    if (c.buffer >= 0) continue;
    auto it = b.edge_buffer.find(c.id);
    if (it == b.edge_buffer.end()) {
      c.buffer = b.buffer(c.space, "?", 0, 0, -1);
      continue;
    }
    auto [p, fresh] = placeholder.emplace(it->second.id, 0);
    if (fresh) p->second = b.buffer(it->second.space, it->second.name + " B" + std::to_string(it->second.id), 0, 0, -1);
    c.buffer = p->second;
  }
}

}  // namespace

namespace {

void finish_imported_plan(Plan& plan, const std::string& name);

std::vector<DotGraph> parse_graphs(std::string_view text, std::string_view name) {
  std::vector<DotGraph> graphs;
  auto marked = extract_ws_graphs(text, name);
  if (marked.empty()) return parse_dot(text, name);
  // A log: parse each marked graph, padded so messages keep the log's line numbers.
  for (const auto& g : marked) {
    std::string padded = std::string(static_cast<std::size_t>(g.dot_line - 1), '\n') + g.dot;
    for (auto& parsed : parse_dot(padded, name)) graphs.push_back(std::move(parsed));
  }
  return graphs;
}

}  // namespace

Plan read_ws_dot_texts(const std::vector<WsDotText>& texts) {
  Builder b;
  for (const auto& t : texts) {
    b.file = t.name;
    auto graphs = parse_graphs(t.text, t.name);
    if (graphs.empty()) {  // reported where one was still expected: the end of the input
      const auto last_newline = t.text.rfind('\n');
      const auto line = 1 + std::count(t.text.begin(), t.text.end(), '\n');
      const auto column = t.text.size() - (last_newline == std::string::npos ? 0 : last_newline + 1) + 1;
      throw Error(ExitCode::kDataError, "expected a planner digraph, got none",
                  SourceLocation{t.name, static_cast<int>(line), static_cast<int>(column)});
    }
    for (const auto& g : graphs) {
      if (g.name == "SmemBufferLiveness") read_liveness(g, MemorySpace::kSmem, b);
      else if (g.name == "TmemBufferLiveness") read_liveness(g, MemorySpace::kTmem, b);
      else if (g.name == "CombinedGraph") read_combined(g, b);
      else
        throw Error(ExitCode::kDataError,
                    "expected digraph SmemBufferLiveness, TmemBufferLiveness or CombinedGraph, got '" + g.name + "'",
                    SourceLocation{t.name});
    }
  }
  resolve_edge_buffers(b);
  if (texts.size() == 1) b.plan.kernel.source = texts[0].name;
  finish_imported_plan(b.plan, texts.empty() ? std::string() : texts[0].name);
  return std::move(b.plan);
}

Plan read_ws_dot(std::string_view text, std::string_view name) {
  return read_ws_dot_texts({WsDotText{std::string(text), std::string(name)}});
}

namespace {

void finish_imported_plan(Plan& plan, const std::string& name) {
  // Op ids index a vector: refuse ids no planner dump has (a kernel of a million ops) instead of allocating them.
  constexpr int kMaxOpId = 1000000;
  auto check_id = [&](int id) {
    if (id > kMaxOpId)
      throw Error(ExitCode::kDataError, "expected op ids below " + std::to_string(kMaxOpId) + ", got " + std::to_string(id),
                  SourceLocation{name});
  };
  for (const auto& c : plan.channels) {
    check_id(c.producer.op);
    for (const auto& e : c.consumers) check_id(e.op);
  }
  for (const auto& b : plan.buffers) check_id(b.end);
  int max_op = static_cast<int>(plan.ops.size()) - 1;
  for (const auto& c : plan.channels) {
    max_op = std::max(max_op, c.producer.op);
    for (const auto& e : c.consumers) max_op = std::max(max_op, e.op);
  }
  for (const auto& b : plan.buffers) max_op = std::max(max_op, b.end);
  if (max_op + 1 > static_cast<int>(plan.ops.size())) plan.ops.resize(max_op + 1);
  std::set<int> partitions;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    plan.ops[i].id = static_cast<int>(i);
    if (plan.ops[i].partition != kNoPartition) partitions.insert(plan.ops[i].partition);
  }
  // Channel ends take their op's partition when the combined graph gave one.
  // Channels are renumbered 0, 1, ... in the dump's id order: ids index plan.channels everywhere in vplan.
  std::sort(plan.channels.begin(), plan.channels.end(), [](const Channel& a, const Channel& b) { return a.id < b.id; });
  for (std::size_t i = 0; i < plan.channels.size(); ++i) plan.channels[i].id = static_cast<int>(i);
  for (auto& b : plan.buffers) b.channels.clear(), b.operand_d = 0;
  for (auto& c : plan.channels) {
    c.producer.partition = plan.ops[c.producer.op].partition;
    for (auto& e : c.consumers) e.partition = plan.ops[e.op].partition;
    plan.buffers[c.buffer].channels.push_back(c.id);
    if (c.operand_d) ++plan.buffers[c.buffer].operand_d;
  }
  plan.partitions.clear();
  for (int p : partitions) {
    Partition part;
    part.id = p;
    for (const auto& op : plan.ops) part.op_count += op.partition == p;
    plan.partitions.push_back(part);
  }
  if (plan.kernel.name.empty()) plan.kernel.name = "imported";
  // Dumps do not name the target: TMEM in the plan means a Blackwell (sm_100) kernel.
  bool has_tmem = false;
  for (const auto& b : plan.buffers) has_tmem = has_tmem || b.space == MemorySpace::kTmem;
  TargetLimits limits = limits_for_target(plan.kernel.target.empty() ? (has_tmem ? "cuda:100" : "cuda:90") : plan.kernel.target);
  compute_budget(plan, limits, 0, std::nullopt);
  if (plan.kernel.target.empty())
    plan.summary.notes.insert(plan.summary.notes.begin(), std::string("planner dumps do not name the target; limits "
                                                                      "are ") + (has_tmem ? "sm_100's" : "sm_90's"));
}

}  // namespace

}  // namespace vtools::vplan
