#include "tools/vrender/plandiff_page.hpp"

#include <map>
#include <string>
#include <vector>


namespace vtools::vrender {

namespace {

constexpr std::size_t kMaxTableRows = 200;

/// The sections in the order a reader asks about them: the budget first, then what moved in shared memory.
const std::vector<std::pair<std::string, std::string>>& section_titles() {
  static const std::vector<std::pair<std::string, std::string>> titles = {
      {"total", "Totals and budget"}, {"kernel", "Kernel"},        {"buffer", "Buffers"},
      {"reuse group", "Reuse groups"}, {"reuse", "Reuse and copies"}, {"channel", "Channels"},
      {"partition", "Partitions"}};
  return titles;
}

}  // namespace

Page plandiff_page(const vplan::PlanDiff& diff, std::string_view name) {
  Page page{"Plan diff", std::string(name), {}};
  Section head{"A and B", {}, {}, {}, {}, {}};
  head.facts.push_back({"A", diff.a_kernel + " (" + diff.a_source + ")"});
  head.facts.push_back({"B", diff.b_kernel + " (" + diff.b_source + ")"});
  const bool identical = diff.identical();
  const std::vector<vplan::PlanChange>& changes = diff.changes;
  std::map<std::string, std::vector<const vplan::PlanChange*>> by_section;
  std::map<std::string, std::size_t> by_change;
  for (const vplan::PlanChange& c : changes) {
    by_section[c.section].push_back(&c);
    ++by_change[c.change];
  }
  std::string counts;
  for (const auto& [change, n] : by_change) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + change;
  head.facts.push_back({"changes", identical ? "none: the plans are identical"
                                             : std::to_string(changes.size()) + " (" + counts + ")"});
  page.sections.push_back(std::move(head));
  for (const auto& [key, title] : section_titles()) {
    auto it = by_section.find(key);
    if (it == by_section.end()) continue;
    Section s{title, {}, {}, {}, {}, {}};
    PageTable t{title, {}, true};
    t.table.headers = {"change", "what", "A", "B"};
    t.table.align = {Table::Align::kLeft, Table::Align::kLeft, Table::Align::kLeft, Table::Align::kLeft};
    for (const vplan::PlanChange* c : it->second) {
      if (t.table.rows.size() == kMaxTableRows) break;
      t.table.add_row({c->change, c->subject, c->before, c->after});
    }
    if (it->second.size() > kMaxTableRows)
      s.notes.push_back("The table lists the first " + std::to_string(kMaxTableRows) + " of " +
                        std::to_string(it->second.size()) + " changes.");
    s.tables.push_back(std::move(t));
    page.sections.push_back(std::move(s));
    by_section.erase(it);
  }
  for (const auto& [key, rows] : by_section)  // a section this build does not know: still shown, never dropped
    page.sections.front().notes.push_back(std::to_string(rows.size()) + " changes of kind '" + key +
                                          "' are not shown (a newer vplan wrote them)");
  return page;
}

}  // namespace vtools::vrender
