// libFuzzer target: TTGIR bytes -> reader -> plan -> every writer. Only vtools::Error may escape the reader.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vplan/dot_writer.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "formats/plan/plan_json.hpp"
#include "tools/vplan/ttgir_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto plan = vtools::vplan::build_plan(vtools::vplan::read_ttgir(text, "fuzz.ttgir"), {});
    std::ostringstream out;
    for (auto kind : {vtools::vplan::GraphKind::kSmem, vtools::vplan::GraphKind::kTmem,
                      vtools::vplan::GraphKind::kCombined})
      vtools::vplan::write_dot(plan, kind, true, out);
    out << vtools::dump_json(vtools::vplan::plan_document(plan, "ttgir"));
  } catch (const vtools::Error&) {
  }
  return 0;
}
