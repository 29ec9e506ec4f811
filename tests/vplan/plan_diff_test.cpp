// vplan diff: a plan against itself is identical; resized, added and removed buffers, partitions, channels and
// totals are reported with both sides; the JSON document and the tables carry the same changes.
#include "tools/vplan/plan_diff.hpp"

#include <sstream>
#include <string>

#include "doctest/doctest.h"
#include "libcommon/input_file.hpp"
#include "tools/vplan/ir_dump_log.hpp"
#include "tools/vplan/plan_builder.hpp"
#include "tools/vplan/plan_diff_writer.hpp"
#include "formats/plandiff/plandiff_writer.hpp"
#include "formats/plan/plan_json.hpp"
#include "tools/vplan/ttgir_reader.hpp"

namespace vtools::vplan {
namespace {

std::string text_of(const std::string& rel) { return read_input(std::string(VTOOLS_TEST_DATA) + "/" + rel); }

Plan plan_of_text(const std::string& text, const std::string& name) {
  std::string ir = looks_like_ir_dump_log(text) ? last_ttgir_dump(text, name) : text;
  return build_plan(read_ttgir(ir, name), {});
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

bool has_change(const PlanDiff& d, const std::string& section, const std::string& change, const std::string& subject) {
  for (const auto& c : d.changes)
    if (c.section == section && c.change == change && c.subject.find(subject) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("plan_diff: a plan against itself (and against its own JSON) is identical") {
  for (const char* rel : {"ttgir/matmul_ws_sm90.ttgir", "ttgir/attn_ws_sm100.ttgir", "ttgir/attn_nows_sm90.ttgir",
                          "vplan/compiler/matmul_tma_ws_sm90.ttgir", "vplan/compiler/row_col_sums_sm90.ttgir"}) {
    CAPTURE(rel);
    Plan a = plan_of_text(text_of(rel), rel);
    Plan b = plan_of_text(text_of(rel), rel);
    PlanDiff d = diff_plans(a, b);
    CHECK(d.identical());
    for (const auto& c : d.changes) CAPTURE(c.subject);
    Plan round = read_plan_json(dump_json(plan_document(a, "ttgir")), "plan.json");
    CHECK(diff_plans(a, round).identical());
  }
}

TEST_CASE("plan_diff: a deeper pipeline resizes its buffers and moves the total") {
  const std::string rel = "ttgir/matmul_ws_sm90.ttgir";
  const std::string text = text_of(rel);
  // Four stages instead of three: the A/B ring buffers (3x...) get a fourth copy.
  const std::string deeper = replace_all(replace_all(text, "3x64x64xf16", "4x64x64xf16"), "3x128x64xf16", "4x128x64xf16");
  PlanDiff d = diff_plans(plan_of_text(text, rel), plan_of_text(deeper, "deeper.ttgir"));
  CHECK_FALSE(d.identical());
  bool resized = false;
  for (const auto& c : d.changes)
    if (c.section == "buffer" && c.change == "resized") {
      resized = true;
      CHECK(c.before.find("3x") != std::string::npos);
      CHECK(c.after.find("4x") != std::string::npos);
    }
  CHECK(resized);
  CHECK(has_change(d, "total", "changed", "SMEM total"));
  CHECK_FALSE(has_change(d, "partition", "added", ""));
}

TEST_CASE("plan_diff: warp specialization on adds partitions, channels and buffers") {
  const std::string a_rel = "vplan/compiler/matmul_tma_sm90.ttgir", b_rel = "vplan/compiler/matmul_tma_ws_sm90.ttgir";
  PlanDiff d = diff_plans(plan_of_text(text_of(a_rel), a_rel), plan_of_text(text_of(b_rel), b_rel));
  CHECK(has_change(d, "partition", "added", "P1 partition0"));
  CHECK(has_change(d, "channel", "added", "->"));
  CHECK(has_change(d, "buffer", "added", "smem"));
  CHECK(has_change(d, "total", "changed", "Triton's shared"));
  CHECK(has_change(d, "kernel", "changed", "warps in all"));
  for (const auto& c : d.changes) {
    CHECK_FALSE(c.subject.empty());
    if (c.change == "added") CHECK(c.before.empty());
    if (c.change == "removed") CHECK(c.after.empty());
    if (c.change == "changed" || c.change == "resized" || c.change == "moved") CHECK(c.before != c.after);
  }
}

TEST_CASE("plan_diff: reuse groups and planner copies") {
  const std::string rel = "vplan/planner/reuse_groups.mlir";
  const std::string text = text_of(rel);
  // b leaves a's group: the group {a, b} is gone, {a} and {b} appear, and b's buffer.id changes.
  const std::string split = replace_all(text, "buffer.copy = 2 : i32, buffer.id = 0 : i32} : () -> !ttg.memdesc<2x128x64xf16, #shared, #smem, mutable> loc(\"b\")",
                                        "buffer.copy = 2 : i32, buffer.id = 7 : i32} : () -> !ttg.memdesc<2x128x64xf16, #shared, #smem, mutable> loc(\"b\")");
  REQUIRE(split != text);
  PlanDiff d = diff_plans(plan_of_text(text, rel), plan_of_text(split, "split.mlir"));
  CHECK(has_change(d, "reuse group", "removed", "smem a + smem b"));
  CHECK(has_change(d, "reuse", "changed", "smem b"));
  std::ostringstream table, md;
  write_plan_diff_table(d, TableStyle::kText, table);
  write_plan_diff_table(d, TableStyle::kMarkdown, md);
  CHECK(table.str().find("buffer.id 0, buffer.copy 2") != std::string::npos);
  CHECK(md.str().find("| reuse group | removed | smem a + smem b |") != std::string::npos);
  OrderedJson doc = plan_diff_document(d);
  CHECK(doc["format"] == "vtools.plandiff");
  CHECK(doc["identical"] == false);
  CHECK(doc["changes"].size() == d.changes.size());
}

}  // namespace vtools::vplan
