// libFuzzer target: planner DOT / log bytes -> importer -> plan -> DOT writer. Only vtools::Error may escape.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vplan/dot_writer.hpp"
#include "tools/vplan/ws_dot_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto plan = vtools::vplan::read_ws_dot(text, "fuzz.dot");
    std::ostringstream out;
    vtools::vplan::write_dot(plan, vtools::vplan::GraphKind::kCombined, false, out);
  } catch (const vtools::Error&) {
  }
  return 0;
}
