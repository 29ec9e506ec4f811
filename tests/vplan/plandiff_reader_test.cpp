// formats/plandiff: the vtools.plandiff reader against its writer (a document read back writes the same bytes),
// sections a newer vplan adds kept, and each kind of fault refused with its path, in FieldReader's words.
#include "formats/plandiff/plandiff_reader.hpp"

#include <string>

#include "doctest/doctest.h"
#include "formats/plandiff/plandiff_writer.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"

namespace vtools::vplan {
namespace {

// `vplan diff tests/data/ttgir/matmul_ws_sm90.ttgir tests/data/ttgir/attn_nows_sm90.ttgir --format json`.
const std::string kFixture = "vrender/matmul_vs_attn.plandiff.json";

OrderedJson fixture() { return parse_json(read_input(std::string(VTOOLS_TEST_DATA) + "/" + kFixture), kFixture); }

OrderedJson body(OrderedJson doc) {
  doc.erase("created");
  doc.erase("tool");
  return doc;
}

std::string error_of(const OrderedJson& doc) {
  try {
    (void)plan_diff_from_document(doc, "d.json");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

TEST_CASE("plandiff_reader: a document read back writes the same document") {
  const std::string text = read_input(std::string(VTOOLS_TEST_DATA) + "/" + kFixture);
  const PlanDiff d = read_plan_diff(text, kFixture);
  CHECK(d.a_kernel == "matmul_ws");
  CHECK(d.b_source == "tests/data/ttgir/attn_nows_sm90.ttgir");
  REQUIRE(d.changes.size() == 41);
  CHECK(d.changes[0].subject == "warps in all");
  CHECK(!d.identical());
  CHECK(dump_json(body(plan_diff_document(d))) == dump_json(body(parse_json(text, kFixture))));
  PlanDiff same;
  same.a_kernel = same.b_kernel = "k";
  const PlanDiff back = plan_diff_from_document(plan_diff_document(same), "d.json");
  CHECK(back.identical());
  CHECK(back.b_kernel == "k");
}

TEST_CASE("plandiff_reader: a section this build does not know is kept; an unknown change is refused") {
  OrderedJson doc = fixture();
  doc["changes"][0]["section"] = "future";
  CHECK(plan_diff_from_document(doc, "d.json").changes[0].section == "future");
  doc["changes"][0]["change"] = "grown";
  CHECK(error_of(doc) == "d.json: changes[0].change: expected \"added\", \"removed\", \"resized\", \"moved\" or "
                         "\"changed\", got \"grown\"");
}

TEST_CASE("plandiff_reader: a missing or mistyped field exits 65 naming its path") {
  OrderedJson doc = fixture();
  doc.erase("a");
  CHECK(error_of(doc) == "d.json: a: missing, expected an object");
  doc = fixture();
  doc["b"]["source"] = 3;
  CHECK(error_of(doc) == "d.json: b.source: expected a string, got 3");
  doc = fixture();
  doc["identical"] = "no";
  CHECK(error_of(doc) == "d.json: identical: expected true or false, got \"no\"");
  doc = fixture();
  doc.erase("identical");
  CHECK(error_of(doc) == "d.json: identical: missing, expected true or false");
  doc = fixture();
  doc["changes"] = nullptr;
  CHECK(error_of(doc) == "d.json: changes: missing, expected an array");
  doc = fixture();
  doc["changes"][40] = "x";
  CHECK(error_of(doc) == "d.json: changes[40]: expected an object, got \"x\"");
  doc = fixture();
  doc["changes"][2].erase("after");
  CHECK(error_of(doc) == "d.json: changes[2].after: missing, expected a string");
  doc = fixture();
  doc["changes"][1].erase("change");
  CHECK(error_of(doc) == "d.json: changes[1].change: missing, expected a string");
}

}  // namespace
}  // namespace vtools::vplan
