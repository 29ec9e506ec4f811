// `vbench run` and `vbench verify`: choose the backend and configs, run the harness, write the document or a table.
#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "libcommon/cli.hpp"
#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/backend_choice.hpp"
#include "tools/vbench/bench_document.hpp"
#include "tools/vbench/bench_table.hpp"
#include "tools/vbench/commands.hpp"
#include "tools/vbench/impl_harness.hpp"
#include "tools/vbench/model_selection.hpp"

namespace vtools::vbench {

namespace {

void check_sizes(const RunOptions& o) {
  if (o.warmup < 0 || o.iters <= 0) throw Error(ExitCode::kUsage, "--warmup must be >= 0 and --iters positive");
  if (!(o.min_time >= 0 && o.min_time <= 3600)) throw Error(ExitCode::kUsage, "--min-time must be 0 to 3600 seconds");
  if (o.repetitions < 1 || o.repetitions > 100) throw Error(ExitCode::kUsage, "--repetitions must be 1 to 100");
}

/// --forward NAME for every benchmark, or --forwards-from DOC per benchmark; none: prepare searches.
ForwardPins forward_pins(const RunOptions& o, DType dtype) {
  ForwardPins pins;
  if (!o.forward.empty()) {
    pins.source = "--forward";
    pins.every = ForwardPin{o.forward, {}, "", "", pins.source};
  } else if (!o.forwards_from.empty()) {
    pins = read_forward_pins(read_document(o.forwards_from, {kBenchFormat}), input_display_name(o.forwards_from),
                             dtype);
  }
  return pins;
}

HarnessSettings harness_settings(const RunOptions& o, bool time) {
  cpu::cpu_threads();  // a bad VTOOLS_THREADS is refused before any work, not at the first CPU op
  check_sizes(o);
  HarnessSettings s;
  s.shapes = shapes_of(o.batches, o.seqs);
  s.dtype = parse_dtype(o.dtype);
  s.warmup = o.warmup;
  s.iters = o.iters;
  s.min_time_s = o.min_time;
  s.repetitions = o.repetitions;
  s.caches = parse_cache_state(o.caches);
  s.seed = o.seed;
  s.check = time ? !o.no_check : true;
  s.time = time;
  return s;
}

BenchRun run_harness(const RunOptions& o, bool time) {
  HarnessSettings s = harness_settings(o, time);
  s.pins = forward_pins(o, s.dtype);
  std::unique_ptr<GptWeights> storage;
  const auto jobs = select_jobs(o.model, o.weights, storage);
  std::vector<std::string> notes;
  const std::string pin_flag = !o.forward.empty() ? "--forward" : !o.forwards_from.empty() ? "--forwards-from" : "";
  auto backend = choose_backend(o.backend, o.gpu, &notes, pin_flag, o.cuda);
  BenchRun run = run_benchmarks(jobs, s, *backend);  // collects the backend's notes of each prepared model
  run.notes.insert(run.notes.begin(), notes.begin(), notes.end());
  run.weights_source = o.weights.empty() ? "init (seed " + std::to_string(o.seed) + ")" : o.weights;
  return run;
}

void write_run(const BenchRun& run, const RunOptions& o) {
  const std::string format = resolve_format(o.out, "json", true);
  if (format == "json") {
    write_document(bench_document(run, {o.command_line, host_name()}), o.out.output);
    return;
  }
  std::ostringstream text;
  write_bench_table(run, format, text);
  write_output(o.out.output, text.str());
}

/// Exit 1 when a config failed (the gate; an implementation's crash or timeout), 65 when an implementation's reply
/// was malformed; the document is written first, failures recorded.
int exit_code(const std::vector<BenchRun>& runs) {
  int code = 0;
  for (const BenchRun& run : runs) {
    for (const ConfigResult& r : run.results) {
      if (r.failure_kind == "malformed") return static_cast<int>(ExitCode::kDataError);
      if (r.status == "failed") code = static_cast<int>(ExitCode::kCheckFailed);
    }
  }
  return code;
}

/// The document path of implementation `name` when several --impl write one each: -o with {impl} replaced.
std::string impl_output(const std::string& pattern, const std::string& name) {
  std::string path = pattern;
  for (auto at = path.find("{impl}"); at != std::string::npos; at = path.find("{impl}", at + name.size()))
    path.replace(at, 6, name);
  return path;
}

/// --impl: what it cannot go with, and where several write their documents; checked before anything runs.
void check_impl_flags(const RunOptions& o) {
  if (o.backend != "auto")
    throw Error(ExitCode::kUsage, "--impl runs an implementation instead of a backend: drop --backend");
  if (!o.forward.empty() || !o.forwards_from.empty())
    throw Error(ExitCode::kUsage,
                "--forward and --forwards-from pick a cuda backend forward; they do not go with --impl");
  if (!(o.impl_timeout > 0 && o.impl_timeout <= 86400))
    throw Error(ExitCode::kUsage, "--impl-timeout must be more than 0 and at most 86400 seconds");
  for (const std::string& cmd : o.impls)
    if (cmd.find_first_not_of(" \t") == std::string::npos) throw Error(ExitCode::kUsage, "--impl needs a command line");
  if (o.impls.size() > 1 && resolve_format(o.out, "json", true) == "json" &&
      o.out.output.find("{impl}") == std::string::npos) {
    throw Error(ExitCode::kUsage, "several --impl write one document each: give -o a path with {impl} in it "
                                  "(replaced by each implementation's name), e.g. -o run-{impl}.json");
  }
}

/// One BenchRun per --impl, in order; documents named after each implementation's name, made unique.
std::vector<BenchRun> run_impls(const RunOptions& o) {
  const HarnessSettings s = harness_settings(o, true);
  std::unique_ptr<GptWeights> storage;
  const auto jobs = select_jobs(o.model, o.weights, storage);
  std::vector<BenchRun> runs;
  for (const std::string& cmd : o.impls) {
    BenchRun run = run_impl_benchmarks(jobs, s, ImplSettings{cmd, o.impl_timeout, o.gpu, o.weights});
    run.weights_source = o.weights.empty() ? "init (seed " + std::to_string(o.seed) + ")" : o.weights;
    runs.push_back(std::move(run));
  }
  return runs;
}

void write_impl_runs(const std::vector<BenchRun>& runs, const RunOptions& o) {
  if (runs.size() == 1) return write_run(runs[0], o);
  const std::string format = resolve_format(o.out, "json", true);
  if (format != "json") {
    std::ostringstream text;
    for (const BenchRun& run : runs) write_bench_table(run, format, text);
    return write_output(o.out.output, text.str());
  }
  std::vector<std::string> used;
  for (const BenchRun& run : runs) {
    std::string name = impl_file_name(run.backend);
    for (int n = 2; std::find(used.begin(), used.end(), name) != used.end(); ++n)
      name = impl_file_name(run.backend) + "-" + std::to_string(n);
    used.push_back(name);
    write_document(bench_document(run, {o.command_line, host_name()}), impl_output(o.out.output, name));
    print_note("wrote " + impl_output(o.out.output, name));
  }
}

}  // namespace

int run_command(const RunOptions& o) {
  if (!o.impls.empty()) {
    check_impl_flags(o);
    check_output_creatable(impl_output(o.out.output, "impl"));
    const std::vector<BenchRun> runs = run_impls(o);
    write_impl_runs(runs, o);
    return exit_code(runs);
  }
  check_output_creatable(o.out.output);  // before minutes of benchmarks, not after
  const BenchRun run = run_harness(o, true);
  write_run(run, o);
  return exit_code({run});
}

int verify_command(const RunOptions& o) {
  check_output_creatable(o.out.output);
  const BenchRun run = run_harness(o, false);
  write_run(run, o);
  return exit_code({run});
}

}  // namespace vtools::vbench
