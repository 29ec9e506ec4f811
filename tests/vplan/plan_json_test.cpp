#include "formats/plan/plan_json.hpp"

#include <doctest/doctest.h>

#include "libcommon/error.hpp"
#include "tests/vplan/vplan_fixture.hpp"

using namespace vtools;
using namespace vtools::vplan;
using vtools::vplan::testing::fixture_plan;

TEST_CASE("plan_json: a plan survives writing and reading back") {
  Plan p = fixture_plan("attn_ws_sm100");
  std::string text = dump_json(plan_document(p, "ttgir"));
  Plan q = read_plan_json(text, "p.json");
  CHECK(q.kernel.name == p.kernel.name);
  CHECK(q.kernel.total_warps == 12);
  REQUIRE(q.ops.size() == p.ops.size());
  CHECK(q.ops[187].name == "ttng.tc_gen5_mma");
  CHECK(q.ops[187].key == KeyKind::kMma);
  CHECK(q.ops[187].loc.line == p.ops[187].loc.line);
  REQUIRE(q.buffers.size() == p.buffers.size());
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    CHECK(q.buffers[i].name == p.buffers[i].name);
    CHECK(q.buffers[i].start == p.buffers[i].start);
    CHECK(q.buffers[i].end == p.buffers[i].end);
    CHECK(q.buffers[i].offset == p.buffers[i].offset);
    CHECK(q.buffers[i].cols == p.buffers[i].cols);
    CHECK(q.buffers[i].channels == p.buffers[i].channels);
  }
  REQUIRE(q.channels.size() == p.channels.size());
  CHECK(q.channels[1].operand_d);
  CHECK(q.channels[1].consumers.size() == p.channels[1].consumers.size());
  CHECK(q.summary.tmem_peak_cols == 448);
  CHECK(q.summary.smem_live_at_peak == p.summary.smem_live_at_peak);
  CHECK(dump_json(plan_document(q, "ttgir")).size() == text.size());  // nothing lost (created may differ only)
}

TEST_CASE("plan_json: documents without required fields are refused by name") {
  auto error_of = [](const std::string& text) {
    try {
      read_plan_json(text, "p.json");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kDataError);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = R"({"format": "vtools.plan", "version": 1, "tool": {"name": "vplan", "version": "0"}, )"
                           R"("created": "2026-11-22T15:00:00Z", )";
  CHECK(error_of(head + R"("buffers": [], "summary": {}})") == "p.json: kernel: missing, expected an object");
  CHECK(error_of(head + R"("kernel": {}, "buffers": [{"id": 0, "name": "a", "liveness": [1]}], "summary": {}})") ==
        "p.json: buffers[0].liveness: expected [start, end], got [1]");
  CHECK(error_of(head + R"("kernel": {}, "buffers": [{"id": 3, "name": "a", "liveness": [0, 1]}], "summary": {}})") ==
        "p.json: buffers[0].id: expected 0 (ids count 0, 1, 2, ...), got 3");
  // Integers must be JSON integers within range: a float id or liveness end would be cast (undefined past int).
  CHECK(error_of(head + R"("kernel": {}, "buffers": [{"id": 1e80, "name": "a", "liveness": [0, 1]}], )"
                        R"("summary": {}})") ==
        "p.json: buffers[0].id: expected an integer from -2147483648 to 2147483647, got 1e+80");
  CHECK(error_of(head + R"("kernel": {}, "buffers": [{"id": 0, "name": "a", "liveness": [0, 3e9]}], "summary": {}})") ==
        "p.json: buffers[0].liveness[1]: expected an integer from -2147483648 to 2147483647, got 3000000000.0");
  // Optional fields too (the fuzzer's find: a float in a shape was cast to int64); wrong types are errors, not
  // silently replaced by the default.
  CHECK(error_of(head + R"("kernel": {}, "buffers": [{"id": 0, "name": "a", "liveness": [0, 1], "shape": [3.3e90]}], )"
                        R"("summary": {}})") == "p.json: buffers[0].shape[0]: expected an integer from -9223372036854775808 to "
                                              "9223372036854775807, got 3.3e+90");
  CHECK(error_of(head + R"("kernel": {"num_warps": "4"}, "buffers": [], "summary": {}})") ==
        "p.json: kernel.num_warps: expected an integer from -2147483648 to 2147483647, got \"4\"");
  // Fields are named by their path, the element's index included (issue 39: vrender's page said where, vplan did not).
  const std::string two = R"("buffers": [{"id": 0, "name": "a", "liveness": [0, 1]}, {"id": 1, "name": "b", "liveness": [0, 1], )";
  CHECK(error_of(head + R"("kernel": {}, )" + two + R"("bytes": "8"}], "summary": {}})") ==
        "p.json: buffers[1].bytes: expected an integer from -9223372036854775808 to 9223372036854775807, got "
        "\"8\"");
  CHECK(error_of(head + R"("kernel": {}, "ops": [{"id": 0, "name": "x", "loc": "k.py:3"}], "buffers": [], "summary": {}})") ==
        "p.json: ops[0].loc: expected an object, got \"k.py:3\"");
  CHECK(error_of(head + R"("kernel": {}, "buffers": [], "channels": {}, "summary": {}})") ==
        "p.json: channels: expected an array, got {}");
  CHECK(error_of(head + R"("kernel": {}, "buffers": [], "summary": {"triton_shared_bytes": -1.5}})") ==
        "p.json: summary.triton_shared_bytes: expected an integer from -9223372036854775808 to "
        "9223372036854775807, got -1.5");
}
