// libFuzzer target: the raw record reader and the folds after it (launch mode, access mode, findings' source lines)
// must refuse bad files with vtools::Error, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vtrace/access/access_capture.hpp"
#include "tools/vtrace/finding_sources.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/trace_builder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    std::vector<vtools::vtrace::raw::Capture> captures{
        vtools::vtrace::raw::read_capture(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz")};
    vtools::vtrace::Trace trace = vtools::vtrace::build_trace(captures, {}, vtools::vtrace::KernelFilter(""));
    vtools::vtrace::access::add_access_captures(captures, {}, 1000, trace);  // the access-mode fold too
    // and the findings' source lines from the module images in the file (no nvdisasm run: a listing-free stub)
    vtools::vtrace::PcSymbolizer symbolizer(
        [](std::string_view) { return vtools::vtrace::Disassembly{"", "no SASS: fuzzing"}; });
    vtools::vtrace::add_finding_sources(captures, symbolizer, trace);
  } catch (const vtools::Error&) {
  }
  return 0;
}
