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

TEST_CASE("plan_json: TMEM lane offsets, vplan's and the compiler's, survive writing and reading back") {
  Plan p = fixture_plan("attn_ws_sm100");
  int tmem = 0;
  for (Buffer& b : p.buffers)
    if (b.space == MemorySpace::kTmem) b.row_offset = 16, b.compiler_row_offset = tmem++ ? 16 : 0;
  REQUIRE(tmem == 3);
  p.summary.compiler_tmem_cols = 512;
  const std::string text = dump_json(plan_document(p, "ttgir"));
  Plan q = read_plan_json(text, "p.json");
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    CAPTURE(i);
    CHECK(q.buffers[i].row_offset == p.buffers[i].row_offset);
    CHECK(q.buffers[i].compiler_row_offset == p.buffers[i].compiler_row_offset);
  }
  CHECK(q.summary.compiler_tmem_cols == 512);
  // Absent (SMEM buffers, IR without the attribute): vplan's 0, the compiler's none.
  CHECK(text.find("\"compiler_row_offset\": null") == std::string::npos);
  Plan r = read_plan_json(dump_json(plan_document(fixture_plan("attn_ws_sm100"), "ttgir")), "p.json");
  for (const Buffer& b : r.buffers) CHECK(b.compiler_row_offset == -1);
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
        "p.json: buffers[0].liveness: expected [start, end] with start <= end, got [1]");
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
        "p.json: buffers[1].bytes: expected an integer from 0 to 9223372036854775807, got \"8\"");
  // What check would pass on figures that are not this plan's: a lifetime that ends before it starts, a buffer
  // larger than the plan's whole total (helper-37's edited document: 300000 bytes in a 131544-byte plan, "fits").
  CHECK(error_of(head + R"("kernel": {}, "buffers": [{"id": 0, "name": "a", "liveness": [200, 100]}], "summary": {}})") ==
        "p.json: buffers[0].liveness: expected [start, end] with start <= end, got [200,100]");
  CHECK(error_of(head + R"("kernel": {}, )" + two + R"("bytes": 300000}], "summary": {"smem_total_bytes": 131544}})") ==
        "p.json: summary.smem_total_bytes: 131544 is less than buffers[1]'s 300000 bytes");
  CHECK(error_of(head + R"("kernel": {}, "ops": [{"id": 0, "name": "x", "loc": "k.py:3"}], "buffers": [], "summary": {}})") ==
        "p.json: ops[0].loc: expected an object, got \"k.py:3\"");
  CHECK(error_of(head + R"("kernel": {}, "buffers": [], "channels": {}, "summary": {}})") ==
        "p.json: channels: expected an array, got {}");
  CHECK(error_of(head + R"("kernel": {}, "buffers": [], "summary": {"triton_shared_bytes": -1.5}})") ==
        "p.json: summary.triton_shared_bytes: expected an integer from -9223372036854775808 to "
        "9223372036854775807, got -1.5");
}

namespace {

/// What a reader makes of `text`: the plan written again (less `created`), or the error's text.
template <class Read>
std::string outcome(Read read) {
  try {
    std::string doc = dump_json(plan_document(read(), "ttgir"));
    return doc.erase(doc.find("\"created\""), doc.find('\n', doc.find("\"created\"")) - doc.find("\"created\""));
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

TEST_CASE("plan_json: read streamed, a document gives the plan or the first fault that the whole tree gives") {
  const std::string head = R"({"format": "vtools.plan", "version": 1, )";
  const std::string buffer = R"({"id": 0, "name": "a", "liveness": [0, 1], "channels": [0]})";
  const std::string channel = R"({"id": 0, "buffer": 0, "producer": {"op": 0}, "consumers": [{"op": 1}]})";
  for (const std::string& text : std::vector<std::string>{
           // well formed, in vtools' order and in others (channels before buffers, version after the arrays)
           dump_json(plan_document(fixture_plan("matmul_ws_sm90"), "ttgir")),
           head + R"("kernel": {}, "ops": [{"id": 0, "name": "x"}], "buffers": [)" + buffer + R"(], "channels": [)" +
               channel + R"(], "summary": {}})",
           R"({"format": "vtools.plan", "channels": [)" + channel + R"(], "summary": {"smem_live_at_peak": [0]}, )"
               R"("buffers": [)" + buffer + R"(], "kernel": {"name": "k"}, "version": 1})",
           // faults in several parts: the order of the reader, not of the document, decides which is named
           head + R"("ops": [{"id": 5, "name": "x"}], "buffers": [], "summary": {}})",                   // kernel first
           head + R"("buffers": [{"id": 1}], "ops": [{"id": 0}], "kernel": {}, "summary": {}})",         // ops first
           head + R"("kernel": {}, "channels": [{"id": 0, "buffer": 3}], "buffers": [{"id": 1}], "summary": {}})",
           head + R"("kernel": {}, "buffers": [)" + buffer + R"(], "channels": [], "summary": {}})",     // channels[0]
           head + R"("kernel": {}, "ops": 5, "buffers": [], "summary": {}})",
           head + R"("kernel": {}, "ops": [7], "buffers": [], "summary": {}})",
           head + R"("kernel": [1, 2], "buffers": [], "summary": {}})",   // an array where an object belongs, quoted
           head + R"("kernel": {}, "buffers": [], "summary": ["x"]})",
           head + R"("kernel": {}, "buffers": [], "summary": {}, "partitions": [{"id": "p"}]})",
           // a key given twice: the last one counts
           head + R"("kernel": {}, "ops": [{"id": 9}], "buffers": [], "summary": {}, "ops": []})",
           head + R"("kernel": {}, "ops": [{"id": 9}], "buffers": [], "summary": {}, "ops": null})",
           head + R"("kernel": {}, "ops": [], "buffers": [], "summary": {}, "ops": [{"id": 0, "name": "y"}]})",
           head + R"("kernel": [1], "buffers": [], "summary": {}, "kernel": {"name": "k"}})",
           // the envelope, then JSON syntax anywhere, come before every field
           R"({"format": "vtools.trace", "version": 2, "ops": [{"id": 3}], "kernel": {}, "buffers": [], "summary": {}})",
           R"({"format": "vtools.trace", "version": 2, "ops": [{"id": 3}], "kernel": )",
           head + R"("kernel": {}, "ops": [{"id": 3}], "buffers": [], "summary": {}, "x": 1e999})",
           head + R"("kernel": {}, "ops": [{"id": 3}], "buffers": [], "summary": {}, "version": 7})",
           R"([1, {"a": )", R"([1, 2])", ""}) {
    CAPTURE(text);
    const std::string streamed = outcome([&] { return read_plan_json(text, "p.json"); });
    const std::string tree = outcome([&] { return plan_from_document(parse_document(text, "p.json", {kPlanFormat}), "p.json"); });
    CHECK(streamed == tree);
  }
}
