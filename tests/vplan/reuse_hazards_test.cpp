// The reuse-hazard check on hand-made planner MLIR (tests/data/vplan/planner/reuse_hazard.mlir): an ordered group is
// not reported, an unordered one is, with both buffers, their ops and partitions; real kernels report none.
#include "tools/vplan/reuse_hazards.hpp"

#include <sstream>
#include <string>

#include "doctest/doctest.h"
#include "libcommon/input_file.hpp"
#include "tools/vplan/ir_dump_log.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "tools/vplan/table_writer.hpp"
#include "tools/vplan/ttgir_reader.hpp"

namespace vtools::vplan {
namespace {

const std::string kHazard = "vplan/planner/reuse_hazard.mlir";

std::string text_of(const std::string& rel) { return read_input(std::string(VTOOLS_TEST_DATA) + "/" + rel); }

Plan plan_of_text(const std::string& text, const std::string& name) {
  std::string ir = looks_like_ir_dump_log(text) ? last_ttgir_dump(text, name) : text;
  return build_plan(read_ttgir(ir, name), {});
}

std::string without(std::string s, const std::string& line_part) {
  const std::size_t p = s.find(line_part);
  REQUIRE(p != std::string::npos);
  const std::size_t start = s.rfind('\n', p) + 1, end = s.find('\n', p) + 1;
  return s.erase(start, end - start);
}

}  // namespace

TEST_CASE("reuse_hazards: the unordered group is found, the ordered one is not") {
  Plan p = plan_of_text(text_of(kHazard), kHazard);
  REQUIRE(p.reuse_hazards.size() == 1);
  const ReuseHazard& h = p.reuse_hazards[0];
  CHECK(h.group == "buffer.id 1");
  CHECK(p.buffers[h.first].name == "c");
  CHECK(p.buffers[h.second].name == "d");
  CHECK(p.ops[h.first_op].name == "ttg.local_load");
  CHECK(p.ops[h.second_op].name == "ttg.local_store");
  CHECK(h.first_partition == 1);
  CHECK(h.second_partition == 2);
  std::ostringstream report;
  CHECK_FALSE(write_check_report(p, report));
  CHECK(report.str().find("hazard: reuse hazard in buffer.id 1: c (B2, last used by ttg.local_load op 11 in P1) and d "
                          "(B3, first used by ttg.local_store op 14 in P2) are not ordered") != std::string::npos);
}

TEST_CASE("reuse_hazards: without the wait (or the arrive) the ordered group is a hazard too") {
  const std::string text = text_of(kHazard);
  for (const char* sync : {"ttng.wait_barrier %bar1", "ttng.arrive_barrier %bar0"}) {
    CAPTURE(sync);
    Plan p = plan_of_text(without(text, sync), kHazard);
    CHECK(p.reuse_hazards.size() == 2);
  }
}

TEST_CASE("reuse_hazards: an arrive before the last access orders nothing") {
  // partition0 arrives first and reads a afterwards: the wait in partition1 no longer follows a's last access.
  std::string text = text_of(kHazard);
  const std::string read = "      %x = ttg.local_load %a0 : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>\n";
  const std::size_t p = text.find(read);
  REQUIRE(p != std::string::npos);
  text.erase(p, read.size());
  const std::string marker = "      %y = ttg.local_load %c0";
  text.insert(text.find(marker), read);
  Plan plan = plan_of_text(text, kHazard);
  CHECK(plan.reuse_hazards.size() == 2);
}

TEST_CASE("reuse_hazards: none on the real kernels (program order and the pipelines' barriers)") {
  for (const char* rel : {"ttgir/matmul_ws_sm90.ttgir", "ttgir/attn_ws_sm100.ttgir", "ttgir/attn_nows_sm90.ttgir",
                          "vplan/compiler/matmul_tma_ws_sm90.ttgir", "vplan/compiler/matmul_tma_ws_sm100.ttgir",
                          "vplan/compiler/matmul_pipelined_s4_sm90.ttgir", "vplan/compiler/attn_ws_d128_sm100.ttgir"}) {
    CAPTURE(rel);
    CHECK(plan_of_text(text_of(rel), rel).reuse_hazards.empty());
  }
}

}  // namespace vtools::vplan
