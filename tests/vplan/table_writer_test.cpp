#include "tools/vplan/table_writer.hpp"

#include <doctest/doctest.h>

#include <sstream>

#include "tests/vplan/vplan_fixture.hpp"

using namespace vtools::vplan;
using vtools::vplan::testing::fixture_plan;

TEST_CASE("table_writer: TMEM table has the planner's columns; one row per allocation") {
  Plan p = fixture_plan("attn_ws_sm100");
  std::ostringstream md;
  write_tables(p, TableStyle::kMarkdown, md);
  std::string s = md.str();
  CHECK(s.rfind("## kernel attn_fwd (cuda:100, 4 warps, 12 in all, 4 partitions, 400 ops)\n", 0) == 0);
  CHECK(s.find("| Name | Size | Channels | Liveness | OperandD | Column |") != std::string::npos);
  CHECK(s.find("| acc | 128x128 | ch1, ch2, ch3 | [63-386) | 3 | 256 |") != std::string::npos);
}

TEST_CASE("table_writer: check report says ok or OVER per memory and lists the buffers at the peak") {
  Plan p = fixture_plan("matmul_ws_sm90");
  std::ostringstream ok;
  CHECK(write_check_report(p, ok));
  CHECK(ok.str() == "matmul_ws: SMEM 131496 / 232448 bytes ok; TMEM 0 / 0 columns ok\n");
  p.summary.smem_limit_bytes = 100000;
  std::ostringstream over;
  CHECK_FALSE(write_check_report(p, over));
  CHECK(over.str().find("SMEM 131496 / 100000 bytes OVER") != std::string::npos);
  CHECK(over.str().find("\n  %46 B13 [") != std::string::npos);
}
