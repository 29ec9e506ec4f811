#include "tools/vrender/tracediff_page.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "libcommon/error.hpp"
#include "tests/vrender/svg_tree.hpp"
#include "tools/vrender/render.hpp"

using namespace vtools;
using namespace vtools::vrender;

namespace {

// graphs.tracediff.json is `vtrace diff tests/data/vtrace/graphs.trace.json tests/data/vtrace/graphs_slower.trace.json`;
// graphs_regression.tracediff.json the same with --fail-on-regression 5.
OrderedJson fixture(const std::string& name) {
  std::ifstream in(std::string(VTOOLS_TEST_DATA) + "/vrender/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return parse_json(s.str(), name);
}

Page page_of(const OrderedJson& doc) { return build_page({classify_input(doc.dump(), "d.json")}); }

const Section& section(const Page& page, const std::string& heading) {
  auto it = std::find_if(page.sections.begin(), page.sections.end(),
                         [&](const Section& s) { return s.heading == heading; });
  REQUIRE(it != page.sections.end());
  return *it;
}

bool has_note(const Section& s, const std::string& prefix) {
  return std::any_of(s.notes.begin(), s.notes.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
}

std::string error_of(const OrderedJson& doc) {
  try {
    page_of(doc);
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

}  // namespace

TEST_CASE("tracediff_page: the header gives both files and each total on both sides with its change") {
  const Page page = page_of(fixture("graphs.tracediff.json"));
  CHECK(page.title == "Trace diff");
  const Section& head = section(page, "Base and candidate");
  std::vector<std::string> facts;
  for (const Fact& f : head.facts) facts.push_back(f.key + ": " + f.value);
  CHECK(facts == std::vector<std::string>{"base: tests/data/vtrace/graphs.trace.json",
                                          "candidate: tests/data/vtrace/graphs_slower.trace.json",
                                          "busy time: 300 us → 307 us (+2.4%)", "GPU time: 300 us → 307 us (+2.4%)",
                                          "launches: 18 → 18 (+0%)", "kernels: 4 → 4 (+0%)", "copies: 1 → 1 (+0%)",
                                          "copy time: 1.00 us → 1.00 us (+0%)"});
  CHECK(!has_note(head, "Regression"));
  CHECK(has_note(head, "Code identity is unknown for every kernel"));
}

TEST_CASE("tracediff_page: the waterfall goes from base to candidate GPU time, largest change first, red up, green down") {
  const Page page = page_of(fixture("graphs.tracediff.json"));
  const Section& s = section(page, "Change of GPU time");
  REQUIRE(s.figures.size() == 1);
  const auto svg = test::parse_xml(s.figures[0].svg.markup);
  auto bars = svg->find("rect", "bar");
  // base, setup_v2 (added, +10 us), setup (removed, -10 us), gemm (+7.22 us), two unchanged kernels, candidate
  REQUIRE(bars.size() == 7);
  CHECK(bars[0]->title() == "base GPU time: 300 us");
  CHECK(bars[1]->title() == "setup_v2(int*) (added): +10.0 us, 1 call");
  CHECK(bars[1]->attr("fill") == "#e15759");
  CHECK(bars[4]->attr("fill") == "#8c8c8c");  // no change: grey
  CHECK(bars[2]->title() == "setup(int*) (removed): -10.0 us, 1 call");
  CHECK(bars[2]->attr("fill") == "#59a14f");
  CHECK(bars[3]->title() == "gemm(float*): +7.22 us, median +30.1%, slower");
  CHECK(bars[3]->attr("fill") == "#e15759");
  CHECK(bars[6]->title() == "candidate GPU time: 307 us");
  CHECK(!has_note(s, "The kernels' changes add up to"));  // the bars close on the candidate's GPU time
}

TEST_CASE("tracediff_page: past 15 kernels the smallest changes are lumped into one bar") {
  OrderedJson doc = fixture("graphs.tracediff.json");
  const OrderedJson one = doc["kernels"][0];
  doc["kernels"] = OrderedJson::array();
  for (int i = 0; i < 20; ++i) {
    OrderedJson k = one;
    k["name"] = "k" + std::to_string(i);
    k["total_change_ns"] = 1000.0 * (20 - i);  // 20, 19, ... 1 us
    doc["kernels"].push_back(k);
  }
  const Page page = page_of(doc);
  const Section& s = section(page, "Change of GPU time");
  const auto svg = test::parse_xml(s.figures[0].svg.markup);
  auto bars = svg->find("rect", "bar");
  REQUIRE(bars.size() == 1 + kWaterfallKernels + 1 + 1);  // base, 15 kernels, others, candidate
  CHECK(bars[1]->title().rfind("k0:", 0) == 0);
  // k0..k10, the added and the removed kernel (10 us each), k11, k12; k13..k19 (7+6+...+1 us) are the others.
  CHECK(bars[kWaterfallKernels + 1]->title() == "7 other kernels: +28.0 us");
  CHECK(has_note(s, "The kernels' changes add up to +210 us but the GPU time changed by +7.22 us."));
}

TEST_CASE("tracediff_page: the kernel table shortens names, marks regressions, and a regression gets a note") {
  OrderedJson doc = fixture("graphs_regression.tracediff.json");
  doc["kernels"][0]["name"] = std::string(100, 'x');
  const Page page = page_of(doc);
  const Section& head = section(page, "Base and candidate");
  CHECK(has_note(head, "Regression beyond 5%: 1 kernel slower with the 95% interval above 1, or 2x slower where too few launches give no interval (xxx"));
  const Table& t = section(page, "Kernels").tables.at(0).table;
  REQUIRE(t.rows.size() == 3);
  CHECK(t.headers == std::vector<std::string>{"kernel", "calls", "median base", "median candidate", "change",
                                              "95% CI of ratio", "verdict", "total change", "code"});
  CHECK(t.rows[0] == std::vector<std::string>{std::string(59, 'x') + "\xe2\x80\xa6", "4", "6.00 us", "7.80 us",
                                              "+30.1%", "[1.3, 1.302]", "slower (regression)", "+7.22 us", "unknown"});
  CHECK(t.rows[1][6] == "same");
  const Section& only = section(page, "Added and removed kernels");
  REQUIRE(only.tables.size() == 2);
  CHECK(only.tables[0].title == "Added (candidate only)");
  CHECK(only.tables[0].table.rows.at(0) == std::vector<std::string>{"setup_v2(int*)", "1", "10.0 us", "10.0 us"});
  CHECK(only.tables[1].title == "Removed (base only)");
}

TEST_CASE("tracediff_page: no unknown-code note when any kernel's code is known") {
  OrderedJson doc = fixture("graphs.tracediff.json");
  doc["kernels"][1]["code"] = "same";
  const Page page = page_of(doc);
  CHECK(!has_note(section(page, "Base and candidate"), "Code identity is unknown"));
}

TEST_CASE("tracediff_page: a missing, null or mistyped field exits 65 naming its path") {
  OrderedJson doc = fixture("graphs.tracediff.json");
  doc["kernels"][0].erase("verdict");
  CHECK(error_of(doc) == "d.json: kernels[0].verdict: missing, expected a string");
  doc = fixture("graphs.tracediff.json");
  doc["candidate"]["gpu_time_ns"] = nullptr;
  CHECK(error_of(doc) == "d.json: candidate.gpu_time_ns: missing, expected a number");
  doc = fixture("graphs.tracediff.json");
  doc.erase("removed");
  CHECK(error_of(doc) == "d.json: removed: missing, expected an array");
  doc = fixture("graphs.tracediff.json");
  doc["added"][0]["calls"] = "one";
  CHECK(error_of(doc) == "d.json: added[0].calls: expected an integer from 1 to 18446744073709551615, got \"one\"");
  doc = fixture("graphs.tracediff.json");
  doc["kernels"][0]["base"]["calls"] = 1.5;  // read through formats/tracediff: a count is a whole number (issue 39)
  CHECK(error_of(doc) == "d.json: kernels[0].base.calls: expected an integer from 1 to 18446744073709551615, got 1.5");
}

TEST_CASE("tracediff_page: HTML and SVG hold every section, the waterfall and the tables") {
  const Page page = page_of(fixture("graphs_regression.tracediff.json"));
  Options o;
  o.out.format = "html";
  const std::string html = render_page(page, "html", o);
  for (const char* part : {"<title>Trace diff</title>", "<h2>Change of GPU time</h2>", "<h2>Kernels</h2>",
                           "<h2>Added and removed kernels</h2>", "slower (regression)", "Regression beyond 5%"})
    CHECK_MESSAGE(html.find(part) != std::string::npos, part);
  CHECK(html == render_page(page_of(fixture("graphs_regression.tracediff.json")), "html", o));
  auto svg = test::parse_xml(render_page(page, "svg", {}));
  CHECK(svg->find("rect", "bar").size() == 7);
  CHECK(svg->find("line", "link").size() == 6);
}

TEST_CASE("tracediff_page: launch shapes beside kernel names, and the graph replays' medians in the header") {
  OrderedJson doc = fixture("graphs.tracediff.json");
  doc["kernels"][0]["launch_shape"] = "grid 4096x1x1 block 128x1x1";
  doc["replays"] = OrderedJson{{"base", {{"graph_id", 3}, {"replays", 12}, {"median_ns", 4020}}},
                               {"candidate", {{"graph_id", 5}, {"replays", 12}, {"median_ns", 4420}}},
                               {"ratio", 1.0995}, {"ci_low", 1.09}, {"ci_high", 1.11},
                               {"interval_over", "launches"}, {"change_pct", 9.95}, {"verdict", "slower"},
                               {"regression", true}};
  doc["regression"] = true;
  const Page page = page_of(doc);
  const Section& head = section(page, "Base and candidate");
  std::vector<std::string> facts;
  for (const Fact& f : head.facts) facts.push_back(f.key + ": " + f.value);
  CHECK(std::find(facts.begin(), facts.end(), "graph replays: 12 (graph 3) → 12 (graph 5)") != facts.end());
  CHECK(std::find(facts.begin(), facts.end(),
                  "median replay: 4.02 us → 4.42 us (+9.9%, 95% CI [1.09, 1.11], slower, regression)") != facts.end());
  CHECK(std::any_of(head.notes.begin(), head.notes.end(), [](const std::string& n) {
    return n.find("the graph replay is slower") != std::string::npos;
  }));
  const Section& kernels = section(page, "Kernels");
  const std::string first = kernels.tables.at(0).table.rows.at(0).at(0);
  CHECK(first.find(" [grid 4096x1x1 block 128x1x1]") != std::string::npos);
}
