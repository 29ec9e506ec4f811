// formats/tracediff: the vtools.tracediff reader against its writer (a document read back writes the same bytes),
// and each kind of fault refused with its path, in FieldReader's words.
#include "formats/tracediff/tracediff_reader.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/tracediff/tracediff_writer.hpp"
#include "libcommon/error.hpp"

using namespace vtools;
using namespace vtools::vtrace;

namespace {

// tests/data/vtrace/tracediff: `vtrace diff graphs.trace.json graphs_slower.trace.json` (of tests/data/vtrace), with
// --fail-on-regression 5 for graphs_regression, and --graph last --fail-on-regression 5 for graph_replays.
std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(VTOOLS_TEST_DATA) + "/vtrace/tracediff/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

OrderedJson fixture(const std::string& name) { return parse_json(fixture_text(name), name); }

/// The document without its envelope's `created` (written anew by each write).
OrderedJson body(OrderedJson doc) {
  doc.erase("created");
  doc.erase("tool");
  return doc;
}

std::string error_of(const OrderedJson& doc) {
  try {
    (void)trace_diff_from_document(doc, "d.json");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

TraceDiff sample() {
  TraceDiff d;
  d.base_source = "a.json";
  d.candidate_source = "b.json";
  d.base = {10, 2, 1000.5, 900, 1, 20};
  d.candidate = {12, 3, 1500, 1400, 0, 0};
  d.threshold_pct = 5;
  KernelDiff k;
  k.name = "gemm";
  k.launch_shape = "grid 4x1x1 block 128x1x1";
  k.base_calls = 4, k.candidate_calls = 5;
  k.base_total_ns = 400, k.candidate_total_ns = 600;
  k.base_median_ns = 100, k.candidate_median_ns = 120;
  k.base_exposed_ns = 300, k.candidate_exposed_ns = 500;
  k.ratio = 1.2, k.interval = {1.1, 1.3}, k.interval_over = "few launches", k.change_pct = 20;
  k.total_change_ns = 200, k.verdict = "slower", k.code = "changed", k.likely_cause = "code", k.regression = true;
  d.kernels.push_back(k);
  k.name = "copy";
  k.launch_shape.clear();
  k.ratio = NAN, k.interval = {NAN, NAN}, k.interval_over = "none", k.change_pct = NAN;
  k.verdict = "ambiguous", k.code = "unknown", k.likely_cause = "", k.regression = false;
  d.kernels.push_back(k);
  d.added.push_back({"setup_v2", "", 1, 10, 10});
  d.removed.push_back({"setup", "grid 1x1x1 block 1x1x1", 2, 30, 15});
  ReplayDiff r;
  r.base_graph = 3, r.candidate_graph = 5, r.base_replays = 12, r.candidate_replays = 11;
  r.base_median_ns = 4020, r.candidate_median_ns = 4420, r.ratio = 1.1, r.interval = {1.05, 1.15};
  r.interval_over = "launches", r.change_pct = 10, r.verdict = "slower", r.regression = true;
  d.replays = r;
  return d;
}

}  // namespace

TEST_CASE("tracediff_reader: a document read back writes the same document") {
  const TraceDiff d = sample();
  const OrderedJson doc = trace_diff_document(d);
  const TraceDiff back = trace_diff_from_document(doc, "d.json");
  CHECK(dump_json(body(trace_diff_document(back))) == dump_json(body(doc)));
  CHECK(back.base_source == "a.json");
  CHECK(std::isnan(back.kernels[1].ratio));
  CHECK(back.kernels[0].interval.high == 1.3);
  REQUIRE(back.replays);
  CHECK(back.replays->base_graph == 3);
  CHECK(back.has_regression());
  CHECK(back.threshold_pct == 5);
  // vtrace diff's own output, as vrender is given it.
  for (const char* name : {"graphs.tracediff.json", "graphs_regression.tracediff.json", "graph_replays.tracediff.json"}) {
    const OrderedJson written = fixture(name);
    CHECK(dump_json(body(trace_diff_document(read_trace_diff(fixture_text(name), name)))) == dump_json(body(written)));
  }
}

TEST_CASE("tracediff_reader: absent threshold and replays read as not asked; regression is recomputed") {
  OrderedJson doc = fixture("graphs.tracediff.json");
  const TraceDiff d = trace_diff_from_document(doc, "d.json");
  CHECK(d.threshold_pct < 0);
  CHECK(!d.replays);
  CHECK(!d.has_regression());
  CHECK(d.kernels.size() == 3);
  CHECK(d.added.at(0).name == "setup_v2(int*)");
  CHECK(d.removed.at(0).calls == 1);
}

TEST_CASE("tracediff_reader: a missing, mistyped or out-of-range field exits 65 naming its path") {
  OrderedJson doc = fixture("graphs.tracediff.json");
  doc["kernels"][0].erase("verdict");
  CHECK(error_of(doc) == "d.json: kernels[0].verdict: missing, expected a string");
  doc = fixture("graphs.tracediff.json");
  doc["kernels"][0]["verdict"] = "slow";
  CHECK(error_of(doc) == "d.json: kernels[0].verdict: expected \"faster\", \"slower\", \"same\" or \"ambiguous\", got "
                         "\"slow\"");
  doc["kernels"][0]["verdict"] = "Slower";
  CHECK(error_of(doc) == "d.json: kernels[0].verdict: expected \"faster\", \"slower\", \"same\" or \"ambiguous\", got "
                         "\"Slower\"; did you mean \"slower\"?");
  doc = fixture("graphs.tracediff.json");
  doc["kernels"][1]["base"]["calls"] = 1.5;
  CHECK(error_of(doc) == "d.json: kernels[1].base.calls: expected an integer from 1 to 18446744073709551615, got 1.5");
  doc = fixture("graphs.tracediff.json");
  doc["kernels"][0]["candidate"]["calls"] = 0;
  CHECK(error_of(doc) == "d.json: kernels[0].candidate.calls: expected an integer from 1 to 18446744073709551615, got 0");
  doc = fixture("graphs.tracediff.json");
  doc["candidate"]["gpu_time_ns"] = nullptr;
  CHECK(error_of(doc) == "d.json: candidate.gpu_time_ns: missing, expected a number");
  doc = fixture("graphs.tracediff.json");
  doc["base"]["busy_ns"] = -1;
  CHECK(error_of(doc) == "d.json: base.busy_ns: expected a number of at least 0, got -1");
  doc = fixture("graphs.tracediff.json");
  doc["base"]["launches"] = 1e300;
  CHECK(error_of(doc) == "d.json: base.launches: expected an integer from 0 to 18446744073709551615, got 1e+300");
  doc = fixture("graphs.tracediff.json");
  doc.erase("removed");
  CHECK(error_of(doc) == "d.json: removed: missing, expected an array");
  doc = fixture("graphs.tracediff.json");
  doc["added"][0]["calls"] = "one";
  CHECK(error_of(doc) == "d.json: added[0].calls: expected an integer from 1 to 18446744073709551615, got \"one\"");
  doc = fixture("graphs.tracediff.json");
  doc["kernels"] = OrderedJson::object();
  CHECK(error_of(doc) == "d.json: kernels: expected an array, got {}");
  doc = fixture("graphs.tracediff.json");
  doc["kernels"][2] = 7;
  CHECK(error_of(doc) == "d.json: kernels[2]: expected an object, got 7");
  doc = fixture("graphs.tracediff.json");
  doc["regression"] = "no";
  CHECK(error_of(doc) == "d.json: regression: expected true or false, got \"no\"");
  doc = fixture("graphs.tracediff.json");
  doc.erase("regression");
  CHECK(error_of(doc) == "d.json: regression: missing, expected true or false");
  doc = fixture("graphs.tracediff.json");
  doc["threshold_pct"] = -5;
  CHECK(error_of(doc) == "d.json: threshold_pct: expected a number of at least 0, got -5");
  doc = fixture("graphs.tracediff.json");
  doc["gpu_time_change_pct"] = "2%";
  CHECK(error_of(doc) == "d.json: gpu_time_change_pct: expected a number, got \"2%\"");
  doc = fixture("graphs.tracediff.json");
  doc["kernels"][0]["code"] = "new";
  CHECK(error_of(doc) == "d.json: kernels[0].code: expected \"same\", \"changed\" or \"unknown\", got \"new\"");
  doc = fixture("graphs.tracediff.json");
  doc["replays"] = OrderedJson{{"base", {{"graph_id", 0}, {"replays", 1}, {"median_ns", 1}}}};
  CHECK(error_of(doc) == "d.json: replays.base.graph_id: expected an integer from 1 to 4294967295, got 0");
  doc = fixture("graphs.tracediff.json");
  doc["replays"] = 3;
  CHECK(error_of(doc) == "d.json: replays: expected an object, got 3");
}

TEST_CASE("tracediff_reader: the text reader checks the envelope") {
  CHECK_THROWS_WITH_AS(read_trace_diff(R"({"format": "vtools.plandiff", "version": 1})", "x.json"),
                       "x.json: document format 'vtools.plandiff' where 'vtools.tracediff' was expected", Error);
  CHECK_THROWS_AS(read_trace_diff("{", "x.json"), Error);
}
