// libFuzzer target: vtools.plan JSON bytes -> read_plan_json -> every writer that a plan read back feeds (the
// document again, the three DOT graphs, the tables, the check report). Only vtools::Error may escape.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vplan/dot_writer.hpp"
#include "formats/plan/plan_json.hpp"
#include "tools/vplan/table_writer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
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
