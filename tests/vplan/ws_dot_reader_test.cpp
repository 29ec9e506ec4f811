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
  // Every data buffer of the plan (barriers are not drawn) comes back with its liveness and size.
  int data_buffers = 0;
  for (const Buffer& b : p.buffers) {
    if (b.barrier) continue;
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
}
