// libFuzzer target: the raw record reader must refuse bad files with vtools::Error, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/trace_builder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto capture = vtools::vtrace::raw::read_capture(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    vtools::vtrace::build_trace({capture}, {}, vtools::vtrace::KernelFilter(""));
  } catch (const vtools::Error&) {
  }
  return 0;
}
