// libFuzzer target: vtools.tracediff bytes -> read_trace_diff -> the document again -> read again. Only vtools::Error
// may escape; a document the reader accepts must write a document it reads back to the same bytes (else abort).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/tracediff/tracediff_reader.hpp"
#include "formats/tracediff/tracediff_writer.hpp"
#include "libcommon/error.hpp"

namespace {

/// The document written from `diff`, without its envelope's `created` and `tool`.
std::string written(const vtools::vtrace::TraceDiff& diff) {
  vtools::OrderedJson doc = vtools::vtrace::trace_diff_document(diff);
  doc.erase("created");
  doc.erase("tool");
  return vtools::dump_json(doc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vtools::vtrace::TraceDiff diff;
  try {
    diff = vtools::vtrace::read_trace_diff(text, "fuzz.tracediff.json");
  } catch (const vtools::Error&) {
    return 0;
  }
  try {
    const std::string first = written(diff);
    const vtools::vtrace::TraceDiff back =
        vtools::vtrace::read_trace_diff(vtools::dump_json(vtools::vtrace::trace_diff_document(diff)), "again.json");
    if (written(back) != first) std::abort();
  } catch (const vtools::Error&) {
    std::abort();  // what the writer wrote, the reader refused
  }
  return 0;
}
