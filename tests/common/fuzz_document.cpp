// libFuzzer target: the JSON document reader of libcommon (parse_document over every format). Any input must end
// in a document or a vtools::Error — never a crash, a hang or another exception type.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<vtools::DocumentFormat> all(std::begin(vtools::kAllFormats), std::end(vtools::kAllFormats));
  try {
    auto doc = vtools::parse_document(text, "fuzz.json", all);
    (void)vtools::dump_json(doc);
  } catch (const vtools::Error&) {
  }
  return 0;
}
