// libFuzzer target: the JSON document reader of libcommon (parse_document over every format). Any input must end
// in a document or a vtools::Error — never a crash, a hang or another exception type. And the streamed readers' fast
// JSON scanner (json_scanner.cpp) must report exactly nlohmann's events on every input, valid or not, in memory or
// read in pieces.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <string_view>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "tests/common/json_event_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<vtools::DocumentFormat> all(std::begin(vtools::kAllFormats), std::end(vtools::kAllFormats));
  try {
    auto doc = vtools::parse_document(text, "fuzz.json", all);
    (void)vtools::dump_json(doc);
  } catch (const vtools::Error&) {
  }
  if (size <= 4096) {  // event logs of larger inputs would slow every run down
    const vtools::JsonEventLog ours = vtools::scanned_events(text), theirs = vtools::nlohmann_events(text);
    if (ours.valid != theirs.valid || ours.events != theirs.events) std::abort();
    // The same events over the text in reads of 1 to 8 bytes, as a compressed input's text arrives (every token cut).
    vtools::StringTextStream pieces(text, 1 + size % 8);
    vtools::JsonEventLog cut;
    cut.valid = vtools::scan_json(pieces, cut);
    if (cut.valid != ours.valid || cut.events != ours.events) std::abort();
  }
  return 0;
}
