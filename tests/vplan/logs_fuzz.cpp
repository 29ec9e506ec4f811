// libFuzzer target: the two logs vplan reads, as bytes. A planner debug log -> extract_ws_graphs -> each graph
// through the DOT reader; an MLIR_ENABLE_DUMP log -> its last TTGIR dump -> reader -> plan -> tables. Only
// vtools::Error may escape.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vplan/ir_dump_log.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "tools/vplan/table_writer.hpp"
#include "tools/vplan/ttgir_reader.hpp"
#include "tools/vplan/ws_dot_reader.hpp"
#include "tools/vplan/ws_log_extract.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& graph : vtools::vplan::extract_ws_graphs(text, "fuzz.log")) {
      try {
        (void)vtools::vplan::read_ws_dot(graph.dot, "fuzz.dot");
      } catch (const vtools::Error&) {
      }
    }
  } catch (const vtools::Error&) {
  }
  try {
    if (vtools::vplan::looks_like_ir_dump_log(text)) {
      const auto plan = vtools::vplan::build_plan(
          vtools::vplan::read_ttgir(vtools::vplan::last_ttgir_dump(text, "fuzz.log"), "fuzz.log"), {});
      std::ostringstream out;
      vtools::vplan::write_tables(plan, vtools::vplan::TableStyle::kText, out);
    }
  } catch (const vtools::Error&) {
  }
  return 0;
}
