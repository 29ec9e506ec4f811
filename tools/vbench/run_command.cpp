// `vbench run` and `vbench verify`: choose the backend and configs, run the harness, write the document or a table.
#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/backend_choice.hpp"
#include "tools/vbench/bench_document.hpp"
#include "tools/vbench/bench_table.hpp"
#include "tools/vbench/commands.hpp"
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

BenchRun run_harness(const RunOptions& o, bool time) {
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
  s.pins = forward_pins(o, s.dtype);
  std::unique_ptr<GptWeights> storage;
  const auto jobs = select_jobs(o.model, o.weights, storage);
  std::vector<std::string> notes;
  const std::string pin_flag = !o.forward.empty() ? "--forward" : !o.forwards_from.empty() ? "--forwards-from" : "";
  auto backend = choose_backend(o.backend, o.gpu, &notes, pin_flag);
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

/// Exit 1 when a config failed the correctness gate (the document is written first, failure recorded).
int exit_code(const BenchRun& run) {
  const bool failed = std::any_of(run.results.begin(), run.results.end(), [](const ConfigResult& r) {
    return r.status == "failed";
  });
  return failed ? static_cast<int>(ExitCode::kCheckFailed) : 0;
}

}  // namespace

int run_command(const RunOptions& o) {
  check_output_creatable(o.out.output);  // before minutes of benchmarks, not after
  const BenchRun run = run_harness(o, true);
  write_run(run, o);
  return exit_code(run);
}

int verify_command(const RunOptions& o) {
  check_output_creatable(o.out.output);
  const BenchRun run = run_harness(o, false);
  write_run(run, o);
  return exit_code(run);
}

}  // namespace vtools::vbench
