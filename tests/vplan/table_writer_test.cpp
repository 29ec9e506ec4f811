#include "tools/vplan/table_writer.hpp"

#include <doctest/doctest.h>

#include <sstream>

#include "formats/plan/budget_figures.hpp"
#include "tests/vplan/vplan_fixture.hpp"

using namespace vtools::vplan;
using vtools::vplan::testing::fixture_plan;

TEST_CASE("table_writer: TMEM table has the planner's columns; one row per allocation") {
  Plan p = fixture_plan("attn_ws_sm100");
  std::ostringstream md;
  write_tables(p, TableStyle::kMarkdown, md);
  std::string s = md.str();
  CHECK(s.rfind("## kernel attn_fwd (cuda:100, 4 warps, 12 in all, 4 partitions, 400 ops)\n", 0) == 0);
  CHECK(s.find("| Name | Size | Channels | Liveness | OperandD | Column | Row | vplan |") != std::string::npos);
  // No compiler attributes in the cache's IR: Column and Row are vplan's own, marked '*'. Program order: acc first.
  CHECK(s.find("| acc | 128x128 | ch1, ch2, ch3 | [61-386) | 3 | 0* | 0* | 0 |") != std::string::npos);
  CHECK(s.find("| qk | 128x256 | ch10, ch11, ch12 | [114-349) | 0 | 128* | 0* | 128 |") != std::string::npos);
  CHECK(s.find("| acc | 128x64 | ch13 | [115-349) | 0 | 384* | 0* | 384 |") != std::string::npos);
}

TEST_CASE("table_writer: check report says ok or OVER per memory and lists the buffers at the peak") {
  Plan p = fixture_plan("matmul_ws_sm90");
  std::ostringstream ok;
  CHECK(write_check_report(p, ok));
  CHECK(ok.str() == "matmul_ws: SMEM total 131544 B / limit 232448 B ok; TMEM total 0 cols / limit 0 cols ok\n");
  p.summary.smem_limit_bytes = 100000;
  p.summary.triton_shared_bytes = 131544;
  std::ostringstream over;
  CHECK_FALSE(write_check_report(p, over));
  CHECK(over.str().find("SMEM total 131544 B / limit 100000 B OVER (Triton's shared 131544 B)") != std::string::npos);
  CHECK(over.str().find("\n  %46 B13 [") != std::string::npos);
}

TEST_CASE("table_writer: the budget table is the budget figures, by the names the check line and vrender use") {
  Plan p = fixture_plan("attn_nows_sm90");  // scratch of unknown size: the total is a range
  std::ostringstream text, check;
  write_tables(p, TableStyle::kText, text);
  write_check_report(p, check);
  const std::string t = text.str();
  for (const BudgetFigure& f : budget_figures(p.summary)) {
    CAPTURE(f.name);
    CHECK(t.find(f.name) != std::string::npos);
    CHECK(t.find(f.value) != std::string::npos);
  }
  const auto row = t.find("\nSMEM total ");
  REQUIRE(row != std::string::npos);
  CHECK(t.substr(row, t.find('\n', row + 1) - row).find(" 65592-81976 B") != std::string::npos);
  CHECK(check.str().rfind("attn_fwd: SMEM total 65592-81976 B / limit 232448 B ok;", 0) == 0);
}
