// libFuzzer target: vtools.plan JSON bytes -> read_plan_json -> every writer that a plan read back feeds (the
// document again, the three DOT graphs, the tables, the check report). Only vtools::Error may escape. The streamed
// reader must agree with the tree reader (plan_from_document of the parsed document): the same plan, or the same
// error message; a difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vplan/dot_writer.hpp"
#include "formats/plan/plan_json.hpp"
#include "tools/vplan/table_writer.hpp"

namespace {

/// The plan as a document without its `created` line, or "error: <message>".
template <class Read>
std::string outcome(Read read) {
  try {
    std::string doc = vtools::dump_json(vtools::vplan::plan_document(read(), "ttgir"));
    const std::size_t created = doc.find("\"created\"");
    return doc.erase(created, doc.find('\n', created) - created);
  } catch (const vtools::Error& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string streamed = outcome([&] { return vtools::vplan::read_plan_json(text, "fuzz.plan.json"); });
  const std::string tree = outcome([&] {
    return vtools::vplan::plan_from_document(vtools::parse_document(text, "fuzz.plan.json", {vtools::kPlanFormat}),
                                             "fuzz.plan.json");
  });
  if (streamed != tree) std::abort();
  try {
    const auto plan = vtools::vplan::read_plan_json(text, "fuzz.plan.json");
    std::ostringstream out;
    out << vtools::dump_json(vtools::vplan::plan_document(plan, "ttgir"));
    for (auto kind : {vtools::vplan::GraphKind::kSmem, vtools::vplan::GraphKind::kTmem,
                      vtools::vplan::GraphKind::kCombined})
      vtools::vplan::write_dot(plan, kind, true, out);
    vtools::vplan::write_tables(plan, vtools::vplan::TableStyle::kMarkdown, out);
    (void)vtools::vplan::write_check_report(plan, out);
  } catch (const vtools::Error&) {
  }
  return 0;
}
