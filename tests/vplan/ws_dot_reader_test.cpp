#include "tools/vplan/ws_dot_reader.hpp"

#include <doctest/doctest.h>

#include <sstream>

#include "libcommon/error.hpp"
#include "tests/vplan/vplan_fixture.hpp"
#include "tools/vplan/dot_writer.hpp"

using namespace vtools;
using namespace vtools::vplan;
using vtools::vplan::testing::fixture_plan;

namespace {
std::string dot_of(const Plan& p, GraphKind k, bool markers) {
  std::ostringstream s;
  write_dot(p, k, markers, s);
  return s.str();
}
}  // namespace

TEST_CASE("ws_dot_reader: the three graphs of a plan read back to the same buffers and channels") {
  Plan p = fixture_plan("attn_ws_sm100");
  Plan q = read_ws_dot_texts({{dot_of(p, GraphKind::kSmem, false), "smem.dot"},
                              {dot_of(p, GraphKind::kCombined, false), "combined.dot"},
                              {dot_of(p, GraphKind::kTmem, false), "tmem.dot"}});
  // Every data buffer of the plan (barriers and scratch are not drawn) comes back with its liveness and size.
  int data_buffers = 0;
  for (const Buffer& b : p.buffers) {
    if (b.barrier || b.is_scratch()) continue;
    ++data_buffers;
    bool found = false;
    for (const Buffer& r : q.buffers)
      if (r.name == b.name && r.space == b.space && r.start == b.start && r.end == b.end) {
        found = true;
        if (b.space == MemorySpace::kSmem) CHECK(r.bytes == b.bytes);
        else CHECK(r.cols == b.cols);
        CHECK(r.channels.size() == b.channels.size());
      }
    CHECK_MESSAGE(found, b.name);
  }
  CHECK(static_cast<int>(q.buffers.size()) == data_buffers);
  REQUIRE(q.channels.size() == p.channels.size());
  for (std::size_t i = 0; i < p.channels.size(); ++i) {
    CHECK(q.channels[i].producer.op == p.channels[i].producer.op);
    CHECK(q.channels[i].producer.partition == p.channels[i].producer.partition);
    CHECK(q.channels[i].consumers.size() == p.channels[i].consumers.size());
    CHECK(q.channels[i].operand_d == p.channels[i].operand_d);
    CHECK(q.buffers[q.channels[i].buffer].name == p.buffers[p.channels[i].buffer].name);
  }
  CHECK(q.ops[187].name == "tc_gen5_mma");
  CHECK(q.ops[187].partition == 1);
  CHECK(q.partitions.size() == 4);
  CHECK(q.summary.tmem_peak_cols == 448);
}

TEST_CASE("ws_dot_reader: marker lines and surrounding log text are accepted") {
  Plan p = fixture_plan("matmul_ws_sm90");
  std::string log = "I1122 planner starting\n" + dot_of(p, GraphKind::kSmem, true) + "other output\n";
  Plan q = read_ws_dot(log, "debug.log");
  CHECK(q.buffers.size() == 5);
  CHECK(q.channels.size() == 3);
}

TEST_CASE("ws_dot_reader: malformed DOT and foreign graphs are located errors") {
  auto error_of = [](std::string_view text) {
    try {
      read_ws_dot(text, "g.dot");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kDataError);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("digraph SmemBufferLiveness {\n  a [label=\"x\"];\n") ==
        "g.dot:3:1: expected '}' to close the '{' at 1:28, got end of file");
  CHECK(error_of("digraph G { a -> b }") ==
        "g.dot: expected digraph SmemBufferLiveness, TmemBufferLiveness or CombinedGraph, got 'G'");
  CHECK(error_of("graph\n  x") == "g.dot:2:4: expected '{' to open the graph body, got end of file");
  CHECK(error_of("digraph X {\n  a [label=\"x]\n}") == "g.dot:2:12: expected '\"' to end the string, got end of file");
  // No graph at all: at the end of the input, where one was still expected (it had no position).
  CHECK(error_of("") == "g.dot:1:1: expected a planner digraph, got none");
  CHECK(error_of("// a comment\n  ") == "g.dot:2:3: expected a planner digraph, got none");
}

TEST_CASE("ws_dot_reader: a label in a form the planner does not write is refused, naming it and its place") {
  auto error_of = [](std::string_view text) {
    try {
      read_ws_dot(text, "g.dot");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kDataError);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("digraph SmemBufferLiveness {\n  subgraph cluster_smem_0 {\n    label=\"q B0 [37-349) 32 KiB\";\n"
                 "  }\n}\n") ==
        "g.dot:3:5: expected an SMEM buffer label '<name> B<id> [<start>-<end>) size=<bytes>', got 'q B0 [37-349) 32 "
        "KiB'");
  CHECK(error_of("digraph TmemBufferLiveness {\n  subgraph cluster_tmem_0 { graph [label=\"acc 128 cols\"]; }\n}\n") ==
        "g.dot:2:29: expected a TMEM buffer label '<name> <rows>x<cols> [<start>-<end>)', ' [<k> OperandD]' optional, "
        "got 'acc 128 cols'");
  CHECK(error_of("digraph SmemBufferLiveness {\n  subgraph cluster_smem_0 {\n    label=\"q B0 [1-3) size=64\";\n"
                 "    n [label=\"channel 0\"];\n  }\n}\n") ==
        "g.dot:4:5: expected a channel label 'ch<id> (<src> to <dst>)', ' [D]' after the id optional, or 'no "
        "channels', got 'channel 0'");
  CHECK(error_of("digraph CombinedGraph {\n  op_op_1 [label=\"[1] load(%a)\\nL3\"];\n  op_op_2 [label=\"x\"];\n}\n") ==
        "g.dot:3:3: expected an op label '[<id>] <result> = <op>(<operands>)\\n<shape>, L<line>', got 'x'");
  CHECK(error_of("digraph CombinedGraph {\n  op_op_1 -> op_op_2 [label=\"ch0 buffer q\\n(TMEM)\"];\n}\n") ==
        "g.dot:2:3: expected a channel edge label 'ch<id> B<buffer>\\n\"<name>\"', '\\n(TMEM)' and ' [D]' optional, "
        "got 'ch0 buffer q\\n(TMEM)'");
  const std::string long_label(5000, 'x');
  CHECK(error_of("digraph CombinedGraph {\n  op_op_1 [label=\"" + long_label + "\"];\n}\n") ==
        "g.dot:2:3: expected an op label '[<id>] <result> = <op>(<operands>)\\n<shape>, L<line>', got '" +
            long_label.substr(0, 77) + "...'");
  // Cut at 80 columns between characters (quoted_value): a cut at 80 bytes split a character.
  std::string wide, wide_cut;
  for (int i = 0; i < 50; ++i) wide += "名";
  for (int i = 0; i < 38; ++i) wide_cut += "名";
  CHECK(error_of("digraph CombinedGraph {\n  op_op_1 [label=\"" + wide + "\"];\n}\n") ==
        "g.dot:2:3: expected an op label '[<id>] <result> = <op>(<operands>)\\n<shape>, L<line>', got '" + wide_cut +
            "...'");
  // The DOT parser quotes a bad token the same way.
  CHECK(error_of("digraph CombinedGraph \"" + wide + "\" x") ==
        "g.dot:1:23: expected '{' to open the graph body, got '" + wide_cut.substr(0, 18 * 3) + "...'");
}

TEST_CASE("ws_dot_reader: the labels vplan itself writes for what it does not know are read") {
  // "[7]": an op of an imported plan the dump did not describe; "[8] ()\nL?": one with no name; "no channels".
  Plan q = read_ws_dot("digraph CombinedGraph {\n  op_op_7 [label=\"[7]\"];\n  op_op_8 [label=\"[8] ()\\nL?\"];\n"
                       "  op_op_7 -> op_op_8 [style=invis];\n}\n"
                       "digraph SmemBufferLiveness {\n  subgraph cluster_smem_0 {\n    label=\"q B0 [1-3) size=64\";\n"
                       "    smem_0_info [label=\"no channels\"];\n  }\n}\n",
                       "g.dot");
  REQUIRE(q.ops.size() == 9);
  CHECK(q.ops[7].name.empty());
  CHECK(q.ops[8].loc.line == 0);
  REQUIRE(q.buffers.size() == 1);
  CHECK(q.buffers[0].bytes == 64);
  CHECK(q.channels.empty());
}
