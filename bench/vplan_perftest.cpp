// vplan performance harness (not a test): a generated TTGIR of about 10k ops -> plan + the three DOT graphs (+ the
// JSON document, streamed as `vplan analyze` writes it, and read back as `vplan check plan.json` reads it), timed per
// phase on one core. The kernel repeats the body of tests/data/ttgir/matmul_ws_sm90.ttgir
// (allocations, barriers, a warp_specialize with a producer and two consumer partitions) R times, each copy with
// its values renamed, so buffers, channels and regions scale with the op count.
//
//   vplan_perftest [OPS=10000] [REPEATS=7]        prints ops, buffers, channels and median CPU ms per phase
//   vplan_perftest OPS 0 FILE                      writes the generated TTGIR to FILE (for `vplan analyze|diff`)
#include <ctime>
#include <cstdio>
#include <fstream>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "libcommon/input_file.hpp"
#include "libcommon/stats.hpp"
#include "tools/vplan/dot_writer.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "formats/plan/plan_json.hpp"
#include "formats/plan/plan_writer.hpp"
#include "tools/vplan/ttgir_reader.hpp"

using namespace vtools::vplan;

namespace {

// The fixture with its function body repeated `copies` times (values renamed per copy).
std::string generate(const std::string& fixture, int copies) {
  const std::size_t body_start = fixture.find('\n', fixture.find("tt.func public")) + 1;
  const std::size_t body_end = fixture.rfind("    tt.return");
  const std::string body = fixture.substr(body_start, body_end - body_start);
  const std::regex value(R"(%([A-Za-z0-9_$.\-]+))");
  std::string out = fixture.substr(0, body_start);
  for (int i = 0; i < copies; ++i) out += std::regex_replace(body, value, "%$1_r" + std::to_string(i));
  return out + fixture.substr(body_end);
}

// CPU time of this thread: on a shared machine wall time mostly measures the other tenants.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const int target_ops = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  const std::string fixture = vtools::read_input(std::string(VPLAN_FIXTURE_DIR) + "/matmul_ws_sm90.ttgir");
  const std::size_t fixture_ops = build_plan(read_ttgir(fixture, "fixture"), {}).ops.size();
  const int copies = static_cast<int>((target_ops + fixture_ops - 1) / fixture_ops);
  const std::string text = generate(fixture, copies);
  if (argc > 3) {
    std::ofstream(argv[3], std::ios::binary) << text;
    if (repeats <= 0) return 0;
  }

  std::vector<double> parse_ms, plan_ms, dot_ms, json_ms, read_ms, total_ms;
  std::size_t ops = 0, buffers = 0, channels = 0, dot_bytes = 0;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = cpu_ms();
    Module m = read_ttgir(text, "generated.ttgir");
    const double t1 = cpu_ms();
    Plan plan = build_plan(m, {});
    const double t2 = cpu_ms();
    std::ostringstream dots;
    for (auto kind : {GraphKind::kSmem, GraphKind::kTmem, GraphKind::kCombined}) write_dot(plan, kind, false, dots);
    const double t3 = cpu_ms();
    std::string json = plan_document_text(plan, "ttgir");
    const double t4 = cpu_ms();
    const Plan back = read_plan_json(json, "generated.plan.json");
    if (back.ops.size() != plan.ops.size()) return 1;
    read_ms.push_back(cpu_ms() - t4);
    parse_ms.push_back(t1 - t0);
    plan_ms.push_back(t2 - t1);
    dot_ms.push_back(t3 - t2);
    json_ms.push_back(t4 - t3);
    total_ms.push_back(t4 - t0);
    ops = plan.ops.size(), buffers = plan.buffers.size(), channels = plan.channels.size();
    dot_bytes = dots.str().size();
  }
  std::printf("generated TTGIR: %zu bytes, %d copies of matmul_ws_sm90, %zu ops, %zu buffers, %zu channels\n",
              text.size(), copies, ops, buffers, channels);
  std::printf("median of %d runs (thread CPU ms): parse %.2f  plan %.2f  3 DOTs %.2f (%zu bytes)  JSON %.2f  total %.2f"
              "  (JSON read back %.2f)\n",
              repeats, vtools::stats::median(parse_ms), vtools::stats::median(plan_ms), vtools::stats::median(dot_ms),
              dot_bytes, vtools::stats::median(json_ms), vtools::stats::median(total_ms), vtools::stats::median(read_ms));
  std::printf("parse + plan + 3 DOTs: %.2f ms (target <= 100 ms)\n",
              vtools::stats::median(parse_ms) + vtools::stats::median(plan_ms) + vtools::stats::median(dot_ms));
  return 0;
}
