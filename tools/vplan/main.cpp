// vplan CLI: binds flags to vplan::Options and calls one library function per subcommand (commands.hpp).
#include "libcommon/cli.hpp"
#include "libcommon/flag_ranges.hpp"
#include "tools/vplan/commands.hpp"

namespace {

constexpr const char* kExamples =
    "  vplan analyze kernel.ttgir -o plan.json          # TTGIR -> vtools.plan\n"
    "  vplan analyze ~/.triton/cache -o plans/          # every kernel of a cache/dump dir\n"
    "  vplan dot plan.json --graph combined -o c.dot    # planner-style graphs (smem|tmem|combined)\n"
    "  vplan table kernel.ttgir --format markdown       # buffer and TMEM tables\n"
    "  vplan check kernel.ttgir                         # exit 1 when over the SMEM/TMEM budget\n"
    "  vplan extract debug.log -o graphs/               # planner graphs out of a debug log\n"
    "  vplan import graphs/ -o plan.json                # planner .dot dumps -> vtools.plan\n"
    "  vplan diff pass.ttgir fail.ttgir --format table  # what changed: buffers, reuse, channels, totals\n"
    "  vplan analyze kernel.ttgir -o plan.json && vrender plan.json -o plan.png\n";

void add_input(CLI::App* cmd, vtools::vplan::Options& o, const char* what) {
  cmd->add_option("INPUT", o.input, what)->required();
}

void add_planning(CLI::App* cmd, vtools::vplan::Options& o) {
  cmd->add_option("--function", o.function, "kernel to plan when the module has several functions");
  cmd->add_option("--triton-shared", o.triton_shared,
                  "Triton's own shared-memory total in bytes (for reconciling; 0 to 2147483647)")
      ->check(vtools::integer_range(0, 2147483647));
}

}  // namespace

int main(int argc, char** argv) {
  namespace vp = vtools::vplan;
  auto app = vtools::make_app("vplan", "Warp-specialization memory-planner graphs (SMEM, TMEM, channels) from "
                                       "Triton TTGIR and from the planner's own dumps",
                              kExamples);
  vp::Options o;
  const char* kInput = "TTGIR file, '-', Triton cache/dump directory, dump log, vtools.plan JSON or planner .dot";

  auto* analyze = app->add_subcommand("analyze", "TTGIR -> vtools.plan JSON (buffers, liveness, channels, budget)");
  add_input(analyze, o, kInput);
  add_planning(analyze, o);
  vtools::add_output_options(analyze, o.out, {});

  auto* dot = app->add_subcommand("dot", "one planner graph as DOT (smem, tmem or combined)");
  add_input(dot, o, kInput);
  add_planning(dot, o);
  dot->add_option("--graph", o.graph, "smem | tmem | combined (default combined)");
  dot->add_flag("--markers", o.markers, "add the planner's '=== ... ===' marker lines");
  vtools::add_output_options(dot, o.out, {});

  auto* table = app->add_subcommand("table", "SMEM / TMEM / channel tables and the budget");
  add_input(table, o, kInput);
  add_planning(table, o);
  vtools::add_output_options(table, o.out, {"table", "markdown"}, {"text"});  // text: the older name of table

  auto* check = app->add_subcommand("check", "exit 1 when the plan does not fit, naming the buffers at the peak");
  add_input(check, o, kInput);
  add_planning(check, o);
  vtools::add_output_options(check, o.out, {});

  auto* extract = app->add_subcommand("extract", "planner graphs out of a debug log, one .dot per graph (-o DIR)");
  add_input(extract, o, "debug log with '=== ... Graph ===' markers, or '-'");
  vtools::add_output_options(extract, o.out, {});
  extract->get_option("--output")->description("folder the .dot files go to (default: the current directory)");

  auto* import = app->add_subcommand("import", "planner .dot dumps (a file or a directory) -> vtools.plan JSON");
  add_input(import, o, "a planner .dot file (markers allowed), a log, or a directory of them");
  vtools::add_output_options(import, o.out, {});

  auto* diff = app->add_subcommand("diff", "what changed between two plans: buffers, reuse groups, channels, totals");
  diff->add_option("A", o.input, "the first (before) kernel: TTGIR, dump log, vtools.plan JSON or planner .dot")
      ->required();
  diff->add_option("B", o.input_b, "the second (after) kernel, the same kinds")->required();
  add_planning(diff, o);
  vtools::add_output_options(diff, o.out, {"table", "markdown", "json", "dot"});

  return vtools::run_main(*app, argc, argv, [&] {
    if (diff->parsed()) return vp::run_diff(o);
    if (analyze->parsed()) return vp::run_analyze(o);
    if (dot->parsed()) return vp::run_dot(o);
    if (table->parsed()) return vp::run_table(o);
    if (check->parsed()) return vp::run_check(o);
    if (extract->parsed()) {
      if (extract->count("--output") == 0) o.out.output.clear();  // no -o: the current directory; -o -: stdout
      return vp::run_extract(o);
    }
    if (import->parsed()) return vp::run_import(o);
    std::cout << app->help();
    return 2;
  });
}
