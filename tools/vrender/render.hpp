// vrender's entry point: reads inputs (vtools.* documents or DOT), checks they are of one kind, builds the page
// for that kind and writes it as HTML, SVG or PNG.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "libcommon/cli.hpp"
#include "formats/plan/plan_model.hpp"
#include "formats/trace/trace_model.hpp"
#include "libcommon/document.hpp"
#include "libcommon/input_file.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

/// Command-line options (bound by main.cpp).
struct Options {
  std::vector<std::string> inputs;  ///< files or "-" (stdin)
  OutputOptions out;                ///< -o (default stdout), -q, --format html|svg|png
  int width_px = 0;                 ///< PNG width; 0 = natural size times scale
  double scale = 1.0;               ///< PNG scale factor
  std::string title;                ///< page title override
};

/// One input, read and classified: `kind` is "dot" or a document format ("vtools.bench", ...).
struct Input {
  std::string name;
  std::string kind;
  std::string text;    ///< DOT text (documents keep only `doc`, `trace` or `plan`)
  OrderedJson doc;     ///< documents other than traces and plans
  vtrace::Trace trace; ///< vtools.trace, read by the format's one reader (formats/trace/trace_reader.hpp)
  vplan::Plan plan;    ///< vtools.plan, read streamed by the format's one reader (formats/plan/plan_json.hpp)
  std::exception_ptr plan_fault;  ///< a plan's field fault: build_page raises it where the plan's page is built
};

/// Classifies `text`: DOT when `name` ends in .dot/.gv or the text starts with [strict] (di)graph; otherwise a
/// vtools document of any known format (Error kDataError naming an unknown format). A trace is read streamed by
/// vtrace's reader, so vrender takes and refuses exactly what `vtrace summary` does, up to kStreamedMaxInputBytes;
/// a plan streamed by the plan format's reader, up to the same cap (what `vplan check` refuses, refused in its words);
/// every other input is held to the default input limit (Error kDataError, as read_input words it).
Input classify_input(std::string text, std::string_view name);
/// The same for a file read as an InputText (a trace's pages are dropped as they are read).
Input classify_input(const InputText& input, std::string_view name);

/// The page for inputs of one kind. Several bench documents make one history page; several documents of another
/// kind are shown one after another. Mixed kinds -> Error kDataError.
Page build_page(const std::vector<Input>& inputs);

/// "html", "svg" or "png": --format, else the extension of -o, else html. Unknown extension -> Error kUsage.
std::string output_format(const Options& options);

/// The bytes of `page` in `format`.
std::string render_page(const Page& page, const std::string& format, const Options& options);

/// Reads every input (traces and plans up to kStreamedMaxInputBytes, others up to the default limit), builds the page and writes it atomically. Returns the exit code (0).
int run_render(const Options& options);

}  // namespace vtools::vrender
