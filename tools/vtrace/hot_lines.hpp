// Access mode's per-source-line view ("hot lines"): folds every recorded launch's PC table (raw kPcSites: per
// instruction warp requests, lanes, sectors, bytes) and finding sites over launches per (kernel, module, PC), maps
// each distinct PC to its source line once (the module's DWARF line table through PcSymbolizer; nvdisasm only for PCs
// without a line), and sums the PCs of each line into the trace's hot_lines, per kernel and process. PCs without a
// line stay rows of their own, with their SASS and the reason.
#pragma once

#include <vector>

#include "formats/trace/trace_model.hpp"
#include "tools/vtrace/finding_sources.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/source_text.hpp"

namespace vtools::vtrace {

/// Appends the hot lines of `captures` to trace.hot_lines, a row per process (kernels by name, then process, file,
/// line, function; instruction rows after a kernel's lines, by PC) and counts the requests past the launches' PC
/// tables; with `texts`, each line's text too. Launches without a PC table (VTRACE_ACCESS_PCS=0) add nothing.
void add_hot_lines(const std::vector<raw::Capture>& captures, PcSymbolizer& symbolizer, Trace& trace,
                   SourceText* texts = nullptr);

}  // namespace vtools::vtrace
