#include "tools/vrender/plan_page.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "libcommon/human_units.hpp"
#include "tools/vrender/graph_layout.hpp"
#include "tools/vrender/json_view.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

struct PlanBuffer {
  std::string id, name, space, shape, element_type;
  double bytes = kNoValue, rows = kNoValue, cols = kNoValue, copies = kNoValue, offset = kNoValue;
  double start = kNoValue, end = kNoValue;
  bool barrier = false;  ///< an mbarrier array (vplan names it after the data it guards, so the name alone misleads)
  bool compiler_offset = false;  ///< `offset` is the compiler's (compiler_offsets[0]), not vplan's own
  std::string scratch_op;        ///< scratch: the op Triton gives it to
};

std::string dot_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

// vplan writes `key` as the kind of key op ("load", "mma", ...) or null; hand-made plans may use a boolean.
bool is_key_op(const JsonView& op) {
  JsonView k = op.at("key");
  if (!k.present()) return false;
  if (k.raw()->is_boolean()) return k.raw()->get<bool>();
  return !k.as_text().empty();
}

// A location is "file:line", a name, or an object {name, file, line, column}.
std::string loc_text(const JsonView& loc) {
  if (!loc.present()) return "";
  if (!loc.raw()->is_object()) return loc.as_text();
  std::string file = loc.string_or("file", "");
  if (file.empty()) return loc.string_or("name", "");
  auto line = loc.number("line");
  return file + (line ? ":" + num(*line, 0) : "");
}

// A channel end is an op id, a partition, or an object {op, partition}.
std::string end_text(const JsonView& end) {
  if (!end.present()) return "";
  if (!end.raw()->is_object()) return end.as_text();
  return end.at("op").present() ? end.at("op").as_text() : "part " + end.at("partition").as_text();
}

std::vector<PlanBuffer> read_buffers(const JsonView& root) {
  std::vector<PlanBuffer> out;
  for (const JsonView& b : root.items("buffers")) {
    PlanBuffer p;
    p.id = b.text_or("id", std::to_string(out.size()));
    p.name = b.text_or("name", "buffer " + p.id);
    p.space = b.text_or("space", "smem");
    JsonView shape = b.at("shape");
    if (shape.present() && shape.raw()->is_array()) {
      for (const auto& d : b.numbers("shape")) p.shape += (p.shape.empty() ? "" : "x") + num(d, 0);
    } else {
      p.shape = shape.as_text();
    }
    p.element_type = b.text_or("element_type", "");
    p.bytes = b.number_or("bytes", kNoValue);
    p.rows = b.number_or("rows", kNoValue);
    p.cols = b.number_or("cols", kNoValue);
    p.copies = b.number_or("copies", kNoValue);
    p.offset = b.number_or("offset", kNoValue);
    // The compiler's offset (post-allocation IR) when the plan carries it; vplan's own otherwise.
    std::vector<double> compiler = b.at("compiler_offsets").present() ? b.numbers("compiler_offsets") : std::vector<double>{};
    if (!compiler.empty()) p.offset = compiler[0], p.compiler_offset = true;
    p.scratch_op = b.at("scratch_op").present() && !b.at("scratch_op").raw()->is_null() ? b.text_or("scratch_op", "") : "";
    p.barrier = b.boolean("barrier").value_or(false);
    std::vector<double> live = b.numbers("liveness");
    if (live.size() >= 2) p.start = live[0], p.end = live[1];
    else if (!live.empty()) b.fail("liveness", "an array [start, end]");
    out.push_back(std::move(p));
  }
  return out;
}

std::string size_text(const PlanBuffer& b) {
  if (b.space == "tmem") return (std::isfinite(b.rows) ? num(b.rows, 0) + "x" : "") + num(b.cols, 0) + " cols";
  return std::isfinite(b.bytes) ? format_bytes_of(b.bytes) : "?";
}

/// "B3 acc" or "B7 acc (barrier)": the id as vplan's tables write it, so four barriers named "acc" stay apart.
std::string buffer_label(const PlanBuffer& b) {
  return (b.id.empty() ? "" : "B" + b.id + " ") + b.name + (b.barrier ? " (barrier)" : "");
}

std::string tooltip(const PlanBuffer& b) {
  return buffer_label(b) + " (" + b.space + ")\nshape " + b.shape + (b.element_type.empty() ? "" : " " + b.element_type) + ", " +
         size_text(b) + (std::isfinite(b.copies) ? ", " + num(b.copies, 0) + " copies" : "") + "\nlive [" +
         num(b.start, 0) + ", " + num(b.end, 0) + ")" + (std::isfinite(b.offset) ? "\noffset " + num(b.offset, 0) : "");
}

// Both liveness charts share one x range [0, x_hi) so SMEM and TMEM line up when stacked.
Svg liveness_chart(const std::vector<PlanBuffer>& buffers, const std::string& space, const std::string& title, double x_hi) {
  LaneChart chart{title, {}, {"op index (program order)", ""}, 0, x_hi, false, {}, 900, 24};
  int i = 0;
  // Data buffers first, then the mbarriers in grey: they hold a few bytes of sync state, not operands.
  for (const bool barriers : {false, true}) {
    for (const auto& b : buffers) {
      if (b.space != space || !std::isfinite(b.start) || b.barrier != barriers) continue;
      chart.lanes.push_back({buffer_label(b) + " · " + size_text(b),
                             {{b.start, std::max(b.end, b.start), barriers ? -1 : i++ % 10, b.name, tooltip(b)}}});
    }
  }
  if (chart.lanes.size() > static_cast<std::size_t>(i)) {
    chart.legend = {"data buffer", "mbarrier"};
    chart.legend_colors = {0, -1};
  }
  return render_lane_chart(chart);
}

/// All warps of the kernel; a warp-specialized one also says how many the default partition has.
std::string warps_text(const JsonView& kernel) {
  const std::optional<double> def = kernel.number("num_warps"), total = kernel.number("total_warps");
  if (total && def && *total != *def) return num(*total, 0) + " (" + num(*def, 0) + " in the default partition)";
  return total ? num(*total, 0) : def ? num(*def, 0) : "";
}

}  // namespace

std::string combined_graph_dot(const OrderedJson& doc, std::string_view name) {
  JsonView root(&doc, std::string(name), "");
  if (auto dot = root.at("graphs").string("combined")) return *dot;
  std::string out = "digraph combined {\n  rankdir=LR;\n  graph [fontname=\"Helvetica\", fontsize=11];\n  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", fillcolor=\"#dce6f2\"];\n";
  std::map<std::string, std::vector<std::string>> by_partition;
  std::set<std::string> op_ids;
  auto ops = root.items("ops");
  bool any_key = std::any_of(ops.begin(), ops.end(), is_key_op);
  for (const JsonView& op : ops) {
    if (any_key && !is_key_op(op)) continue;
    if (!any_key && op_ids.size() >= 60) break;
    std::string id = op.text_or("id", std::to_string(op_ids.size()));
    op_ids.insert(id);
    std::string partition = op.at("partition").present() ? op.at("partition").as_text() : "default";
    by_partition[partition].push_back("    op" + id + " [label=" + dot_quote(op.text_or("name", "op") + " #" + id) + "];\n");
  }
  int k = 0;
  for (const auto& [partition, nodes] : by_partition) {
    out += "  subgraph cluster_" + std::to_string(k++) + " {\n    label=" + dot_quote("partition " + partition) + ";\n    style=rounded;\n";
    for (const auto& n : nodes) out += n;
    out += "  }\n";
  }
  auto endpoint = [&](const JsonView& v) {
    std::string t = end_text(v);
    return op_ids.count(t) ? "op" + t : dot_quote(t.rfind("part ", 0) == 0 ? t : "op " + t);
  };
  // Buffers that carry a channel (all of them when the plan has no channels); the rest are in the tables.
  std::set<std::string> channel_buffers;
  for (const JsonView& c : root.items("channels"))
    if (c.at("buffer").present()) channel_buffers.insert(c.at("buffer").as_text());
  for (const auto& b : read_buffers(root))
    if (channel_buffers.empty() || channel_buffers.count(b.id))
      out += "  buf" + b.id + " [label=" + dot_quote(buffer_label(b) + "\n" + size_text(b)) + ", shape=cylinder, fillcolor=\"" +
           (b.space == "tmem" ? "#e2f0d9" : "#fbe5d6") + "\"];\n";
  for (const JsonView& c : root.items("channels")) {
    std::string buf = c.at("buffer").present() ? c.at("buffer").as_text() : "";
    if (buf.empty()) continue;
    if (c.at("producer").present()) out += "  " + endpoint(c.at("producer")) + " -> buf" + buf + ";\n";
    for (const JsonView& dst : c.items("consumers")) out += "  buf" + buf + " -> " + endpoint(dst) + ";\n";
    if (c.at("consumer").present()) out += "  buf" + buf + " -> " + endpoint(c.at("consumer")) + ";\n";
  }
  return out + "}\n";
}

Page plan_page(const OrderedJson& doc, std::string_view name) {
  JsonView root(&doc, std::string(name), "");
  JsonView kernel = root.at("kernel"), sum = root.at("summary");
  Page page{"Memory plan: " + kernel.text_or("name", "kernel"), std::string(name), {}};
  Section summary{"Summary", {}, {}, {}, {}, {}};
  auto bytes = [](std::optional<double> v) { return v ? format_bytes_of(*v) : std::string(); };
  std::vector<Fact> facts = {{"kernel", kernel.text_or("name", "")},
                             {"target", kernel.text_or("target", "")},
                             {"warps", warps_text(kernel)},
                             {"SMEM peak", bytes(sum.number("smem_peak_bytes"))},
                             {"SMEM allocated", bytes(sum.number("smem_total_bytes") ? sum.number("smem_total_bytes")
                                                                                      : sum.number("smem_allocated_bytes"))},
                             {"SMEM layout", sum.boolean("compiler_layout").value_or(false) ? "the compiler's (post-allocation IR)"
                                                                                            : "vplan's own (first-fit)"},
                             {"compiler's ttg.shared", bytes(sum.number("compiler_shared_bytes"))},
                             {"SMEM limit", bytes(sum.number("smem_limit_bytes"))},
                             {"TMEM peak", sum.number("tmem_peak_cols") ? num(*sum.number("tmem_peak_cols"), 0) + " cols" : ""},
                             {"TMEM limit", sum.number("tmem_limit_cols") ? num(*sum.number("tmem_limit_cols"), 0) + " cols" : ""},
                             {"fits", sum.boolean("fits") ? (*sum.boolean("fits") ? "yes" : "NO — over budget") : ""}};
  // Targets without tensor memory (limit 0, e.g. sm_90) get no TMEM lines.
  bool no_tmem = sum.number_or("tmem_limit_cols", 1) == 0 && sum.number_or("tmem_peak_cols", 0) == 0;
  for (auto& f : facts)
    if (!f.value.empty() && !(no_tmem && f.key.rfind("TMEM", 0) == 0)) summary.facts.push_back(std::move(f));
  page.sections.push_back(std::move(summary));

  std::vector<PlanBuffer> buffers = read_buffers(root);
  Section charts{"Liveness and address space", {}, {}, {}, {}, {}};
  bool has_smem = std::any_of(buffers.begin(), buffers.end(), [](const PlanBuffer& b) { return b.space == "smem"; });
  bool has_tmem = std::any_of(buffers.begin(), buffers.end(), [](const PlanBuffer& b) { return b.space == "tmem"; });
  double x_hi = static_cast<double>(root.items("ops").size());
  for (const auto& b : buffers)
    if (std::isfinite(b.end)) x_hi = std::max(x_hi, b.end);
  charts.figures.push_back({"", liveness_chart(buffers, "smem", "SMEM liveness", std::max(x_hi, 1.0))});
  if (has_tmem) charts.figures.push_back({"", liveness_chart(buffers, "tmem", "TMEM liveness", std::max(x_hi, 1.0))});
  else charts.notes.push_back("No TMEM buffers in this plan.");
  if (!has_smem) charts.notes.push_back("No SMEM buffers in this plan.");

  const bool compiler_layout = sum.boolean("compiler_layout").value_or(false);
  BoxChart space{std::string("SMEM address space (offset x time, ") +
                     (compiler_layout ? "the compiler's layout)" : "vplan's own layout)"), {}, {"op index", ""}, {"offset", "B"}, {}, 900, 360};
  if (auto limit = sum.number("smem_limit_bytes")) space.ref_lines.push_back({*limit, "limit " + format_bytes_of(*limit)});
  int i = 0;
  for (const auto& b : buffers) {
    if (b.space != "smem" || !std::isfinite(b.offset) || !std::isfinite(b.start) || !std::isfinite(b.bytes)) continue;
    space.boxes.push_back({b.start, std::max(b.end, b.start + 0.5), b.offset, b.offset + b.bytes,
                           b.barrier ? -1 : i++ % 10, buffer_label(b), tooltip(b)});
  }
  if (!space.boxes.empty()) charts.figures.push_back({"", render_box_chart(space), true});
  else if (has_smem) charts.notes.push_back("No SMEM offsets assigned in this plan, so no address-space chart.");
  BoxChart columns{"TMEM columns (offset x time)", {}, {"op index", ""}, {"column", ""}, {}, 900, 300};
  if (auto limit = sum.number("tmem_limit_cols")) columns.ref_lines.push_back({*limit, "limit " + num(*limit, 0) + " cols"});
  for (const auto& b : buffers) {
    if (b.space != "tmem" || !std::isfinite(b.offset) || !std::isfinite(b.start) || !std::isfinite(b.cols)) continue;
    columns.boxes.push_back({b.start, std::max(b.end, b.start + 0.5), b.offset, b.offset + b.cols, i++ % 10,
                             buffer_label(b), tooltip(b)});
  }
  if (!columns.boxes.empty()) charts.figures.push_back({"", render_box_chart(columns), true});
  page.sections.push_back(std::move(charts));

  Section graph{"Combined graph (key ops, buffers, channels)", {}, {}, {}, {}, {}};
  std::string dot = combined_graph_dot(doc, name);
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
    bt.table.add_row({"B" + b.id, b.name, b.barrier ? "mbarrier" : b.scratch_op.empty() ? "data" : "scratch " + b.scratch_op, b.space, b.shape, b.element_type, size_text(b), num(b.copies, 0),
                      "[" + num(b.start, 0) + ", " + num(b.end, 0) + ")", std::isfinite(b.offset) ? num(b.offset, 0) + (b.compiler_offset ? "" : "*") : "–"});
  tables.tables.push_back(std::move(bt));
  PageTable ct{"Channels", {}, false};
  ct.table.headers = {"buffer", "producer", "consumers"};
  for (const JsonView& c : root.items("channels")) {
    std::string consumers;
    for (const JsonView& d : c.items("consumers")) consumers += (consumers.empty() ? "" : ", ") + end_text(d);
    ct.table.add_row({c.at("buffer").present() ? "B" + c.at("buffer").as_text() : "", end_text(c.at("producer")), consumers});
  }
  if (!ct.table.rows.empty()) tables.tables.push_back(std::move(ct));
  PageTable ot{"Key ops", {}, false};
  ot.table.headers = {"id", "name", "key", "partition", "location"};
  for (const JsonView& op : root.items("ops"))
    if (is_key_op(op))
      ot.table.add_row({op.at("id").present() ? op.at("id").as_text() : "", op.text_or("name", ""),
                        op.at("key").raw()->is_string() ? op.at("key").as_text() : "",
                        op.at("partition").present() ? op.at("partition").as_text() : "", loc_text(op.at("loc"))});
  if (!ot.table.rows.empty()) tables.tables.push_back(std::move(ot));
  page.sections.push_back(std::move(tables));
  return page;
}

}  // namespace vtools::vrender
