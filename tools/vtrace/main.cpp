// vtrace CLI: binds flags to the Options structs of options.hpp and calls one library function per subcommand;
// see tools/vtrace/README.md.
#include <cstdint>
#include <limits>
#include <string>

#include "libcommon/cli.hpp"
#include "libcommon/flag_ranges.hpp"
#include "libcommon/usage_errors.hpp"
#include "tools/vtrace/options.hpp"

namespace {
/// --graph and --kernel of summary and export (tools/vtrace/trace_selection.hpp).
void add_selection_options(CLI::App* cmd, vtools::vtrace::TraceSelection& selection) {
  cmd->add_option("--graph", selection.graph,
                  "only kernels launched from CUDA graph ID ('last': the last graph launched); copies are left out")
      ->check([](const std::string& value) {  // "" would otherwise mean no selection at all
        return value.empty() ? std::string("expected a graph id or 'last', got ''") : std::string();
      });
  cmd->add_option("--kernel", selection.kernel_regex, "only kernels whose (mangled or demangled) name matches REGEX");
}
}  // namespace

int main(int argc, char** argv) {
  using namespace vtools::vtrace;
  auto app = vtools::make_app("vtrace", "trace the CUDA kernels of any program to JSON",
                              "  vtrace run -o t.json -- python my_kernel.py\n"
                              "  vtrace run --kernel 'gemm|softmax' -o t.json -- ./app --n 4096\n"
                              "  vtrace run --capture-range cudaProfilerApi -o t.json -- python train.py\n"
                              "  vtrace run --nvtx -o t.json -- python train.py   # torch.cuda.nvtx ranges too\n"
                              "  vtrace summary t.json --format table\n"
                              "  vtrace summary --graph last --format table t.json\n"
                              "  vtrace summary --graph last --sort exposed --format table t.json\n"
                              "  vtrace summary --format csv t.json > kernels.csv\n"
                              "  vtrace summary --by line --format table a.json   # hot source lines (--accesses)\n"
                              "  vtrace export --chrome t.json -o t.perfetto.json\n"
                              "  vtrace export --chrome --graph last t.json -o graph.perfetto.json\n"
                              "  vtrace check t.json || echo 'failed launches or out-of-bounds accesses'\n"
                              "  vtrace diff before.json after.json --format table\n"
                              "  vtrace diff --fail-on-regression 5 main.json branch.json -o diff.json\n"
                              "  srun vtrace run -o t.%h.%r.json -- python train.py   # one trace per rank\n"
                              "  vtrace merge t.*.json -o all.json && vtrace summary --ranks --format table all.json\n");

  RunOptions run;
  auto* run_cmd = app->add_subcommand("run", "run CMD under the tracer and write its vtools.trace document");
  run_cmd->add_option("--kernel", run.kernel_regex, "keep only kernels whose (mangled or demangled) name matches REGEX");
  run_cmd->add_flag("--accesses", run.accesses, "access mode: global loads/stores per block (Compute Sanitizer API)");
  constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
  run_cmd->add_option("--launch", run.launch, "access mode: record only launch N (0-based) of each kernel")
      ->check(vtools::integer_range(0, kInt64Max));
  run_cmd->add_option("--blocks", run.blocks, "access mode: blocks to record, e.g. '0,5,10-12' or 'every:8'");
  run_cmd->add_option("--max-bytes", run.max_bytes, "access mode: largest device buffer of one recorded launch, bytes; its site table is sized by the grid (default 256 MiB)")
      ->check(vtools::integer_range(1, kInt64Max));
  run_cmd->add_option("--capture-range", run.capture_range,
                      "none (default) or cudaProfilerApi: only what runs between cudaProfilerStart and Stop")
      ->check(vtools::one_of({"none", "cudaProfilerApi"}));
  run_cmd->add_flag("--nvtx", run.nvtx,
                    "also record NVTX ranges and each kernel's launch call (thread, time): kernels per range");
  run_cmd->add_flag("--api", run.api,
                    "also record blocking CUDA calls (synchronizes, synchronous copies, frees) and launch calls: "
                    "summary --api, each kernel's queue delay, GPU idle while the host waited");
  run_cmd->add_flag("--require-gpu", run.require_gpu,
                    "exit 69 when this machine cannot trace (no NVIDIA driver) instead of running CMD untraced");
  vtools::add_output_options(run_cmd, run.output, {});
  run_cmd->add_option("command", run.command, "the command and its arguments, after --")->required();
  run_cmd->footer("Everything after -- is the command; its stdin, stdout, stderr and exit status pass through.");

  SummaryOptions summary;
  auto* summary_cmd = app->add_subcommand("summary", "per-kernel and per-CUDA-graph tables: calls, times, share, exposed time, grid, registers, smem");
  add_selection_options(summary_cmd, summary.selection);
  summary_cmd->add_option("--sort", summary.sort, "kernel order: total (time, the default), exposed, calls or name")
      ->check(vtools::one_of({"total", "exposed", "calls", "name"}));
  summary_cmd->add_flag("--ranks", summary.ranks,
                        "per rank (kernel, collective, idle time), per NCCL collective (arrival skew) and stragglers");
  summary_cmd->add_flag("--api", summary.api,
                        "blocking CUDA calls (as nsys cuda_api_sum), kernels' queue delay, GPU idle while the host "
                        "waited (a trace made with run --api)");
  summary_cmd->add_option("--by", summary.by,
                          "kernel (default) or line: per kernel and source line, the loads, stores, bytes, sectors "
                          "and lanes per request and findings of an access-mode trace (the hot lines)")
      ->check(vtools::one_of({"kernel", "line"}));
  summary_cmd->add_option("trace", summary.input, "vtools.trace document ('-' = stdin)");
  vtools::add_output_options(summary_cmd, summary.output, {"json", "table", "markdown", "csv"});

  ExportOptions export_opts;
  auto* export_cmd = app->add_subcommand("export", "convert a trace for other viewers");
  export_cmd->add_flag("--chrome", export_opts.chrome, "Trace Event Format (Perfetto, chrome://tracing)");
  add_selection_options(export_cmd, export_opts.selection);
  export_cmd->add_option("trace", export_opts.input, "vtools.trace document ('-' = stdin)");
  vtools::add_output_options(export_cmd, export_opts.output, {});

  MergeOptions merge;
  auto* merge_cmd = app->add_subcommand("merge", "traces of several hosts or ranks as one, on one clock");
  merge_cmd->add_option("traces", merge.inputs, "vtools.trace documents ('-' = stdin, once)")->required();
  vtools::add_output_options(merge_cmd, merge.output, {});

  CheckOptions check;
  auto* check_cmd = app->add_subcommand("check", "exit 1 when the trace holds failed launches or findings");
  check_cmd->add_option("trace", check.input, "vtools.trace document ('-' = stdin)");
  vtools::add_output_options(check_cmd, check.output, {});

  DiffOptions diff;
  auto* diff_cmd = app->add_subcommand(
      "diff", "what changed between two traces, kernel by kernel: medians, ratio with a 95% interval, verdict");
  add_selection_options(diff_cmd, diff.selection);
  diff_cmd->add_option("--fail-on-regression", diff.fail_on_regression,
                       "exit 1 when a kernel is slower by more than PCT percent (0 to 1000) with a 95% interval above "
                       "1, or the busy time grew by more than PCT")
      ->check(vtools::number_range(0, 1000));
  diff_cmd->add_option("base", diff.base, "the baseline vtools.trace document ('-' = stdin)")->required();
  diff_cmd->add_option("candidate", diff.candidate, "the candidate vtools.trace document ('-' = stdin)")->required();
  vtools::add_output_options(diff_cmd, diff.output, {"json", "table", "markdown", "csv"});

  return vtools::run_main(*app, argc, argv, [&] {
    if (*run_cmd) return run_command(run);
    if (*summary_cmd) return summary_command(summary);
    if (*export_cmd) return export_command(export_opts);
    if (*check_cmd) return check_command(check);
    if (*diff_cmd) return diff_command(diff);
    if (*merge_cmd) return merge_command(merge);
    std::cout << app->help();
    return 2;
  });
}
