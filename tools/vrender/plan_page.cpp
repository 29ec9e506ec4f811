#include "tools/vrender/plan_page.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "formats/plan/budget_figures.hpp"
#include "libcommon/human_units.hpp"
#include "tools/vrender/graph_layout.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

using vplan::Buffer;
using vplan::MemorySpace;

std::string dot_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

std::string partition_text(int partition) { return partition == vplan::kNoPartition ? "" : std::to_string(partition); }

// "file:line", or the location's name when it has no file.
std::string loc_text(const vplan::SourceLoc& loc) {
  if (loc.file.empty()) return loc.name;
  return loc.file + (loc.line ? ":" + std::to_string(loc.line) : "");
}

std::string shape_text(const Buffer& b) {
  std::string out;
  for (std::int64_t d : b.shape) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

std::string size_text(const Buffer& b) {
  if (b.space == MemorySpace::kTmem) return (b.rows > 0 ? std::to_string(b.rows) + "x" : "") + std::to_string(b.cols) + " cols";
  return format_bytes_of(static_cast<double>(b.bytes));
}

/// "B3 acc" or "B7 acc (barrier)": the id as vplan's tables write it, so four barriers named "acc" stay apart.
std::string buffer_label(const Buffer& b) {
  return "B" + std::to_string(b.id) + " " + b.name + (b.barrier ? " (barrier)" : "");
}

std::string tooltip(const Buffer& b) {
  return buffer_label(b) + " (" + std::string(vplan::space_name(b.space)) + ")\nshape " + shape_text(b) +
         (b.element_type.empty() ? "" : " " + b.element_type) + ", " + size_text(b) + ", " + std::to_string(b.copies) +
         " copies\nlive [" + std::to_string(b.start) + ", " + std::to_string(b.end) + ")\noffset " +
         std::to_string(b.placed_offset());
}

// Both liveness charts share one x range [0, x_hi) so SMEM and TMEM line up when stacked.
Svg liveness_chart(const std::vector<Buffer>& buffers, MemorySpace space, const std::string& title, double x_hi) {
  LaneChart chart{title, {}, {"op index (program order)", ""}, 0, x_hi, false, {}, 900, 24};
  int i = 0;
  // Data buffers first, then the mbarriers in grey: they hold a few bytes of sync state, not operands.
  for (const bool barriers : {false, true}) {
    for (const auto& b : buffers) {
      if (b.space != space || b.barrier != barriers) continue;
      const double start = b.start, end = std::max(b.end, b.start);
      chart.lanes.push_back({buffer_label(b) + " · " + size_text(b), {{start, end, barriers ? -1 : i++ % 10, b.name, tooltip(b)}}});
    }
  }
  if (chart.lanes.size() > static_cast<std::size_t>(i)) {
    chart.legend = {"data buffer", "mbarrier"};
    chart.legend_colors = {0, -1};
  }
  return render_lane_chart(chart);
}

/// All warps of the kernel; a warp-specialized one also says how many the default partition has.
std::string warps_text(const vplan::PlanKernel& kernel) {
  if (kernel.total_warps != kernel.num_warps)
    return std::to_string(kernel.total_warps) + " (" + std::to_string(kernel.num_warps) + " in the default partition)";
  return kernel.total_warps ? std::to_string(kernel.total_warps) : "";
}

}  // namespace

std::string combined_graph_dot(const vplan::Plan& plan) {
  std::string out = "digraph combined {\n  rankdir=LR;\n  graph [fontname=\"Helvetica\", fontsize=11];\n  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", fillcolor=\"#dce6f2\"];\n";
  std::map<std::string, std::vector<std::string>> by_partition;
  std::set<std::string> op_ids;
  const bool any_key = std::any_of(plan.ops.begin(), plan.ops.end(),
                                   [](const vplan::PlanOp& op) { return op.key != vplan::KeyKind::kNone; });
  for (const auto& op : plan.ops) {
    if (any_key && op.key == vplan::KeyKind::kNone) continue;
    if (!any_key && op_ids.size() >= 60) break;
    const std::string id = std::to_string(op.id);
    op_ids.insert(id);
    const std::string partition = op.partition == vplan::kNoPartition ? "default" : std::to_string(op.partition);
    by_partition[partition].push_back("    op" + id + " [label=" + dot_quote(op.name + " #" + id) + "];\n");
  }
  int k = 0;
  for (const auto& [partition, nodes] : by_partition) {
    out += "  subgraph cluster_" + std::to_string(k++) + " {\n    label=" + dot_quote("partition " + partition) + ";\n    style=rounded;\n";
    for (const auto& n : nodes) out += n;
    out += "  }\n";
  }
  auto endpoint = [&](const vplan::ChannelEnd& e) {
    const std::string t = std::to_string(e.op);
    return op_ids.count(t) ? "op" + t : dot_quote("op " + t);
  };
  // Buffers that carry a channel (all of them when the plan has no channels); the rest are in the tables.
  std::set<int> channel_buffers;
  for (const auto& c : plan.channels) channel_buffers.insert(c.buffer);
  for (const auto& b : plan.buffers)
    if (channel_buffers.empty() || channel_buffers.count(b.id))
      out += "  buf" + std::to_string(b.id) + " [label=" + dot_quote(buffer_label(b) + "\n" + size_text(b)) +
             ", shape=cylinder, fillcolor=\"" + (b.space == MemorySpace::kTmem ? "#e2f0d9" : "#fbe5d6") + "\"];\n";
  for (const auto& c : plan.channels) {
    const std::string buf = std::to_string(c.buffer);
    out += "  " + endpoint(c.producer) + " -> buf" + buf + ";\n";
    for (const auto& dst : c.consumers) out += "  buf" + buf + " -> " + endpoint(dst) + ";\n";
  }
  return out + "}\n";
}

Page plan_page(const vplan::Plan& plan, std::string_view name) {
  const vplan::Summary& sum = plan.summary;
  Page page{"Memory plan: " + (plan.kernel.name.empty() ? std::string("kernel") : plan.kernel.name), std::string(name), {}};
  Section summary{"Summary", {}, {}, {}, {}, {}};
  std::vector<Fact> facts = {{"kernel", plan.kernel.name}, {"target", plan.kernel.target}, {"warps", warps_text(plan.kernel)}};
  // The budget by the names and values vplan's table and check print (formats/plan/budget_figures.hpp).
  for (auto& f : vplan::budget_figures(sum)) facts.push_back({std::move(f.name), std::move(f.value)});
  for (auto& f : facts)
    if (!f.value.empty()) summary.facts.push_back(std::move(f));
  page.sections.push_back(std::move(summary));

  const std::vector<Buffer>& buffers = plan.buffers;
  Section charts{"Liveness and address space", {}, {}, {}, {}, {}};
  bool has_smem = std::any_of(buffers.begin(), buffers.end(), [](const Buffer& b) { return b.space == MemorySpace::kSmem; });
  bool has_tmem = std::any_of(buffers.begin(), buffers.end(), [](const Buffer& b) { return b.space == MemorySpace::kTmem; });
  double x_hi = static_cast<double>(plan.ops.size());
  for (const auto& b : buffers) x_hi = std::max(x_hi, static_cast<double>(b.end));
  charts.figures.push_back({"", liveness_chart(buffers, MemorySpace::kSmem, "SMEM liveness", std::max(x_hi, 1.0))});
  if (has_tmem) charts.figures.push_back({"", liveness_chart(buffers, MemorySpace::kTmem, "TMEM liveness", std::max(x_hi, 1.0))});
  else charts.notes.push_back("No TMEM buffers in this plan.");
  if (!has_smem) charts.notes.push_back("No SMEM buffers in this plan.");

  BoxChart space{std::string("SMEM address space (offset x time, ") +
                     (sum.compiler_layout ? "the compiler's layout)" : "vplan's own layout)"), {}, {"op index", ""}, {"offset", "B"}, {}, 900, 360};
  const double smem_limit = static_cast<double>(sum.smem_limit_bytes);
  space.ref_lines.push_back({smem_limit, "limit " + format_bytes_of(smem_limit)});
  int i = 0;
  for (const auto& b : buffers) {
    if (b.space != MemorySpace::kSmem) continue;
    const double offset = static_cast<double>(b.placed_offset());
    space.boxes.push_back({static_cast<double>(b.start), std::max(static_cast<double>(b.end), b.start + 0.5), offset,
                           offset + static_cast<double>(b.bytes), b.barrier ? -1 : i++ % 10, buffer_label(b), tooltip(b)});
  }
  if (!space.boxes.empty()) charts.figures.push_back({"", render_box_chart(space), true});
  BoxChart columns{"TMEM columns (offset x time)", {}, {"op index", ""}, {"column", ""}, {}, 900, 300};
  const double tmem_limit = static_cast<double>(sum.tmem_limit_cols);
  columns.ref_lines.push_back({tmem_limit, "limit " + num(tmem_limit, 0) + " cols"});
  for (const auto& b : buffers) {
    if (b.space != MemorySpace::kTmem) continue;
    const double offset = static_cast<double>(b.placed_offset());
    columns.boxes.push_back({static_cast<double>(b.start), std::max(static_cast<double>(b.end), b.start + 0.5), offset,
                             offset + b.cols, i++ % 10, buffer_label(b), tooltip(b)});
  }
  if (!columns.boxes.empty()) charts.figures.push_back({"", render_box_chart(columns), true});
  page.sections.push_back(std::move(charts));

  Section graph{"Combined graph (key ops, buffers, channels)", {}, {}, {}, {}, {}};
  std::string dot = combined_graph_dot(plan);
  if (graph_layout_available()) {
    graph.figures.push_back({"Combined graph", layout_dot(dot, std::string(name) + " (combined graph)")});
  } else {
    graph.notes.push_back("This vrender was built without Graphviz: the graph is shown as DOT source.");
    graph.preformatted = dot;
  }
  page.sections.push_back(std::move(graph));

  Section tables{"Tables", {}, {}, {}, {}, {}};
  PageTable bt{"Buffers", {}, false};
  bt.table.headers = {"id", "name", "kind", "space", "shape", "type", "size", "copies", "liveness", "offset"};
  bt.table.align = {Table::Align::kRight, Table::Align::kLeft, Table::Align::kLeft, Table::Align::kLeft,
                    Table::Align::kLeft,  Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight,
                    Table::Align::kRight, Table::Align::kRight};
  for (const auto& b : buffers)
    bt.table.add_row({"B" + std::to_string(b.id), b.name,
                      b.barrier ? "mbarrier" : b.is_scratch() ? "scratch " + b.scratch_op : "data",
                      std::string(vplan::space_name(b.space)), shape_text(b), b.element_type, size_text(b),
                      std::to_string(b.copies), "[" + std::to_string(b.start) + ", " + std::to_string(b.end) + ")",
                      // vplan's own offsets are marked '*', the compiler's (post-allocation IR) are not
                      std::to_string(b.placed_offset()) + (b.compiler_offsets.empty() ? "*" : "")});
  tables.tables.push_back(std::move(bt));
  PageTable ct{"Channels", {}, false};
  ct.table.headers = {"buffer", "producer", "consumers"};
  for (const auto& c : plan.channels) {
    std::string consumers;
    for (const auto& d : c.consumers) consumers += (consumers.empty() ? "" : ", ") + std::to_string(d.op);
    ct.table.add_row({"B" + std::to_string(c.buffer), std::to_string(c.producer.op), consumers});
  }
  if (!ct.table.rows.empty()) tables.tables.push_back(std::move(ct));
  PageTable ot{"Key ops", {}, false};
  ot.table.headers = {"id", "name", "key", "partition", "location"};
  for (const auto& op : plan.ops)
    if (op.key != vplan::KeyKind::kNone)
      ot.table.add_row({std::to_string(op.id), op.name, std::string(vplan::key_kind_name(op.key)),
                        partition_text(op.partition), loc_text(op.loc)});
  if (!ot.table.rows.empty()) tables.tables.push_back(std::move(ot));
  page.sections.push_back(std::move(tables));
  return page;
}

}  // namespace vtools::vrender
