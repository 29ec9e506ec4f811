// libFuzzer target: the vtools.trace reader must refuse bad input with vtools::Error, never crash; documents it
// accepts must summarize and export (all of it and selections), summarize by rank, and merge with a copy of
// themselves on another host (or be refused with vtools::Error).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vtrace/chrome_export.hpp"
#include "formats/trace/rank_summary.hpp"
#include "tools/vtrace/trace_merge.hpp"
#include "formats/trace/trace_reader.hpp"
#include "tools/vtrace/trace_selection.hpp"
#include "formats/trace/trace_summary.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto trace = vtools::vtrace::read_trace(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    vtools::vtrace::summarize_trace(trace);
    vtools::vtrace::chrome_trace(trace);
    // Selections: names with a letter 'e' (summary and export), the last graph (a usage error when there is none).
    vtools::vtrace::summarize_trace(trace, {"", "e"});
    vtools::vtrace::chrome_trace(vtools::vtrace::select_kernels(trace, {"", "e"}, std::nullopt));
    try {
      vtools::vtrace::summarize_trace(trace, {"last", ""});
    } catch (const vtools::Error&) {
    }
    try {
      vtools::vtrace::summarize_ranks(trace);
    } catch (const vtools::Error&) {
    }
    vtools::vtrace::Trace other = trace;
    for (auto& p : other.processes) p.host += "-other", p.rank = p.rank >= 0 && p.rank < (std::int64_t{1} << 40) ? p.rank + 1000 : -1;
    vtools::vtrace::merge_traces({{std::move(trace), "a"}, {std::move(other), "b"}});
  } catch (const vtools::Error&) {
  }
  return 0;
}
