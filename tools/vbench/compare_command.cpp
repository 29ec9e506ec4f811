// `vbench compare`, `vbench merge` and `vbench show`: read vtools.bench documents, call compare/merge or read one
// back, write the result.
#include <sstream>

#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vbench/bench_table.hpp"
#include "tools/vbench/commands.hpp"
#include "tools/vbench/compare.hpp"
#include "tools/vbench/merge.hpp"

namespace vtools::vbench {

int compare_command(const CompareOptions& o) {
  check_stdin_once({o.baseline, o.candidate});
  const std::string a_name = input_display_name(o.baseline), b_name = input_display_name(o.candidate);
  const OrderedJson a = read_document(o.baseline, {kBenchFormat});
  const OrderedJson b = read_document(o.candidate, {kBenchFormat});
  const Comparison cmp =
      compare_benchmarks(read_bench_entries(a, a_name), read_bench_entries(b, b_name), o.fail_on_regression_pct);
  const std::string format = resolve_format(o.out, "json", true);
  if (format == "json") {
    write_document(compare_document(cmp, a, a_name, b, b_name), o.out.output);
  } else {
    std::ostringstream text;
    write_compare_table(cmp, format, text);
    write_output(o.out.output, text.str());
  }
  return cmp.has_regression() ? static_cast<int>(ExitCode::kCheckFailed) : 0;
}

int show_command(const ShowOptions& o) {
  const std::string name = input_display_name(o.input);
  const BenchRun run = read_bench_run(read_document(o.input, {kBenchFormat}), name);
  std::ostringstream text;
  write_bench_table(run, resolve_format(o.out, "table", false), text);
  write_output(o.out.output, text.str());
  return 0;
}

int merge_command(const MergeOptions& o) {
  if (o.inputs.empty()) throw Error(ExitCode::kUsage, "merge needs at least one input");
  check_stdin_once(o.inputs);
  std::vector<OrderedJson> docs;
  std::vector<std::string> names;
  for (const auto& path : o.inputs) {
    docs.push_back(read_document(path, {kBenchFormat}));
    names.push_back(input_display_name(path));
  }
  write_document(merge_bench_documents(docs, names, o.allow_mixed), o.out.output);
  return 0;
}

}  // namespace vtools::vbench
