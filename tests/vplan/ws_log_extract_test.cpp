#include "tools/vplan/ws_log_extract.hpp"

#include <doctest/doctest.h>

#include "libcommon/error.hpp"
#include "tools/vplan/ir_dump_log.hpp"

using namespace vtools;
using namespace vtools::vplan;

TEST_CASE("ws_log_extract: graphs come out in log order with one counter over all kinds") {
  std::string log =
      "noise\n=== Combined Key Ops + Channel Graph (DOT format) ===\n// Render with: dot -Tpng <file>.dot -o graph.png\n"
      "digraph CombinedGraph {\n}\n=== End Combined Graph ===\nmore noise\n"
      "[planner] === TMEM Buffer Liveness Graph ===\ndigraph TmemBufferLiveness {\n  a;\n}\n"
      "=== End TMEM Buffer Liveness Graph ===\n";
  auto g = extract_ws_graphs(log, "l.log");
  REQUIRE(g.size() == 2);
  CHECK(g[0].kind == "combined_graph");
  CHECK(g[0].index == 0);
  CHECK(g[0].line == 2);
  CHECK(g[0].dot == "digraph CombinedGraph {\n}\n");
  CHECK(g[1].kind == "tmem_liveness");
  CHECK(g[1].index == 1);
  CHECK(g[1].dot_line == 9);
  CHECK(g[1].dot == "digraph TmemBufferLiveness {\n  a;\n}\n");
  CHECK(extract_ws_graphs("no markers\n", "l.log").empty());
}

TEST_CASE("ws_log_extract: an opening marker without its end is an error at the marker") {
  try {
    extract_ws_graphs("x\n=== SMEM Buffer Liveness Graph ===\ndigraph SmemBufferLiveness {\n", "l.log");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "l.log:2:1: expected '=== End SMEM Buffer Liveness Graph ===' to close the graph, got end of file");
  }
}

TEST_CASE("ir_dump_log: the last TTGIR-level dump is chosen, keeping the log's line numbers") {
  std::string log =
      "// -----// IR Dump After A (a) //----- //\nmodule attributes {\"ttg.num-warps\" = 4 : i32} {\n}\n"
      "// -----// IR Dump After B (b) //----- //\nmodule attributes {\"ttg.num-warps\" = 8 : i32} {\n}\n"
      "// -----// IR Dump After ConvertTritonGPUToLLVM (c) //----- //\nllvm.func @k() {\"ttg.x\"}\n";
  CHECK(looks_like_ir_dump_log(log));
  std::string dump = last_ttgir_dump(log, "d.log");
  CHECK(dump == "\n\n\n\nmodule attributes {\"ttg.num-warps\" = 8 : i32} {\n}\n");
  try {
    last_ttgir_dump("// -----// IR Dump After X (x) //----- //\nllvm.func @k()\n", "d.log");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "d.log: expected an IR dump at TTGIR level (ttg. ops, no llvm.func), got 1 dumps without one");
  }
}
