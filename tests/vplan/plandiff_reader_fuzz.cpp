// libFuzzer target: vtools.plandiff bytes -> read_plan_diff -> the document again -> read again. Only vtools::Error
// may escape; a document the reader accepts must write a document it reads back to the same bytes (else abort).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/plandiff/plandiff_reader.hpp"
#include "formats/plandiff/plandiff_writer.hpp"
#include "libcommon/error.hpp"

namespace {

/// The document written from `diff`, without its envelope's `created` and `tool`.
std::string written(const vtools::vplan::PlanDiff& diff) {
  vtools::OrderedJson doc = vtools::vplan::plan_diff_document(diff);
  doc.erase("created");
  doc.erase("tool");
  return vtools::dump_json(doc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vtools::vplan::PlanDiff diff;
  try {
    diff = vtools::vplan::read_plan_diff(text, "fuzz.plandiff.json");
  } catch (const vtools::Error&) {
    return 0;
  }
  try {
    const std::string first = written(diff);
    const vtools::vplan::PlanDiff back =
        vtools::vplan::read_plan_diff(vtools::dump_json(vtools::vplan::plan_diff_document(diff)), "again.json");
    if (written(back) != first) std::abort();
  } catch (const vtools::Error&) {
    std::abort();  // what the writer wrote, the reader refused
  }
  return 0;
}
