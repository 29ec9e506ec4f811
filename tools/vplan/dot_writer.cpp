#include "tools/vplan/dot_writer.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vplan/op_effects.hpp"

namespace vtools::vplan {

GraphKind graph_kind_from_name(std::string_view name) {
  if (name == "smem") return GraphKind::kSmem;
  if (name == "tmem") return GraphKind::kTmem;
  if (name == "combined") return GraphKind::kCombined;
  throw Error(ExitCode::kUsage,
              with_suggestion("unknown graph '" + std::string(name) + "' (smem, tmem, combined)", name,
                              {"smem", "tmem", "combined"}));
}

namespace {

constexpr std::array<const char*, 8> kSmemColours = {"lightblue", "lightgreen", "lightyellow", "lightcoral",
                                                     "lightsalmon", "lightcyan", "lavender", "peachpuff"};
constexpr std::array<const char*, 8> kTmemColours = {"lightpink", "lavender", "peachpuff", "thistle",
                                                     "lightyellow", "lightcyan", "wheat", "lightgreen"};
constexpr std::array<const char*, 8> kPartitionColours = {"lightblue", "lightgreen", "lightsalmon", "lightyellow",
                                                          "lightpink", "lightcyan", "lavender", "wheat"};

std::string quoted(std::string_view s) { return dot_quoted(s); }

}  // namespace

std::string dot_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

namespace {

// Record labels treat {}|<> as structure.
std::string record_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '{' || c == '}' || c == '|' || c == '<' || c == '>') out += '\\';
    out += c;
  }
  return out;
}

std::string html(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string interval(const Buffer& b) { return "[" + std::to_string(b.start) + "-" + std::to_string(b.end) + ")"; }

std::string channel_list(const Buffer& b) {
  std::string out;
  for (int c : b.channels) out += (out.empty() ? "" : ", ") + std::string("ch") + std::to_string(c);
  return out.empty() ? "-" : out;
}

void write_liveness(const Plan& plan, MemorySpace space, bool markers, std::ostream& out) {
  const bool smem = space == MemorySpace::kSmem;
  const char* title = smem ? "SMEM Buffer Liveness Graph" : "TMEM Buffer Liveness Graph";
  if (markers) out << "=== " << title << " ===\n";
  out << "digraph " << (smem ? "SmemBufferLiveness" : "TmemBufferLiveness") << " {\n"
      << "  rankdir=LR;\n  node [shape=record, fontsize=9];\n  edge [style=invis];\n";
  std::vector<const Buffer*> shown;
  bool any = false;
  for (const Buffer& b : plan.buffers) {
    if (b.space != space || b.barrier || b.is_scratch()) continue;  // the planner's graphs show allocations only
    any = true;
    if (b.end > b.start) shown.push_back(&b);
  }
  if (!any || shown.empty()) {
    out << "  empty [label=" << quoted(!any ? (smem ? "No SMEM allocations" : "No TMEM allocations")
                                            : "No liveness intervals")
        << "];\n}\n";
    if (markers) out << "=== End " << title << " ===\n";
    return;
  }
  std::set<int> ticks;
  for (const Buffer* b : shown) ticks.insert(b->start), ticks.insert(b->end);
  std::string axis;
  for (int t : ticks) axis += (axis.empty() ? "" : "  |  ") + std::to_string(t);
  out << "  subgraph cluster_axis {\n    label=\"Operation ID\";\n    style=invis;\n"
      << "    axis [label=" << quoted(axis) << "];\n  }\n";
  const char* prefix = smem ? "smem" : "tmem";
  std::string previous = "axis";
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const Buffer& b = *shown[i];
    std::string label = smem ? b.name + " B" + std::to_string(b.id) + " " + interval(b) +
                                   " size=" + std::to_string(b.bytes)
                             : b.name + " " + std::to_string(b.rows) + "x" + std::to_string(b.cols) + " " +
                                   interval(b) + (b.operand_d > 0 ? " [" + std::to_string(b.operand_d) + " OperandD]" : "");
    const auto& colours = smem ? kSmemColours : kTmemColours;
    out << "  // " << (smem ? "SMEM Buffer: " : "TMEM Alloc: ") << b.name << "\n"
        << "  subgraph cluster_" << prefix << "_" << i << " {\n    label=" << quoted(label) << ";\n"
        << "    style=filled; fillcolor=\"" << colours[i % colours.size()] << "\"; color=black;\n";
    std::vector<std::string> nodes;
    for (int cid : b.channels) {
      const Channel& c = plan.channels[cid];
      for (const ChannelEnd& e : c.consumers) {
        std::string node = std::string(prefix) + "_" + std::to_string(i) + "_ch" + std::to_string(cid) + "_" +
                           std::to_string(e.op);
        std::string text = "ch" + std::to_string(cid) + (!smem && c.operand_d ? " [D]" : "") + " (" +
                           std::to_string(c.producer.op) + " to " + std::to_string(e.op) + ")";
        out << "    " << node << " [label=" << quoted(record_text(text)) << ", style=filled, fillcolor=white];\n";
        nodes.push_back(node);
      }
    }
    if (nodes.empty()) {
      std::string node = std::string(prefix) + "_" + std::to_string(i) + "_info";
      out << "    " << node << " [label=\"no channels\", style=filled, fillcolor=white];\n";
      nodes.push_back(node);
    }
    out << "  }\n";
    for (const auto& n : nodes) {
      out << "  " << previous << " -> " << n << ";\n";
      previous = n;
    }
  }
  out << "  subgraph cluster_summary {\n    label=" << quoted(smem ? "SMEM Buffer Summary" : "TMEM Allocation Summary")
      << ";\n    summary [shape=plaintext, label=<\n"
      << "      <TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\">\n";
  if (smem)
    out << "        <TR><TD><B>Name</B></TD><TD><B>BufferID</B></TD><TD><B>Size</B></TD><TD><B>Channels</B></TD>"
           "<TD><B>Liveness</B></TD></TR>\n";
  else
    out << "        <TR><TD><B>Name</B></TD><TD><B>Size</B></TD><TD><B>Channels</B></TD><TD><B>Liveness</B></TD>"
           "<TD><B>OperandD</B></TD></TR>\n";
  for (const Buffer* b : shown) {
    out << "        <TR><TD>" << html(b->name) << "</TD>";
    if (smem)
      out << "<TD>B" << b->id << "</TD><TD>" << b->bytes << "</TD>";
    else
      out << "<TD>" << (b->rows > 0 ? std::to_string(b->rows) + "x" + std::to_string(b->cols) : "-") << "</TD>";
    out << "<TD>" << html(channel_list(*b)) << "</TD><TD>" << interval(*b) << "</TD>";
    if (!smem) out << "<TD>" << b->operand_d << "</TD>";
    out << "</TR>\n";
  }
  out << "      </TABLE>\n    >];\n  }\n  " << previous << " -> summary;\n}\n";
  if (markers) out << "=== End " << title << " ===\n";
}

std::string op_label(const PlanOp& op) {
  std::string operands;
  for (std::size_t i = 0; i < op.operands.size() && i < 4; ++i) operands += (i ? ", " : "") + op.operands[i];
  if (op.operands.size() > 4) operands += ", ...";
  std::string text = "[" + std::to_string(op.id) + "] ";
  if (!op.result.empty()) text += op.result + " = ";
  text += std::string(op_base_name(op.name)) + "(" + operands + ")\n";
  text += (op.shape.empty() ? "" : op.shape + ", ") + (op.loc.line > 0 ? "L" + std::to_string(op.loc.line) : "L?");
  return text;
}

void write_combined(const Plan& plan, bool markers, std::ostream& out) {
  if (markers)
    out << "=== Combined Key Ops + Channel Graph (DOT format) ===\n// Render with: dot -Tpng <file>.dot -o graph.png\n";
  out << "digraph CombinedGraph {\n  rankdir=TB;\n  compound=true;\n"
      << "  node [shape=box, style=filled, fontsize=9];\n  edge [fontsize=7];\n";
  // Border colour: red if the op is an endpoint of a TMEM channel, darkgreen for SMEM, black otherwise.
  std::map<int, const char*> border;
  std::set<int> shown;
  for (const Channel& c : plan.channels) {
    const char* colour = c.space == MemorySpace::kTmem ? "red" : "darkgreen";
    auto mark = [&](int op) {
      shown.insert(op);
      auto [it, fresh] = border.emplace(op, colour);
      if (!fresh && c.space == MemorySpace::kTmem) it->second = "red";
    };
    mark(c.producer.op);
    for (const auto& e : c.consumers) mark(e.op);
  }
  for (const PlanOp& op : plan.ops)
    if (op.key != KeyKind::kNone) shown.insert(op.id);
  std::map<int, std::vector<int>> by_partition;
  // Imported plans may name channel ops that the dump did not describe: they get a bare "[id]" node.
  auto known = [&](int id) { return id >= 0 && id < static_cast<int>(plan.ops.size()); };
  for (int id : shown) by_partition[known(id) ? plan.ops[id].partition : kNoPartition].push_back(id);
  auto node = [&](int id) {
    auto it = border.find(id);
    std::string label = known(id) ? op_label(plan.ops[id]) : "[" + std::to_string(id) + "]";
    return "op_op_" + std::to_string(id) + " [label=" + quoted(label) + ", color=" +
           (it == border.end() ? "black" : it->second) + ", fillcolor=white];";
  };
  for (const auto& [partition, ids] : by_partition) {
    std::string indent = "  ";
    if (partition != kNoPartition) {
      out << "  subgraph cluster_partition_" << partition << " {\n    label=\"Partition " << partition
          << "\";\n    style=filled;\n    color=blue;\n    fillcolor=\""
          << kPartitionColours[static_cast<std::size_t>(partition) % kPartitionColours.size()] << "\";\n";
      indent = "    ";
    }
    for (int id : ids) out << indent << node(id) << "\n";
    for (std::size_t i = 1; i < ids.size(); ++i)
      out << indent << "op_op_" << ids[i - 1] << " -> op_op_" << ids[i] << " [style=invis];\n";
    if (partition != kNoPartition) out << "  }\n";
  }
  for (const Channel& c : plan.channels) {
    const Buffer& b = plan.buffers[c.buffer];
    const bool tmem = c.space == MemorySpace::kTmem;
    std::string label = "ch" + std::to_string(c.id) + " B" + std::to_string(b.id) + "\n\"" + b.name + "\"" +
                        (tmem ? "\n(TMEM)" : "") + (c.operand_d ? " [D]" : "");
    for (const auto& e : c.consumers)
      out << "  op_op_" << c.producer.op << " -> op_op_" << e.op << " [label=" << quoted(label)
          << ", color=" << (tmem ? "red" : "darkgreen") << ", style=" << (c.operand_d ? "bold" : "solid") << "];\n";
  }
  out << "}\n";
  if (markers) out << "=== End Combined Graph ===\n";
}

}  // namespace

void write_dot(const Plan& plan, GraphKind kind, bool markers, std::ostream& out) {
  switch (kind) {
    case GraphKind::kSmem: return write_liveness(plan, MemorySpace::kSmem, markers, out);
    case GraphKind::kTmem: return write_liveness(plan, MemorySpace::kTmem, markers, out);
    case GraphKind::kCombined: return write_combined(plan, markers, out);
  }
}

}  // namespace vtools::vplan
