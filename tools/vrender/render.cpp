#include "tools/vrender/render.hpp"

#include <sstream>

#include "formats/plan/plan_json.hpp"
#include "formats/plandiff/plandiff_reader.hpp"
#include "formats/trace/trace_reader.hpp"
#include "formats/tracediff/tracediff_reader.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vrender/bench_page.hpp"
#include "tools/vrender/compare_page.hpp"
#include "tools/vrender/dot_page.hpp"
#include "tools/vrender/page_writers.hpp"
#include "tools/vrender/plan_page.hpp"
#include "tools/vrender/png_raster.hpp"
#include "tools/vrender/trace_page.hpp"
#include "tools/vrender/plandiff_page.hpp"
#include "tools/vrender/tracediff_page.hpp"

namespace vtools::vrender {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

bool looks_like_dot(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {  // skip blanks and //, # and /* */ comments
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
      ++i;
    } else if (text.substr(i, 2) == "//" || text[i] == '#') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) return false;
    } else if (text.substr(i, 2) == "/*") {
      i = text.find("*/", i);
      if (i == std::string_view::npos) return false;
      i += 2;
    } else {
      break;
    }
  }
  std::string head = lower(text.substr(i, 8));
  return head.rfind("digraph", 0) == 0 || head.rfind("graph", 0) == 0 || head.rfind("strict", 0) == 0;
}

const vplan::Plan& plan_of(const Input& in) {
  if (in.plan_fault) std::rethrow_exception(in.plan_fault);
  return in.plan;
}

}  // namespace

Input classify_input(std::string text, std::string_view name) { return classify_input(InputText(std::move(text)), name); }

Input classify_input(const InputText& input, std::string_view name) {
  if (input.compressed()) {  // a compressed trace is read as it is decompressed, its text never whole in memory
    const std::string head = input.head(64u << 10);
    const std::string lname = lower(name);
    if (!ends_with(lname, ".dot") && !ends_with(lname, ".gv") && !looks_like_dot(head) &&
        leading_document_format(head) == kTraceFormat.name) {
      Input in;
      in.name = std::string(name);
      in.kind = kTraceFormat.name;
      in.trace = vtrace::read_trace(input, name);
      return in;
    }
  }
  const std::string_view text = input.text();
  const auto passed = [&](std::size_t offset) { input.passed(offset); };
  Input in;
  in.name = std::string(name);
  std::string lname = lower(name);
  if (ends_with(lname, ".dot") || ends_with(lname, ".gv") || looks_like_dot(text)) {
    check_input_size(in.name, text.size());
    in.kind = "dot";
    in.text = std::string(text);
    return in;
  }
  const std::vector<DocumentFormat> all(std::begin(kAllFormats), std::end(kAllFormats));
  in.kind = leading_document_format(text);
  if (in.kind.empty())  // "format" is not the first member: the envelope without the records' arrays tells
    in.kind = document_format(
        parse_document_streamed(text, name, all, [](std::string_view, std::size_t, OrderedJson&&) {}, passed));
  if (in.kind == kTraceFormat.name) {
    in.trace = vtrace::read_trace(text, name, passed);
    return in;
  }
  if (in.kind == kPlanFormat.name) {  // as `vplan check` reads it: up to kStreamedMaxInputBytes, pages dropped behind
    try {
      in.plan = vplan::read_plan_json(text, name, passed);
    } catch (const Error&) {
      // Bad JSON or a bad envelope is this input's fault now; a field's is raised by build_page, after the inputs'
      // kinds are compared (as when the page read the plan from the parsed document).
      if (!OrderedJson::accept(text.begin(), text.end())) (void)parse_json(text, name);
      (void)parse_document_streamed(text, name, all, [](std::string_view, std::size_t, OrderedJson&&) {});
      in.plan_fault = std::current_exception();
    }
    return in;
  }
  check_input_size(in.name, text.size());
  in.doc = parse_document(text, name, all);
  in.kind = document_format(in.doc);
  return in;
}

Page build_page(const std::vector<Input>& inputs) {
  const std::string& kind = inputs.front().kind;
  for (const auto& in : inputs) {
    if (in.kind != kind)
      throw Error(ExitCode::kDataError,
                  "inputs mix formats: " + inputs.front().name + " is " + kind + " but " + in.name + " is " + in.kind +
                      "; inputs of one kind share a page, render the others separately",
                  {in.name});
  }
  if (kind == kBenchFormat.name) {
    std::vector<BenchRun> runs;
    for (const auto& in : inputs) runs.push_back(read_bench(in.doc, in.name));
    return bench_page(std::move(runs));
  }
  Page page;
  for (const auto& in : inputs) {
    Page one = kind == "dot"                      ? dot_page(in.text, in.name)
               : kind == kPlanFormat.name         ? plan_page(plan_of(in), in.name)
               : kind == kCompareFormat.name      ? compare_page(in.doc, in.name)
               : kind == kTraceDiffFormat.name    ? tracediff_page(vtrace::trace_diff_from_document(in.doc, in.name), in.name)
               : kind == kPlanDiffFormat.name     ? plandiff_page(vplan::plan_diff_from_document(in.doc, in.name), in.name)
                                                  : trace_page(in.trace, in.name);
    if (page.sections.empty()) {
      page.title = one.title;
      page.subtitle = one.subtitle;
    } else {
      page.title = one.title + " (" + std::to_string(inputs.size()) + " inputs)";
      page.subtitle.clear();
      for (auto& s : one.sections) s.heading = in.name + ": " + s.heading;
    }
    if (inputs.size() > 1 && page.sections.empty())
      for (auto& s : one.sections) s.heading = in.name + ": " + s.heading;
    for (auto& s : one.sections) page.sections.push_back(std::move(s));
  }
  return page;
}

namespace {

/// The format the -o path's extension names ("" for none of them).
std::string format_of_path(const std::string& output) {
  const std::string path = lower(output);
  if (ends_with(path, ".html") || ends_with(path, ".htm")) return "html";
  if (ends_with(path, ".svg")) return "svg";
  if (ends_with(path, ".png")) return "png";
  return "";
}

}  // namespace

std::string output_format(const Options& options) {
  const std::string by_path = options.out.output == "-" ? "" : format_of_path(options.out.output);
  if (!options.out.format.empty()) {
    if (!by_path.empty() && by_path != options.out.format)  // --format wins; a browser opening it would not know
      print_note("writing " + options.out.format + " to '" + options.out.output + "' (--format " +
                 options.out.format + "; the name says " + by_path + ")");
    return options.out.format;
  }
  if (options.out.output == "-") return "html";
  if (!by_path.empty()) return by_path;
  throw Error(ExitCode::kUsage, "cannot tell the output format from '" + options.out.output +
                                    "'; name it .html, .svg or .png, or pass --format html|svg|png");
}

std::string render_page(const Page& page, const std::string& format, const Options& options) {
  std::ostringstream out;
  if (format == "html") {
    write_html_page(page, "vrender " + tool_version(), out);
    return out.str();
  }
  write_svg_page(page, out);
  if (format == "svg") return out.str();
  return rasterize_png(out.str(), {options.width_px, options.scale});
}

int run_render(const Options& options) {
  std::string format = output_format(options);
  if (options.inputs.empty()) throw Error(ExitCode::kUsage, "no input; give a vtools document, a .dot file or '-'");
  check_stdin_once(options.inputs);
  if (options.scale <= 0 || options.width_px < 0)
    throw Error(ExitCode::kUsage, "--width and --scale must be positive");
  if (format == "png" && !png_available()) rasterize_png("", {});  // throws the exit-69 message before any work
  if (format != "png" && (options.width_px > 0 || options.scale != 1.0))
    print_note("--width and --scale apply to PNG output only");
  std::vector<Input> inputs;
  for (const auto& path : options.inputs) {  // a mapped input cut short while it is read: exit 74, not a SIGBUS
    const InputText text = read_input_text(path, kStreamedMaxInputBytes);
    inputs.push_back(text.read_checked([&] { return classify_input(text, input_display_name(path)); }));
  }
  Page page = build_page(inputs);
  if (!options.title.empty()) page.title = options.title;
  write_output(options.out.output, render_page(page, format, options));
  return 0;
}

}  // namespace vtools::vrender
