// vplan performance harness (not a test): a generated TTGIR of about 10k ops -> plan + the three DOT graphs (+ the
// JSON document, streamed as `vplan analyze` writes it, and read back as `vplan check plan.json` reads it), timed per
// phase on one core. The kernel repeats the body of tests/data/ttgir/matmul_ws_sm90.ttgir
// (allocations, barriers, a warp_specialize with a producer and two consumer partitions) R times, each copy with
// its values renamed, so buffers, channels and regions scale with the op count.
//
//   vplan_perftest [OPS=10000] [REPEATS=7]        prints ops, buffers, channels and median CPU ms per phase
//   vplan_perftest OPS 0 FILE                      writes the generated TTGIR to FILE (for `vplan analyze|diff`)
//   vplan_perftest reuse|channel|live N [REPEATS] [FILE] a stress shape instead, N its size (time at N, 2N, 4N
//       must grow about 2x): `reuse`, one WS planner reuse group (buffer.id) of N buffers in one partition
//       (async_task_id), each stored then loaded (program order, no barrier); `channel`, one buffer stored and
//       loaded N times in partition0 and loaded once in partition1 (N channels of one consumer each); `live`, N
//       buffers of four sizes allocated and stored, then loaded in reverse order (all N live at once: first-fit
//       offsets, past Triton's 1,024-buffer limit, with N placed buffers under each new one)
// The plan phase is build_plan from a module given up (moved), as `vplan analyze` calls it.
#include <ctime>
#include <cstdio>
#include <fstream>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "libcommon/input_file.hpp"
#include "libcommon/stats.hpp"
#include "tools/vplan/dot_writer.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "tools/vplan/reuse_hazards.hpp"
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

// The `live` shape's buffer i: 64 x (64 to 256) f16, so sizes differ and gaps can open.
std::string live_shape(int i) { return "64x" + std::to_string(64 * (1 + i % 4)) + "xf16"; }

// A stress shape (see the usage above), in the style of tests/data/vplan/planner/reuse_hazard.mlir.
std::string generate_shape(const std::string& shape, int n) {
  const std::string tile = "!ttg.memdesc<64x64xf16, #shared, #smem, mutable>";
  std::string out =
      "#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>\n"
      "#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>\n"
      "#smem = #ttg.shared_memory\n"
      "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\", "
      "\"ttg.threads-per-warp\" = 32 : i32} {\n"
      "  tt.func public @stress(%arg0: i32) {\n"
      "    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #blocked>\n"
      "    %s = ttg.local_alloc : () -> " + tile + "\n";
  // reuse: the planner's IR before code partitioning, where partitions are async_task_id (each member live from
  // its alloc to its load, as the planner would reuse them)
  const std::string task = " {async_task_id = array<i32: 1>}";
  for (int k = 0; shape == "live" && k < 4; ++k)
    out += "    %cst_live" + std::to_string(k) + " = arith.constant dense<0.000000e+00> : tensor<" + live_shape(k) +
           ", #blocked>\n";
  for (int i = 0; shape == "live" && i < n; ++i) {  // live from its store (first use) to its load
    const std::string a = "%a" + std::to_string(i);
    const std::string memdesc = "!ttg.memdesc<" + live_shape(i) + ", #shared, #smem, mutable>";
    out += "    " + a + " = ttg.local_alloc : () -> " + memdesc + "\n";
    out += "    ttg.local_store %cst_live" + std::to_string(i % 4) + ", " + a + " : tensor<" + live_shape(i) +
           ", #blocked> -> " + memdesc + "\n";
  }
  for (int i = n - 1; shape == "live" && i >= 0; --i)
    out += "    %x" + std::to_string(i) + " = ttg.local_load %a" + std::to_string(i) + " : !ttg.memdesc<" +
           live_shape(i) + ", #shared, #smem, mutable> -> tensor<" + live_shape(i) + ", #blocked>\n";
  for (int i = 0; shape == "reuse" && i < n; ++i) {
    const std::string a = "%a" + std::to_string(i);
    out += "    " + a + " = ttg.local_alloc {buffer.copy = 1 : i32, buffer.id = 0 : i32} : () -> " + tile + "\n";
    out += "    ttg.local_store %cst, " + a + task + " : tensor<64x64xf16, #blocked> -> " + tile + "\n";
    out += "    %x" + std::to_string(i) + " = ttg.local_load " + a + task + " : " + tile +
           " -> tensor<64x64xf16, #blocked>\n";
  }
  out += "    ttg.warp_specialize(%s, %cst)\n"
         "    default {\n      ttg.warp_yield\n    }\n"
         "    partition0(%s0: " + tile + ", %cst0: tensor<64x64xf16, #blocked>) num_warps(4) {\n";
  for (int i = 0; shape == "channel" && i < n; ++i) {
    out += "      ttg.local_store %cst0, %s0 : tensor<64x64xf16, #blocked> -> " + tile + "\n";
    out += "      %x" + std::to_string(i) + " = ttg.local_load %s0 : " + tile + " -> tensor<64x64xf16, #blocked>\n";
  }
  out += "      ttg.warp_return\n    }\n"
         "    partition1(%s1: " + tile + ", %cst1: tensor<64x64xf16, #blocked>) num_warps(4) {\n"
         "      %y = ttg.local_load %s1 : " + tile + " -> tensor<64x64xf16, #blocked>\n"
         "      ttg.warp_return\n"
         "    } : (" + tile + ", tensor<64x64xf16, #blocked>) -> ()\n"
         "    tt.return\n  }\n}\n";
  return out;
}

// CPU time of this thread: on a shared machine wall time mostly measures the other tenants.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shape;
  if (argc > 1 && (std::string(argv[1]) == "reuse" || std::string(argv[1]) == "channel" ||
                   std::string(argv[1]) == "live")) {
    shape = argv[1];
    --argc, ++argv;
  }
  const int target_ops = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  std::string text, what;
  if (shape.empty()) {
    const std::string fixture = vtools::read_input(std::string(VPLAN_FIXTURE_DIR) + "/matmul_ws_sm90.ttgir");
    const std::size_t fixture_ops = build_plan(read_ttgir(fixture, "fixture"), {}).ops.size();
    const int copies = static_cast<int>((target_ops + fixture_ops - 1) / fixture_ops);
    text = generate(fixture, copies);
    what = std::to_string(copies) + " copies of matmul_ws_sm90";
  } else {
    text = generate_shape(shape, target_ops);
    what = "shape " + shape + " N=" + std::to_string(target_ops);
  }
  if (argc > 3) {
    std::ofstream(argv[3], std::ios::binary) << text;
    if (repeats <= 0) return 0;
  }

  std::vector<double> parse_ms, plan_ms, hazard_ms, dot_ms, json_ms, read_ms, total_ms;
  std::size_t ops = 0, buffers = 0, channels = 0, hazards = 0, dot_bytes = 0;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = cpu_ms();
    Module m = read_ttgir(text, "generated.ttgir");
    const double t1 = cpu_ms();
    Plan plan = build_plan(std::move(m), {});
    const double t2 = cpu_ms();
    hazards = find_reuse_hazards(plan).size();  // again, alone: its share of the plan phase
    hazard_ms.push_back(cpu_ms() - t2);
    const double t2b = cpu_ms();
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
    dot_ms.push_back(t3 - t2b);
    json_ms.push_back(t4 - t3);
    total_ms.push_back(t4 - t0 - (t2b - t2));
    ops = plan.ops.size(), buffers = plan.buffers.size(), channels = plan.channels.size();
    dot_bytes = dots.str().size();
  }
  std::printf("generated TTGIR: %zu bytes, %s, %zu ops, %zu buffers, %zu channels, %zu reuse hazards\n",
              text.size(), what.c_str(), ops, buffers, channels, hazards);
  std::printf("median of %d runs (thread CPU ms): parse %.2f  plan %.2f (hazard check %.2f)  3 DOTs %.2f (%zu bytes)"
              "  JSON %.2f  total %.2f"
              "  (JSON read back %.2f)\n",
              repeats, vtools::stats::median(parse_ms), vtools::stats::median(plan_ms),
              vtools::stats::median(hazard_ms), vtools::stats::median(dot_ms),
              dot_bytes, vtools::stats::median(json_ms), vtools::stats::median(total_ms), vtools::stats::median(read_ms));
  std::printf("parse + plan + 3 DOTs: %.2f ms (target <= 100 ms)\n",
              vtools::stats::median(parse_ms) + vtools::stats::median(plan_ms) + vtools::stats::median(dot_ms));
  return 0;
}
