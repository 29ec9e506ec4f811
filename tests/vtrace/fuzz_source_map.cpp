// libFuzzer target: a module image (cubin) from an untrusted trace run, and nvdisasm's listing, must give answers
// or reasons, never a crash: SourceMap over the bytes as a cubin, SassListing over them as text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tools/vtrace/sass_listing.hpp"
#include "tools/vtrace/source_map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const vtools::vtrace::SourceMap map = vtools::vtrace::SourceMap::read(bytes, "fuzz");
  for (const char* function : {"_Z8offbyonePKfPfi", "_Z6scaledPKfPfi"})
    for (std::uint64_t pc : {0x0ull, 0xc0ull, 0xf0ull, 0x1f0ull, 0xffffffffull}) (void)map.lookup(function, pc);
  const auto listing = vtools::vtrace::SassListing::parse(bytes);
  (void)listing.instruction("_Z8offbyonePKfPfi", 0xc0);
  return 0;
}
