// `vtrace summary`, `vtrace export`, `vtrace check`, `vtrace diff` and `vtrace merge`: each reads its trace
// documents and writes one output (summary, export and diff of the kernels a --graph/--kernel selection keeps).
#include <algorithm>
#include <sstream>
#include <utility>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "libcommon/table.hpp"
#include "tools/vtrace/chrome_export.hpp"
#include "tools/vtrace/line_summary_writer.hpp"
#include "tools/vtrace/options.hpp"
#include "tools/vtrace/api_summary_writer.hpp"
#include "tools/vtrace/rank_summary_writer.hpp"
#include "tools/vtrace/summary_writer.hpp"
#include "tools/vtrace/trace_check.hpp"
#include "tools/vtrace/trace_diff_writer.hpp"
#include "formats/tracediff/tracediff_writer.hpp"
#include "tools/vtrace/trace_merge.hpp"
#include "formats/trace/trace_reader.hpp"
#include "tools/vtrace/trace_selection.hpp"
#include "formats/trace/trace_writer.hpp"

namespace vtools::vtrace {

namespace {

/// Traces are read a record at a time (trace_reader.cpp), so their cap is the streamed one, and a trace file is
/// mapped, its pages dropped once read, a compressed one decompressed as it is read (InputText); one cut short
/// meanwhile is exit 74, not a SIGBUS.
Trace load(const std::string& path) {
  const InputText input = read_input_text(path, kStreamedMaxInputBytes);
  return input.read_checked([&] { return read_trace(input, input_display_name(path)); });
}

/// A launch-mode trace at `path` for a command that reads kernel times (`what`): an access-mode trace has none (0 ns
/// for every kernel), and one with no kernels (`vtrace run` on a machine without a driver: "not traced") would make
/// a diff of every kernel removed that no gate fails.
Trace load_timed(const std::string& path, const std::string& what, bool need_kernels) {
  Trace trace = load(path);
  const std::string name = input_display_name(path);
  if (!trace.has_kernel_times())
    throw Error(ExitCode::kDataError,
                "an access-mode trace (--accesses) has no kernel times (access mode records no timestamps): " + what +
                    " reads launch-mode traces",
                SourceLocation{name});
  if (need_kernels && trace.kernels.empty()) {
    std::string notes;
    for (const std::string& n : trace.run.notes) notes += (notes.empty() ? " (" : "; ") + n;
    throw Error(ExitCode::kDataError,
                "holds no kernel launches" + (notes.empty() ? std::string() : notes + ")") + ": " + what +
                    " has nothing to compare",
                SourceLocation{name});
  }
  return trace;
}

/// summary --ranks / --api: a summary of the whole trace (a --graph/--kernel selection would cut collectives and
/// waits apart) as JSON or tables; `flag` names it in the usage errors.
template <typename Summarize, typename ToJson, typename WriteTables>
int whole_trace_summary(const SummaryOptions& o, const std::string& flag, Summarize summarize, ToJson to_json,
                        WriteTables write_tables) {
  if (!o.selection.everything()) throw Error(ExitCode::kUsage, flag + " takes the whole trace (no --graph, --kernel)");
  const std::string format = resolve_format(o.output, "json", true);
  if (format == "csv") throw Error(ExitCode::kUsage, flag + " writes json, table or markdown (not csv)");
  // The analysis throws what is wrong with the trace; the error names the file, as every document error does.
  const auto summary = [&] {
    const Trace trace = load(o.input);
    try {
      return summarize(trace);
    } catch (const Error& e) {
      if (!e.where().file.empty()) throw;
      throw Error(e.code(), e.message(), SourceLocation{input_display_name(o.input)});
    }
  }();
  if (format == "json") {
    write_output(o.output.output, dump_json(to_json(summary)));
  } else {
    std::ostringstream out;
    write_tables(summary, format == "markdown", out);
    write_output(o.output.output, out.str());
  }
  return 0;
}

/// summary --by line: the hot lines per kernel (of the kernels --kernel keeps).
int line_summary(const SummaryOptions& o) {
  if (!o.selection.graph.empty())
    throw Error(ExitCode::kUsage, "--by line takes no --graph (access-mode traces have no CUDA graphs)");
  const Trace trace = load(o.input);
  const LineSummary summary =
      summarize_lines(o.selection.everything() ? trace : select_kernels(trace, o.selection, std::nullopt));
  const std::string format = resolve_format(o.output, "json", true);
  std::ostringstream out;
  if (format == "json")
    out << dump_json(line_summary_to_json(summary));
  else if (format == "csv")
    write_line_summary_csv(summary, out);
  else
    write_line_summary_tables(summary, format == "markdown", out);
  write_output(o.output.output, out.str());
  return 0;
}

}  // namespace

int summary_command(const SummaryOptions& o) {
  if (o.api + o.ranks + (o.by == "line") > 1)
    throw Error(ExitCode::kUsage, "--api, --ranks and --by line are three summaries: give one");
  // --sort orders the per-kernel table only; taken silently, the other summaries kept their own order.
  if (!o.sort.empty() && (o.api || o.ranks || o.by == "line"))
    throw Error(ExitCode::kUsage, std::string("--sort orders the kernel table; ") +
                                      (o.api ? "--api" : o.ranks ? "--ranks" : "--by line") + " takes none");
  if (o.api)  // the blocking calls, queue delays and GPU idle time
    return whole_trace_summary(o, "--api", summarize_api, api_summary_to_json, write_api_summary_tables);
  if (o.ranks)
    return whole_trace_summary(o, "--ranks", summarize_ranks, rank_summary_to_json, write_rank_summary_tables);
  if (o.by == "line") return line_summary(o);
  TraceSummary summary = summarize_trace(load(o.input), o.selection, input_display_name(o.input));
  sort_kernels(summary, kernel_order(o.sort).value_or(KernelOrder::kTotal));  // the CLI admits only known names
  std::string format = resolve_format(o.output, "json", true);
  if (format == "json") {
    write_output(o.output.output, dump_json(summary_to_json(summary)));
  } else {
    std::ostringstream out;
    if (format == "csv") write_summary_csv(summary, out);
    else write_summary_tables(summary, format == "markdown", out);
    write_output(o.output.output, out.str());
  }
  return 0;
}

int export_command(const ExportOptions& o) {
  if (!o.chrome) throw Error(ExitCode::kUsage, "export: name a format (--chrome is the only one so far)");
  const Trace trace = load_timed(o.input, "export --chrome", false);
  const std::optional<std::uint32_t> graph = selected_graph(trace, o.selection, input_display_name(o.input));
  write_output(o.output.output, dump_json(chrome_trace(o.selection.everything()
                                                           ? trace
                                                           : select_kernels(trace, o.selection, graph))));
  return 0;
}

int check_command(const CheckOptions& o) {
  Trace trace = load(o.input);
  std::vector<std::string> problems = trace_problems(trace);
  std::ostringstream out;
  // Kernel names and file names may hold control characters: each line of a problem is made printable apart.
  for (const auto& p : problems)
    for (std::size_t at = 0; at <= p.size();) {
      const std::size_t eol = std::min(p.find('\n', at), p.size());
      out << printable(p.substr(at, eol - at)) << "\n";
      at = eol + 1;
    }
  const std::uint64_t findings = trace.findings_in_all();
  // The count is of problems, not of the printed blocks (a PC's unlisted findings print as one "N more" line).
  const std::uint64_t count = trace.failed_launches.size() + findings;
  out << input_display_name(o.input) << ": " << count << (count == 1 ? " problem" : " problems")
      << " (" << trace.failed_launches.size() << (trace.failed_launches.size() == 1 ? " failed launch, " : " failed launches, ")
      << findings << (findings == 1 ? " out-of-bounds access, " : " out-of-bounds accesses, ")
      << trace.findings.size() << " listed)" << (trace.partial ? ", partial trace" : "") << "\n";
  write_output(o.output.output, out.str());
  return problems.empty() && count == 0 ? 0 : static_cast<int>(ExitCode::kCheckFailed);
}

int diff_command(const DiffOptions& o) {
  check_stdin_once({o.base, o.candidate});
  const std::string base_name = input_display_name(o.base), candidate_name = input_display_name(o.candidate);
  Trace base = load_timed(o.base, "vtrace diff", true);  // the base's error first, whichever both are
  Trace candidate = load_timed(o.candidate, "vtrace diff", true);
  const TraceDiff diff = diff_traces(std::move(base), std::move(candidate), o.selection,
                                     o.fail_on_regression.value_or(-1), base_name, candidate_name);
  const std::string format = resolve_format(o.output, "json", true);
  if (format == "json") {
    write_output(o.output.output, dump_json(trace_diff_document(diff)));
  } else {
    std::ostringstream out;
    if (format == "csv") write_trace_diff_csv(diff, out);
    else write_trace_diff_tables(diff, format == "markdown", out);
    write_output(o.output.output, out.str());
  }
  return diff.has_regression() ? static_cast<int>(ExitCode::kCheckFailed) : 0;
}

int merge_command(const MergeOptions& o) {
  check_stdin_once(o.inputs);
  std::vector<MergeInput> inputs;
  for (const std::string& path : o.inputs) inputs.push_back({load(path), input_display_name(path)});
  const Trace merged = merge_traces(std::move(inputs));
  OutputStream out(o.output.output);
  write_trace_document(merged, [&](std::string_view piece) { out.write(piece); });
  out.commit();
  return 0;
}

}  // namespace vtools::vtrace
