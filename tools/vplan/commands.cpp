#include "tools/vplan/commands.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "libcommon/cli.hpp"
#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vplan/dot_writer.hpp"
#include "tools/vplan/ir_dump_log.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "tools/vplan/plan_diff.hpp"
#include "tools/vplan/plan_diff_writer.hpp"
#include "formats/plandiff/plandiff_writer.hpp"
#include "tools/vplan/plan_inputs.hpp"
#include "formats/plan/plan_json.hpp"
#include "formats/plan/plan_writer.hpp"
#include "tools/vplan/reuse_hazards.hpp"
#include "tools/vplan/table_writer.hpp"
#include "tools/vplan/ttgir_reader.hpp"
#include "tools/vplan/ws_dot_reader.hpp"
#include "tools/vplan/ws_log_extract.hpp"

namespace vtools::vplan {

namespace fs = std::filesystem;

namespace {

struct LoadedPlan {
  Plan plan;
  std::string stem;
  std::string source_format;
};

/// The first 8 characters after white space and comments (`//` lines and `/* */` blocks, which DOT and MLIR both
/// have), so a planner DOT dump that opens with a comment is still read as DOT.
std::string_view first_word(std::string_view text) {
  std::size_t i = 0;
  for (;;) {
    i = text.find_first_not_of(" \t\r\n", i);
    if (i == std::string_view::npos) return {};
    if (text.substr(i, 2) == "//") {
      i = text.find('\n', i);
    } else if (text.substr(i, 2) == "/*") {
      i = text.find("*/", i + 2);
      if (i != std::string_view::npos) i += 2;
    } else {
      return text.substr(i, 8);
    }
    if (i == std::string_view::npos) return {};
  }
}

// Decides what an input is by its content: vtools.plan JSON, planner DOT (or a log with planner markers), an IR
// dump log, else TTGIR. Only a plan document, read a record at a time (the mapped pages behind the reader dropped:
// memory is about the plan's, ~0.85x the document), may be over the default input cap. The input is released once
// read: the models hold their own copies, and planning a 10^6-op module needs about as much again as its 136 MB.
LoadedPlan load_one(KernelInput& in, const Options& options) {
  const InputText& input = *in.text;
  const std::string_view text = input.text();
  // Plans read back are checked again for reuse hazards (a document from another version may carry none).
  auto checked = [](Plan plan) {
    plan.reuse_hazards = find_reuse_hazards(plan);
    return plan;
  };
  if (first_word(text).substr(0, 1) == "{") {
    Plan plan = read_plan_json(text, in.name, [&](std::size_t offset) { input.passed(offset); });
    in.text.reset();
    return {checked(std::move(plan)), in.stem, "vtools.plan"};
  }
  check_input_size(in.name, text.size());
  if (first_word(text).substr(0, 7) == "digraph" || text.find("=== SMEM Buffer Liveness Graph ===") != text.npos ||
      text.find("=== Combined Key Ops") != text.npos || text.find("=== TMEM Buffer Liveness Graph ===") != text.npos)
    return {checked(read_ws_dot(text, in.name)), in.stem, "ws-dot"};
  PlanOptions po;
  po.function = options.function;
  po.triton_shared = in.triton_shared;
  if (options.triton_shared >= 0) po.triton_shared = options.triton_shared;
  if (looks_like_ir_dump_log(text)) {
    std::string dump = last_ttgir_dump(text, in.name);
    in.text.reset();
    Module module = read_ttgir(dump, in.name);
    std::string().swap(dump);
    return {build_plan(std::move(module), po), in.stem, "ttgir"};
  }
  Module module = read_ttgir(text, in.name);
  in.text.reset();
  return {build_plan(std::move(module), po), in.stem, "ttgir"};
}

struct LoadedPlans {
  std::vector<LoadedPlan> plans;  ///< the inputs that could be read, in input order
  std::size_t inputs = 0;         ///< how many inputs there were (a directory's files)
  std::size_t failed = 0;         ///< inputs refused as bad data, each already reported

  /// Throws Error(kDataError) when some input failed: called once the good ones are written.
  void throw_if_any_failed(const Options& options) const {
    if (failed > 0)
      throw Error(ExitCode::kDataError, std::to_string(failed) + " of " + std::to_string(inputs) +
                                            " kernels could not be read (each reported above)",
                  SourceLocation{options.input});
  }
};

// A directory's kernels are read one by one: a file that does not parse is reported and the others still get their
// output (the exit code says some failed, see throw_if_any_failed). A single input fails as a whole.
LoadedPlans load_plans(const Options& options) {
  LoadedPlans out;
  auto inputs = collect_inputs(options.input);
  out.inputs = inputs.size();
  for (auto& in : inputs) {
    try {
      out.plans.push_back(load_one(in, options));
    } catch (const Error& e) {
      if (inputs.size() == 1 || e.code() != ExitCode::kDataError) throw;
      print_error(e);
      ++out.failed;
    }
  }
  return out;
}

// One output per plan: to -o for a single input, else to -o DIR/<stem><suffix> (several inputs need a directory).
// `write(plan, emit)` sends the output in pieces (a 10^6-op plan's JSON is ~400 MB: never held whole).
template <class Write>
void emit_each(const LoadedPlans& loaded, const Options& options, const std::string& suffix, Write write) {
  const auto& plans = loaded.plans;
  auto write_to = [&](const LoadedPlan& p, const std::string& path) {
    OutputStream out(path);
    write(p, [&](std::string_view piece) { out.write(piece); });
    out.commit();
  };
  if (loaded.inputs == 1) {
    write_to(plans[0], options.out.output);
    return;
  }
  if (options.out.output == "-")
    throw Error(ExitCode::kUsage, "'" + options.input + "' holds " + std::to_string(loaded.inputs) +
                                      " kernels: give -o DIR to write one file per kernel");
  std::error_code ec;
  fs::create_directories(options.out.output, ec);
  if (ec) throw Error(ExitCode::kIoError, "cannot create directory '" + options.out.output + "': " + ec.message());
  for (const auto& p : plans) {
    const fs::path file = fs::path(options.out.output) / (p.stem + suffix);
    fs::create_directories(file.parent_path(), ec);  // a stem with folders (plan_inputs.hpp)
    if (ec) throw Error(ExitCode::kIoError, "cannot create directory '" + file.parent_path().string() + "': " +
                                                ec.message());
    write_to(p, file.string());
  }
}

// emit_each for writers to a std::ostream (small outputs: graphs, tables).
template <class Write>
void write_each(const LoadedPlans& loaded, const Options& options, const std::string& suffix, Write write) {
  emit_each(loaded, options, suffix, [&](const LoadedPlan& p, const PlanEmit& emit) {
    std::ostringstream s;
    write(p, s);
    emit(s.str());
  });
}

/// Each plan's budget and reconciliation notes on stderr ("may be over budget", an unknown target's limits), once
/// the output is safely written.
void print_plan_notes(const LoadedPlans& loaded) {
  for (const auto& p : loaded.plans)
    for (const auto& note : p.plan.summary.notes) print_note(p.plan.kernel.name + ": " + note);
}

}  // namespace

int run_analyze(const Options& options) {
  auto loaded = load_plans(options);
  emit_each(loaded, options, ".plan.json", [](const LoadedPlan& p, const PlanEmit& emit) {
    write_plan_document(p.plan, p.source_format, emit);
  });
  print_plan_notes(loaded);
  loaded.throw_if_any_failed(options);
  return 0;
}

int run_dot(const Options& options) {
  GraphKind kind = graph_kind_from_name(options.graph);
  auto loaded = load_plans(options);
  write_each(loaded, options, "." + options.graph + ".dot",
             [&](const LoadedPlan& p, std::ostream& out) { write_dot(p.plan, kind, options.markers, out); });
  loaded.throw_if_any_failed(options);
  return 0;
}

int run_table(const Options& options) {
  const TableStyle style = options.out.format == "markdown" ? TableStyle::kMarkdown : TableStyle::kText;
  std::ostringstream s;
  auto loaded = load_plans(options);
  for (const auto& p : loaded.plans) write_tables(p.plan, style, s);
  write_output(options.out.output, s.str());
  loaded.throw_if_any_failed(options);
  return 0;
}

int run_check(const Options& options) {
  std::ostringstream s;
  bool all_fit = true;
  auto loaded = load_plans(options);
  for (const auto& p : loaded.plans) all_fit = write_check_report(p.plan, s) && all_fit;
  write_output(options.out.output, s.str());
  print_plan_notes(loaded);  // a gate that passes on a bound over the limit, or on a guessed limit, says so
  loaded.throw_if_any_failed(options);  // a kernel not checked is not a pass
  return all_fit ? 0 : static_cast<int>(ExitCode::kCheckFailed);
}

int run_diff(const Options& options) {
  check_stdin_once({options.input, options.input_b});
  // Each side is one kernel: a directory of several would make the pairing a guess.
  auto load_side = [&](const std::string& input) {
    Options side = options;
    side.input = input;
    auto loaded = load_plans(side);
    if (loaded.inputs != 1)
      throw Error(ExitCode::kUsage, "'" + input + "' holds " + std::to_string(loaded.inputs) +
                                        " kernels: vplan diff compares one kernel with one kernel");
    return std::move(loaded.plans[0].plan);
  };
  const Plan a = load_side(options.input);
  const Plan b = load_side(options.input_b);
  const PlanDiff diff = diff_plans(a, b);
  const std::string format = resolve_format(options.out, "json", true);
  std::ostringstream s;
  if (format == "json") s << dump_json(plan_diff_document(diff));
  else if (format == "dot") write_plan_diff_dot(diff, s);
  else write_plan_diff_table(diff, format == "markdown" ? TableStyle::kMarkdown : TableStyle::kText, s);
  write_output(options.out.output, s.str());
  return 0;
}

int run_extract(const Options& options) {
  const std::string name = input_display_name(options.input);
  auto graphs = extract_ws_graphs(read_input(options.input), name);
  if (graphs.empty()) throw Error(ExitCode::kDataError, "expected planner graph markers ('=== ... ==='), got none",
                                  SourceLocation{name});
  if (options.out.output == "-") {  // -o -: the graphs one after another, as `dot` and `vplan import -` read them
    std::string all;
    for (const auto& g : graphs) {
      all += g.dot;
      if (!all.empty() && all.back() != '\n') all += '\n';
    }
    write_output("-", all);
    return 0;
  }
  const std::string dir = options.out.output.empty() ? "." : options.out.output;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ExitCode::kIoError, "cannot create directory '" + dir + "': " + ec.message());
  std::vector<std::string> paths;
  for (const auto& g : graphs) {
    paths.push_back((fs::path(dir) / (g.kind + "_" + std::to_string(g.index) + ".dot")).string());
    check_output_creatable(paths.back());  // all of them before the first is written: no partial set of graphs
  }
  std::string listing;
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    write_output(paths[i], graphs[i].dot);
    listing += paths[i] + "\n";
  }
  if (!options.out.quiet) write_output("-", listing);  // a listing lost to a full stdout is an I/O error too
  return 0;
}

int run_import(const Options& options) {
  std::error_code ec;
  std::vector<WsDotText> texts;
  if (fs::is_directory(options.input, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(options.input, ec))
      if (e.path().extension() == ".dot" && is_file_or_unknown(e)) files.push_back(e.path());
    if (ec) throw Error(ExitCode::kNoInput, "cannot read directory '" + options.input + "': " + ec.message());
    if (files.empty()) throw Error(ExitCode::kNoInput, "no .dot file in directory '" + options.input + "'");
    std::sort(files.begin(), files.end());
    for (const auto& f : files) texts.push_back({read_input(f.string()), f.string()});
  } else {
    texts.push_back({read_input(options.input), input_display_name(options.input)});
  }
  Plan plan = read_ws_dot_texts(texts);
  if (texts.size() > 1) plan.kernel.source = options.input;
  OutputStream out(options.out.output);
  write_plan_document(plan, "ws-dot", [&](std::string_view piece) { out.write(piece); });
  out.commit();
  return 0;
}

}  // namespace vtools::vplan
