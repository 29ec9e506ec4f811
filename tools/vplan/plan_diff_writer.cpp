#include "tools/vplan/plan_diff_writer.hpp"

#include <algorithm>
#include <string_view>

#include "libcommon/table.hpp"
#include "tools/vplan/dot_writer.hpp"

namespace vtools::vplan {

void write_plan_diff_table(const PlanDiff& diff, TableStyle style, std::ostream& out) {
  const bool md = style == TableStyle::kMarkdown;
  out << (md ? "## " : "") << "plan diff: " << diff.a_kernel << " (" << diff.a_source << ") -> " << diff.b_kernel
      << " (" << diff.b_source << ")\n";
  if (diff.identical()) {
    out << (md ? "\n" : "") << "identical: no buffer, reuse group, channel, partition or total changed\n";
    return;
  }
  Table t;
  t.headers = {"Section", "Change", "What", "Before", "After"};
  for (const auto& c : diff.changes)
    t.add_row({c.section, c.change, c.subject, c.before.empty() ? "-" : c.before, c.after.empty() ? "-" : c.after});
  out << "\n";
  write_table(t, md, out);
}

namespace {

const char* change_style(std::string_view change) {
  if (change == "added") return "style=filled, fillcolor=palegreen, color=darkgreen";
  if (change == "removed") return "style=\"filled,dashed\", fillcolor=mistyrose, color=red";
  return "style=filled, fillcolor=gold, color=darkgoldenrod";
}

}  // namespace

void write_plan_diff_dot(const PlanDiff& diff, std::ostream& out) {
  out << "digraph PlanDiff {\n  rankdir=TB;\n  labelloc=t;\n  label="
      << dot_quoted("plan diff: " + diff.a_kernel + " (" + diff.a_source + ") -> " + diff.b_kernel + " (" +
                    diff.b_source + ")")
      << ";\n  node [shape=box, fontsize=9];\n  edge [style=invis];\n";
  if (diff.identical()) {
    out << "  identical [label=\"identical: no buffer, reuse group, channel, partition or total changed\"];\n}\n";
    return;
  }
  // Sections in order of first appearance; within one, the changes stacked in the diff's order.
  std::vector<std::string> sections;
  for (const auto& c : diff.changes)
    if (std::find(sections.begin(), sections.end(), c.section) == sections.end()) sections.push_back(c.section);
  for (std::size_t s = 0; s < sections.size(); ++s) {
    out << "  subgraph cluster_" << s << " {\n    label=" << dot_quoted(sections[s]) << ";\n    color=grey;\n";
    std::string previous;
    for (std::size_t i = 0; i < diff.changes.size(); ++i) {
      const PlanChange& c = diff.changes[i];
      if (c.section != sections[s]) continue;
      std::string label = c.change + ": " + c.subject;
      if (c.change == "added" || c.change == "removed") {  // a set member's value is its subject: not repeated
        const std::string& value = c.change == "added" ? c.after : c.before;
        if (value != c.subject) label += "\n" + value;
      } else {
        label += "\n" + (c.before.empty() ? "-" : c.before) + " -> " + (c.after.empty() ? "-" : c.after);
      }
      const std::string node = "change_" + std::to_string(i);
      out << "    " << node << " [label=" << dot_quoted(label) << ", " << change_style(c.change) << "];\n";
      if (!previous.empty()) out << "    " << previous << " -> " << node << ";\n";
      previous = node;
    }
    out << "  }\n";
  }
  out << "  subgraph cluster_legend {\n    label=\"legend\";\n    color=grey;\n"
      << "    legend_added [label=\"added\", " << change_style("added") << "];\n"
      << "    legend_removed [label=\"removed\", " << change_style("removed") << "];\n"
      << "    legend_changed [label=\"resized / moved / changed\", " << change_style("changed") << "];\n  }\n}\n";
}

}  // namespace vtools::vplan
