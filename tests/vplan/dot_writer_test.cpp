#include "tools/vplan/dot_writer.hpp"

#include <doctest/doctest.h>

#include <sstream>

#include "libcommon/error.hpp"
#include "tests/vplan/vplan_fixture.hpp"

using namespace vtools::vplan;
using vtools::vplan::testing::fixture_plan;

namespace {
std::string dot_of(const Plan& p, GraphKind k, bool markers = false) {
  std::ostringstream s;
  write_dot(p, k, markers, s);
  return s.str();
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("dot_writer: SMEM liveness clusters carry the planner's label and channel nodes") {
  Plan p = fixture_plan("matmul_ws_sm90");
  std::string d = dot_of(p, GraphKind::kSmem);
  CHECK(d.rfind("digraph SmemBufferLiveness {\n  rankdir=LR;\n  node [shape=record, fontsize=9];\n", 0) == 0);
  const Buffer& b = p.buffers[13];  // %46, the B tiles
  REQUIRE(b.value == "%46");
  CHECK(has(d, "label=\"%46 B13 [" + std::to_string(b.start) + "-" + std::to_string(b.end) + ") size=49152\""));
  const Channel& c = p.channels[b.channels[0]];
  CHECK(has(d, "ch" + std::to_string(c.id) + " (" + std::to_string(c.producer.op) + " to " +
                   std::to_string(c.consumers[1].op) + ")"));
  CHECK(has(d, "label=\"no channels\""));                 // the epilogue tiles
  CHECK_FALSE(has(d, "size=24\""));                      // barrier arrays are left out
  CHECK(has(d, "label=\"SMEM Buffer Summary\""));
  CHECK(has(d, "fillcolor=\"lightblue\""));
}

TEST_CASE("dot_writer: TMEM clusters show rows x cols, OperandD counts and [D] channels") {
  Plan p = fixture_plan("attn_ws_sm100");
  std::string d = dot_of(p, GraphKind::kTmem, true);
  CHECK(d.rfind("=== TMEM Buffer Liveness Graph ===\ndigraph TmemBufferLiveness {", 0) == 0);
  CHECK(has(d, "=== End TMEM Buffer Liveness Graph ===\n"));
  // Triton's intervals: from the tmem_alloc (not the first user) to the warp_specialize taking it.
  CHECK(has(d, "acc 128x128 [61-386) [3 OperandD]"));
  CHECK(has(d, "qk 128x256 [114-349)\""));
  CHECK(has(d, "acc 128x64 [115-349)\""));
  CHECK(has(d, "ch1 [D] (63 to 232)"));
  CHECK(has(d, "<TD><B>OperandD</B></TD>"));
}

TEST_CASE("dot_writer: combined graph has partition clusters, key-op labels and coloured channel edges") {
  Plan p = fixture_plan("attn_ws_sm100");
  std::string d = dot_of(p, GraphKind::kCombined, true);
  CHECK(has(d, "=== Combined Key Ops + Channel Graph (DOT format) ===\n// Render with: dot -Tpng <file>.dot -o graph.png\n"));
  CHECK(has(d, "subgraph cluster_partition_1 {\n    label=\"Partition 1\";\n    style=filled;\n    color=blue;"));
  // ch10: S = QK^T, tc_gen5_mma (op 187, partition 1) -> tmem_load (op 130, partition 0), through TMEM buffer B21.
  CHECK(has(d, "op_op_187 -> op_op_130 [label=\"ch10 B21\\n\\\"qk\\\"\\n(TMEM)\", color=red, style=solid];"));
  CHECK(has(d, "[label=\"[130] %qk_79 = tmem_load(%qk_77)\\n128x128xf32, L35\", color=red"));
  CHECK(has(d, "style=bold"));  // OperandD edges
  CHECK(has(d, "=== End Combined Graph ===\n"));
}

TEST_CASE("dot_writer: empty plans still make valid graphs; unknown graph names get a suggestion") {
  Plan empty;
  CHECK(has(dot_of(empty, GraphKind::kSmem), "empty [label=\"No SMEM allocations\"];"));
  CHECK(has(dot_of(empty, GraphKind::kTmem), "No TMEM allocations"));
  CHECK(dot_of(empty, GraphKind::kCombined) ==
        "digraph CombinedGraph {\n  rankdir=TB;\n  compound=true;\n  node [shape=box, style=filled, fontsize=9];\n"
        "  edge [fontsize=7];\n}\n");
  try {
    graph_kind_from_name("tmen");
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(std::string(e.what()) == "unknown graph 'tmen' (smem, tmem, combined); did you mean 'tmem'?");
    CHECK(e.code() == vtools::ExitCode::kUsage);
  }
}
