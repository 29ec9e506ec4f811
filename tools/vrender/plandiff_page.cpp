#include "tools/vrender/plandiff_page.hpp"

#include <map>
#include <string>
#include <vector>

#include "tools/vrender/json_view.hpp"

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

Page plandiff_page(const OrderedJson& doc, std::string_view name) {
  JsonView root(&doc, std::string(name), "");
  const JsonView a = root.required_object("a"), b = root.required_object("b");
  Page page{"Plan diff", std::string(name), {}};
  Section head{"A and B", {}, {}, {}, {}, {}};
  head.facts.push_back({"A", a.required_string("kernel") + " (" + a.required_string("source") + ")"});
  head.facts.push_back({"B", b.required_string("kernel") + " (" + b.required_string("source") + ")"});
  const bool identical = root.required_boolean("identical");
  const std::vector<JsonView> changes = root.required_items("changes");
  std::map<std::string, std::vector<const JsonView*>> by_section;
  std::map<std::string, std::size_t> by_change;
  for (const JsonView& c : changes) {
    by_section[c.required_string("section")].push_back(&c);
    ++by_change[c.required_string("change")];
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
    for (const JsonView* c : it->second) {
      if (t.table.rows.size() == kMaxTableRows) break;
      t.table.add_row({c->required_string("change"), c->required_string("subject"), c->required_string("before"),
                       c->required_string("after")});
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
