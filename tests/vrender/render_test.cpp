#include "tools/vrender/render.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "formats/plan/budget_figures.hpp"
#include "formats/plan/plan_json.hpp"
#include "libcommon/error.hpp"
#include "libcommon/human_units.hpp"
#include "tests/vrender/svg_tree.hpp"
#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/graph_layout.hpp"
#include "tools/vrender/plan_page.hpp"
#include "tools/vrender/png_raster.hpp"

using namespace vtools;
using namespace vtools::vrender;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(VTOOLS_TEST_DATA) + "/vrender/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Input load(const std::string& name) { return classify_input(fixture(name), name); }

std::string error_of(const std::function<void()>& f, ExitCode expected) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.code() == expected);
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

// Width and height from a PNG's IHDR chunk (bytes 16..23, big endian).
std::pair<int, int> png_size(const std::string& png) {
  REQUIRE(png.size() > 24);
  REQUIRE(png.substr(1, 3) == "PNG");
  REQUIRE(png.substr(12, 4) == "IHDR");
  auto be = [&](std::size_t at) {
    return (static_cast<unsigned char>(png[at]) << 24) | (static_cast<unsigned char>(png[at + 1]) << 16) |
           (static_cast<unsigned char>(png[at + 2]) << 8) | static_cast<unsigned char>(png[at + 3]);
  };
  return {static_cast<int>(be(16)), static_cast<int>(be(20))};
}

Options html_options() {
  Options o;
  o.out.format = "html";
  return o;
}

}  // namespace

TEST_CASE("render: inputs are classified as DOT or by document format") {
  CHECK(load("graph.dot").kind == "dot");
  CHECK(classify_input("// comment\n/* c */ strict digraph { a -> b }", "<stdin>").kind == "dot");
  CHECK(load("bench.bench.json").kind == "vtools.bench");
  CHECK(load("plan.plan.json").kind == "vtools.plan");
  CHECK(load("trace.trace.json").kind == "vtools.trace");
  CHECK(load("compare.compare.json").kind == "vtools.compare");
  CHECK(error_of([] { classify_input(R"({"format": "vtools.nope", "version": 1})", "x.json"); }, ExitCode::kDataError) ==
        "x.json: document format 'vtools.nope' where 'vtools.trace' or 'vtools.plan' or 'vtools.bench' or "
        "'vtools.compare' or 'vtools.tracediff' or 'vtools.plandiff' was expected");
}

TEST_CASE("render: mixed formats are refused, naming both inputs") {
  std::vector<Input> inputs{load("bench.bench.json"), load("plan.plan.json")};
  CHECK(error_of([&] { build_page(inputs); }, ExitCode::kDataError) ==
        "plan.plan.json: inputs mix formats: bench.bench.json is vtools.bench but plan.plan.json is vtools.plan; "
        "inputs of one kind share a page, render the others separately");
}

TEST_CASE("render: fields of the wrong type exit 65 naming the field's path, as the format's reader (vbench's) words it") {
  std::string doc = fixture("bench.bench.json");
  auto at = doc.find("\"mean\": ");
  doc.replace(at, doc.find(',', at) - at, "\"mean\": \"fast\"");
  Input in = classify_input(doc, "b.json");
  CHECK(error_of([&] { build_page({in}); }, ExitCode::kDataError) ==
        "b.json: benchmarks.gpt_nano.timing.mean: expected a number, got \"fast\"");
  std::string cmp = fixture("compare.compare.json");
  at = cmp.find("\"speedup\": ");
  cmp.replace(at, cmp.find(',', at) - at, "\"speedup\": \"fast\"");
  Input c = classify_input(cmp, "c.json");
  CHECK(error_of([&] { build_page({c}); }, ExitCode::kDataError) ==
        "c.json: comparisons[0].speedup: expected a number, got \"fast\"");
  // What vbench refuses, vrender refuses (issue 39): a bench document without benchmarks, a batch of 1e300.
  CHECK(error_of([] { build_page({classify_input(R"({"format":"vtools.bench","version":1,"metadata":{}})", "n.json")}); },
                 ExitCode::kDataError) == "n.json: benchmarks: missing, expected an object");
  CHECK(error_of([] { build_page({classify_input(
                          R"({"format":"vtools.bench","version":1,"benchmarks":{"g":{"batch_size":1e300}}})", "h.json")}); },
                 ExitCode::kDataError) ==
        "h.json: benchmarks.g.batch_size: expected an integer from 1 to 2147483647, got 1e+300");
}

TEST_CASE("render: a plan is read by the plan format's reader: what vplan refuses, vrender refuses in its words") {
  // Issue 39: vrender's own reading rendered a plan whose buffers lacked their id, name and liveness.
  // (No structured bindings: clang 14, the fuzz build, refuses a lambda capture of one.)
  for (const auto& row : std::vector<std::pair<std::string, std::string>>{
           {R"({"format":"vtools.plan","version":1,"kernel":{},"buffers":[{}],"summary":{}})",
            "p.json: buffers[0].id: missing, expected an integer"},
           {R"({"format":"vtools.plan","version":1,"buffers":[],"summary":{}})", "p.json: kernel: missing, expected an object"},
           {R"({"format":"vtools.plan","version":1,"kernel":{},"buffers":[{"id":0,"name":"a","liveness":3}],"summary":{}})",
            "p.json: buffers[0].liveness: expected an array, got 3"}}) {
    const std::string& doc = row.first;
    CAPTURE(doc);
    const std::string vplan_message = error_of([&] { vtools::vplan::read_plan_json(doc, "p.json"); }, ExitCode::kDataError);
    CHECK(vplan_message == row.second);
    CHECK(error_of([&] { build_page({classify_input(doc, "p.json")}); }, ExitCode::kDataError) == vplan_message);
  }
  // The plan is read as the input is (streamed), but a field's fault is raised where the page is built, after the
  // inputs' kinds are compared, as when the page read a parsed document; bad JSON is refused at once.
  const Input bad = classify_input(R"({"format":"vtools.plan","version":1,"buffers":[],"summary":{}})", "p.json");
  CHECK(error_of([&] { build_page({bad, load("vbench_gpt_nano_sweep_h200.compare.json")}); }, ExitCode::kDataError)
            .find("inputs mix formats: p.json is vtools.plan but") != std::string::npos);
  CHECK(error_of([&] { classify_input(R"({"format":"vtools.plan","version":1,"ops":[{"id":7}],"kernel":)", "p.json"); },
                 ExitCode::kDataError)
            .find("p.json:1:") == 0);
}

TEST_CASE("render: plan page summary is the budget figures by vplan's names") {
  // Issue 39, "one figure, one meaning": the page prints what `vplan table` and `vplan check` print, Triton's own
  // total included when the plan carries it. The fixture is `vplan analyze tests/data/ttgir/matmul_ws_sm90.ttgir`
  // before issue 39 (its summary has no scratch figures: scratch was not modelled yet).
  const Input in = load("vplan_matmul_ws_sm90.plan.json");
  const Page page = build_page({in});
  std::vector<Fact> want = {{"kernel", "matmul_ws"}, {"target", "cuda:90"}, {"warps", "12 (4 in the default partition)"}};
  for (const auto& f : vtools::vplan::budget_figures(in.plan.summary))
    want.push_back({f.name, f.value});
  const auto& facts = page.sections[0].facts;
  REQUIRE(facts.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(facts[i].key == want[i].key);
    CHECK(facts[i].value == want[i].value);
  }
  auto value = [&](const std::string& key) {
    for (const auto& f : facts)
      if (f.key == key) return f.value;
    return std::string("absent");
  };
  CHECK(value("SMEM total") == "131448 B");
  CHECK(value("Triton's shared") == "131544 B");
  CHECK(value("SMEM limit") == "232448 B");
  CHECK(value("TMEM total") == "absent");  // sm_90 has no tensor memory
}

TEST_CASE("render: missing optional fields do not stop a page") {
  for (const char* doc : {R"({"format":"vtools.bench","version":1,"metadata":{},"benchmarks":{"x":{}}})",
                          R"({"format":"vtools.plan","version":1,"kernel":{},"buffers":[{"id":0,"name":"a","liveness":[0,1]}],"summary":{}})",
                          R"({"format":"vtools.trace","version":1,"run":{},"kernels":[{}]})",
                          R"({"format":"vtools.compare","version":1,"comparisons":[{}]})"}) {
    Page page = build_page({classify_input(doc, "min.json")});
    CHECK(!page.sections.empty());
    std::ostringstream out;
    CHECK_NOTHROW(test::parse_xml(render_page(page, "svg", {})));
  }
}

TEST_CASE("render: numbers past an integer's range are shown as numbers, not converted") {
  // A fuzzer's find: a throughput of 1.1e80 tokens/s was cast to an integer for its thousands separators (undefined
  // behaviour). Counts, bytes and addresses read from documents go through format_*_of now.
  Page bench = build_page({classify_input(
      R"({"format":"vtools.bench","version":1,"metadata":{},"benchmarks":{"x":{"throughput_tokens_per_sec":1.1e80},)"
      R"("y":{"throughput_tokens_per_sec":-3}}})",
      "huge.json")});
  const auto& rows = bench.sections.back().tables.at(0).table.rows;
  REQUIRE(rows.size() == 2);
  CHECK(std::count(rows[0].begin(), rows[0].end(), "1.1e+80") == 1);
  CHECK(std::count(rows[1].begin(), rows[1].end(), "-3") == 1);
  // A buffer of negative bytes is no plan's: refused by the plan reader, as vplan refuses it.
  CHECK(error_of([] { build_page({classify_input(
                          R"({"format":"vtools.plan","version":1,"kernel":{},"buffers":[{"id":0,"name":"a","bytes":-5,)"
                          R"("liveness":[0,1]}],"summary":{}})",
                          "huge.json")}); },
                 ExitCode::kDataError) == "huge.json: buffers[0].bytes: expected an integer from 0 to 9223372036854775807, got -5");
  // A plan is read by the plan format's reader, which refuses what vplan refuses: a limit must be an integer.
  CHECK(error_of([] { build_page({classify_input(R"({"format":"vtools.plan","version":1,"kernel":{},"buffers":[],)"
                                                 R"("summary":{"smem_limit_bytes":1e40}})",
                                                 "huge.json")}); },
                 ExitCode::kDataError) ==
        "huge.json: summary.smem_limit_bytes: expected an integer from -9223372036854775808 to "
        "9223372036854775807, got 1e+40");
  // A trace is read by the trace format's reader, which refuses what vtrace refuses: a count must be an integer.
  CHECK(error_of([] { classify_input(R"({"format":"vtools.trace","version":1,"run":{},"dropped_records":1e30,"kernels":[{}]})",
                                     "huge.json"); },
                 ExitCode::kDataError) == "huge.json: dropped_records: expected an integer from 0 to 18446744073709551615, got 1e+30");
}

TEST_CASE("render: traces are read as vtrace reads them, whatever the order of their members") {
  // Issue 39: vrender accepted start_ns 1.5 and refused 18446744073709551606, which vtrace accepts.
  CHECK(error_of([] { classify_input(R"({"format":"vtools.trace","version":2,"run":{},"kernels":[{"start_ns":1.5,"end_ns":2}]})",
                                     "t.json"); },
                 ExitCode::kDataError) == "t.json: kernels[0].start_ns: expected an integer from 0 to 18446744073709551615, got 1.5");
  const Input big = classify_input(
      R"({"format":"vtools.trace","version":2,"run":{},"kernels":[{"name":"k","start_ns":18446744073709551606,)"
      R"("end_ns":18446744073709551615}]})",
      "t.json");
  REQUIRE(big.trace.kernels.size() == 1);
  CHECK(big.trace.kernels[0].start_ns == 18446744073709551606ull);
  // "format" after other members: found by a streamed parse, then read by the same reader.
  const Input late = classify_input(R"({"version":2,"run":{},"kernels":[{"name":"k"}],"format":"vtools.trace"})", "l.json");
  CHECK(late.kind == "vtools.trace");
  CHECK(late.trace.kernels.size() == 1);
  CHECK(error_of([] { classify_input(R"({"version":2,"run":{},"kernels":[{"grid":[1]}],"format":"vtools.trace"})",
                                     "l.json"); },
                 ExitCode::kDataError) == "l.json: kernels[0].grid: expected an array of 3 integers, got [1]");
}

TEST_CASE("render: bench page has the system panel, six charts and the results table") {
  Page page = build_page({load("bench.bench.json")});
  REQUIRE(page.sections.size() == 2);
  CHECK(page.sections[0].facts.front().key == "GPU");
  CHECK(page.sections[0].facts.front().value == "NVIDIA H100 80GB HBM3");
  CHECK(page.sections[1].figures.size() == 6);
  REQUIRE(page.sections[1].tables.size() == 1);
  CHECK(page.sections[1].tables[0].table.rows.size() == 4);
  std::string html = render_page(page, "html", html_options());
  auto root = test::parse_xml(html.substr(html.find("<html")));
  CHECK(root->find("svg", "vchart").size() == 6);
  CHECK(root->find("rect", "bar").size() == 4 + 4 + 4 + 12 + 4 + 4);  // the distribution: a box per config
  CHECK(root->find("dt").size() == 9);
}

TEST_CASE("render: several bench runs add a trend with one line per config") {
  Page page = build_page({load("bench.bench.json"), load("bench_old.bench.json")});
  CHECK(page.title == "Benchmark history (2 runs)");
  REQUIRE(page.sections.size() == 3);
  CHECK(page.sections[0].heading == "Trend over time");
  auto root = test::parse_xml(page.sections[0].figures[0].svg.markup);
  CHECK(root->find("polyline").size() == 4);
  CHECK(root->find("circle").size() == 8);
  // Sorted by timestamp: the older run is the first point.
  CHECK(root->find("circle")[0]->title().find("bench_old.bench.json") != std::string::npos);
}

TEST_CASE("render: plan page has liveness lanes per buffer, the address space and the graph") {
  Page page = build_page({load("plan.plan.json")});
  REQUIRE(page.sections.size() == 4);
  const auto& figs = page.sections[1].figures;
  REQUIRE(figs.size() == 4);
  CHECK(test::parse_xml(figs[0].svg.markup)->find("rect", "span").size() == 3);  // SMEM buffers
  CHECK(test::parse_xml(figs[1].svg.markup)->find("rect", "span").size() == 1);  // TMEM buffer
  CHECK(test::parse_xml(figs[2].svg.markup)->find("line", "ref").size() == 1);   // SMEM limit
  CHECK(test::parse_xml(figs[3].svg.markup)->find("rect", "span").size() == 1);  // TMEM columns
  if (graph_layout_available()) {
    REQUIRE(page.sections[2].figures.size() == 1);
    auto graph = test::parse_xml(page.sections[2].figures[0].svg.markup);
    std::vector<const test::Element*> nodes;
    graph->collect([](const test::Element& e) { return e.tag == "g" && e.attr("class") == "node"; }, nodes);
    CHECK(nodes.size() == 5 + 3);  // key ops + the buffers that carry channels
  } else {
    CHECK(page.sections[2].preformatted.find("digraph combined") == 0);
  }
  CHECK(page.sections[3].tables[0].table.rows.size() == 4);
  // vplan writes key kinds, {op, partition} channel ends and {file, line} locations.
  REQUIRE(page.sections[3].tables.size() == 3);
  CHECK(page.sections[3].tables[1].table.rows[0] == std::vector<std::string>{"B0", "1", "3"});
  CHECK(page.sections[3].tables[2].table.rows[2] == std::vector<std::string>{"3", "ttng.tc_gen5_mma", "mma", "2", "matmul.py:43"});
  std::string dot = combined_graph_dot(load("plan.plan.json").plan);
  CHECK(dot.find("op1 -> buf0;") != std::string::npos);
  CHECK(dot.find("buf0 -> op3;") != std::string::npos);
  CHECK(dot.find("label=\"partition 2\"") != std::string::npos);
}

TEST_CASE("render: trace page has a zoomable timeline, top kernels, heat maps and findings") {
  Page page = build_page({load("trace.trace.json")});
  REQUIRE(page.sections.size() == 3);
  auto timeline = test::parse_xml(page.sections[1].figures[0].svg.markup);
  CHECK(timeline->find("svg", "zoomable").size() == 1);
  CHECK(timeline->find("rect", "span").size() == 25);  // 24 launches + 1 copy
  CHECK(page.sections[1].tables[0].table.rows.size() == 3);
  CHECK(page.sections[1].tables[0].table.rows[0][0] == "matmul_kernel");
  CHECK(page.sections[2].figures.size() == 2);  // vector_add x {x, out}
  CHECK(page.sections[2].tables[0].table.rows.size() == 1);
  std::string html = render_page(page, "html", html_options());
  CHECK(count(html, "<script>") == 1);  // zoom script only because a zoomable chart is present
}

TEST_CASE("render: trace page draws NVTX ranges on lanes of their thread, above the GPU's") {
  // A real vtrace run --nvtx --capture-range (H100, PyTorch): 5 "iteration" ranges, 4 kernels in the capture range.
  Page page = build_page({load("vtrace_torch_nvtx_h100.trace.json")});
  const std::string& svg = page.sections[1].figures[0].svg.markup;
  CHECK(count(svg, "iteration\n") == 5);  // each range's tooltip
  CHECK(svg.find("· thread ") != std::string::npos);
  CHECK(svg.find("NVTX ranges (named)") != std::string::npos);
  CHECK(test::parse_xml(svg)->find("rect", "span").size() == 5 + 4);
  CHECK(svg.find("process ") < svg.find("GPU 0 · stream"));  // host lanes first
}

TEST_CASE("render: trace page lists the CUDA graphs of the trace summary") {
  // graphs.trace.json (a copy of tests/data/vtrace's): graph 3 runs 5 nodes once, graph 7 runs 3 nodes 4 times.
  Page page = build_page({load("graphs.trace.json")});
  REQUIRE(page.sections[1].tables.size() == 2);
  const PageTable& graphs = page.sections[1].tables[1];
  CHECK(graphs.title == "CUDA graphs");
  REQUIRE(graphs.table.rows.size() == 2);
  CHECK(graphs.table.rows[0] == std::vector<std::string>{"3", "1", "5", "5", "250 us", "250 us"});
  CHECK(graphs.table.rows[1] == std::vector<std::string>{"7", "4", "3", "12", "40.0 us", "10.0 us"});
  CHECK(build_page({load("trace.trace.json")}).sections[1].tables.size() == 1);  // no graph, no table
}

TEST_CASE("render: trace page gives each kernel's exposed time and the busy time") {
  // The figures are formats/trace's trace summary (tested in tests/vtrace/trace_summary_test.cpp); here, that the
  // page shows them: a programmatic chain on GPU 0 (mm starts while ln runs), a kernel inside ln's run, and GPU 1.
  const char* doc = R"({"format":"vtools.trace","version":1,"run":{},"kernels":[
    {"name":"ln","device_id":0,"stream_id":7,"start_ns":1000,"end_ns":1100},
    {"name":"mm","device_id":0,"stream_id":7,"start_ns":1040,"end_ns":1200},
    {"name":"side","device_id":0,"stream_id":9,"start_ns":1050,"end_ns":1080},
    {"name":"mm","device_id":1,"stream_id":7,"start_ns":1000,"end_ns":1500}]})";
  Page page = build_page({classify_input(doc, "chain.json")});
  const Section& timeline = page.sections[1];
  REQUIRE(!timeline.tables.empty());
  const Table& kernels = timeline.tables[0].table;
  const auto column = std::find(kernels.headers.begin(), kernels.headers.end(), "exposed") - kernels.headers.begin();
  REQUIRE(column < static_cast<std::ptrdiff_t>(kernels.headers.size()));
  std::map<std::string, std::string> exposed;
  for (const auto& row : kernels.rows) exposed[row[0]] = row[static_cast<std::size_t>(column)];
  CHECK(exposed["mm"] == "600 ns");
  CHECK(exposed["ln"] == "100 ns");
  CHECK(exposed["side"] == "0.00 ns");
  bool noted = false;
  for (const auto& note : timeline.notes) noted = noted || note.find("ran during 700 ns (busy)") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("render: trace heat maps and findings name the kernel argument of an allocation") {
  const char* doc = R"({"format":"vtools.trace","version":1,"run":{"mode":"accesses"},"kernels":[],
    "allocations":[{"id":1,"address":4096,"size":4000,"name":"vector_add.arg0"}],
    "accesses":[{"kernel":"vector_add","launch":0,"block":[0,0,0],"allocation":1,"argument":0,
                 "argument_type":"float const*","ranges":[[0,1024]],"loads":256,"stores":0,"bytes_loaded":1024,
                 "bytes_stored":0}],
    "findings":[{"kind":"out_of_bounds","kernel":"vector_add","launch":0,"block":[3,0,0],"thread":[232,0,0],
                 "address":8096,"size":4,"operation":"load","allocation":1,"distance":0,"argument":0,
                 "argument_type":"float const*"}]})";
  Page page = build_page({classify_input(doc, "args.json")});
  const Section& accesses = page.sections.back();
  REQUIRE(accesses.figures.size() == 1);
  CHECK(accesses.figures[0].svg.markup.find("vector_add.arg0, argument 0 (float const*)") != std::string::npos);
  // The finding's bytes are marked on the map, at its block's row (block 3 gets a row though it has no record).
  auto svg = test::parse_xml(accesses.figures[0].svg.markup);
  CHECK(svg->find("rect", "mark").size() == 1);
  CHECK(accesses.figures[0].svg.markup.find("out-of-bounds load of 4 B at byte 4000, block (3,0,0) thread (232,0,0)") !=
        std::string::npos);
  REQUIRE(accesses.tables.size() == 1);
  const auto& headers = accesses.tables[0].table.headers;
  auto column = std::find(headers.begin(), headers.end(), "allocation") - headers.begin();
  CHECK(accesses.tables[0].table.rows[0][static_cast<std::size_t>(column)] == "1, argument 0 (float const*)");
}

TEST_CASE("render: trace findings show their source line with its inlining, their SASS, or why not") {
  const char* doc = R"json({"format":"vtools.trace","version":1,"run":{"mode":"accesses"},"kernels":[],
    "allocations":[{"id":1,"address":4096,"size":4000}],
    "accesses":[{"kernel":"scaled","launch":0,"block":[0,0,0],"allocation":1,"ranges":[[0,64]],"loads":1,"stores":0,
                 "bytes_loaded":64,"bytes_stored":0}],
    "findings":[{"kind":"out_of_bounds","kernel":"scaled","launch":0,"block":[0,0,0],"thread":[1,0,0],
                 "address":8096,"size":4,"operation":"load","allocation":1,"distance":0,
                 "source":{"file":"k.cu","line":6,"column":0,"function":"twice(float const*, int)",
                           "inlined_at":[{"file":"k.cu","line":19,"column":3,"function":"scaled"}],
                           "text":"  return 2.0f * p[i];"},
                 "sass":"LDG.E R2, desc[UR4][R2.64]","source_note":""},
                {"kind":"out_of_bounds","kernel":"scaled","launch":0,"block":[0,0,0],"thread":[2,0,0],
                 "address":8100,"size":4,"operation":"load","allocation":1,"distance":4,"source":null,
                 "sass":"LDG.E R2, desc[UR4][R2.64]","source_note":"no source line: built without -lineinfo"}]})json";
  Page page = build_page({classify_input(doc, "source.json")});
  const Section& accesses = page.sections.back();
  REQUIRE(accesses.tables.size() == 1);
  const auto& table = accesses.tables[0].table;
  auto column = [&](const char* name) {
    return static_cast<std::size_t>(std::find(table.headers.begin(), table.headers.end(), name) - table.headers.begin());
  };
  CHECK(table.rows[0][column("source")] == "k.cu:6 in twice(float const*, int), inlined at k.cu:19:3");
  CHECK(table.rows[0][column("SASS")] == "LDG.E R2, desc[UR4][R2.64]");
  CHECK(table.rows[0][column("line")] == "return 2.0f * p[i];");
  CHECK(table.rows[1][column("line")].empty());
  CHECK(table.rows[1][column("source")] == "no source line: built without -lineinfo");
  REQUIRE(accesses.figures.size() == 1);
  CHECK(accesses.figures[0].svg.markup.find("thread (1,0,0), k.cu:6 in twice(float const*, int), inlined at k.cu:19:3") !=
        std::string::npos);
}

TEST_CASE("render: trace page gives the exact out-of-bounds count per PC and says which ranges were coarsened") {
  const char* doc = R"({"format":"vtools.trace","version":1,"run":{"mode":"accesses"},"kernels":[],
    "allocations":[{"id":1,"address":4096,"size":4000}],
    "accesses":[{"kernel":"gemm","launch":0,"block":[0,0,0],"allocation":1,"ranges":[[0,64],[128,4000]],
                 "ranges_exact":false,"ranges_merged":3,"loads":9,"stores":0,"bytes_loaded":36,"bytes_stored":0}],
    "findings":[{"kind":"out_of_bounds","kernel":"gemm","launch":0,"block":[0,0,0],"thread":[0,0,0],
                 "address":8096,"size":4,"operation":"load","allocation":1,"distance":0}],
    "finding_sites":[{"kernel":"gemm","pc_offset":8432,"operation":"load","count":4718592,"listed":1}],
    "findings_total":4718592})";
  Page page = build_page({classify_input(doc, "sites.json")});
  const Section& accesses = page.sections.back();
  REQUIRE(accesses.tables.size() == 2);
  CHECK(accesses.tables[0].title == "Out-of-bounds accesses per kernel and PC (4718592 in all)");
  CHECK(accesses.tables[0].table.rows[0][3] == "4718592");
  CHECK(accesses.tables[1].title == "Findings (1 listed)");
  CHECK(std::any_of(accesses.notes.begin(), accesses.notes.end(),
                    [](const std::string& n) { return n.rfind("1 block records touched more than 16", 0) == 0; }));
}

TEST_CASE("render: compare page draws medians side by side and speedups with CI whiskers") {
  Page page = build_page({load("compare.compare.json")});
  REQUIRE(page.sections.size() == 2);
  const auto& res = page.sections[1];
  REQUIRE(res.figures.size() == 2);
  CHECK(test::parse_xml(res.figures[0].svg.markup)->find("rect", "bar").size() == 6);
  auto speed = test::parse_xml(res.figures[1].svg.markup);
  CHECK(speed->find("line", "err").size() == 9);
  CHECK(speed->find("line", "ref").size() == 1);
  CHECK(res.notes[0].rfind("1 faster, 1 slower, 1 unchanged", 0) == 0);
}

TEST_CASE("render: HTML is self-contained and the same input gives the same bytes") {
  for (const char* f : {"bench.bench.json", "plan.plan.json", "trace.trace.json", "compare.compare.json"}) {
    std::string a = render_page(build_page({load(f)}), "html", html_options());
    std::string b = render_page(build_page({load(f)}), "html", html_options());
    if (a != b) {
      std::size_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
      FAIL_CHECK(f << " differs at " << i << ": " << a.substr(i > 80 ? i - 80 : 0, 200) << " VS " << b.substr(i > 80 ? i - 80 : 0, 200));
    }
    CHECK(count(a, "http") == count(a, "http://www.w3.org/2000/svg"));  // no fetched URL of any kind
    CHECK(count(a, "src=") == 0);
    CHECK(count(a, "@import") == 0);
    CHECK(count(a, "prefers-color-scheme: dark") >= 1);
  }
}

TEST_CASE("render: a 100k-launch trace is aggregated into at most 5 MB of HTML and says so") {
  std::string text = R"({"format":"vtools.trace","version":1,"run":{"command":["./app"]},"kernels":[)";
  long long t = 0;
  for (int i = 0; i < 100000; ++i) {
    long long d = 2000 + (i * 7919) % 50000;
    text += std::string(i ? "," : "") + R"({"name":"k)" + std::to_string(i % 23) + R"(","device_id":0,"stream_id":)" +
            std::to_string(i % 4) + R"(,"start_ns":)" + std::to_string(t) + R"(,"end_ns":)" + std::to_string(t + d) + "}";
    t += d / 3 + 500;
  }
  text += "]}";
  Page page = build_page({classify_input(text, "big.json")});
  std::string html = render_page(page, "html", html_options());
  CHECK(html.size() <= 5u * 1000 * 1000);
  CHECK(html.find("Aggregated: 100,000 launches and copies drawn as") != std::string::npos);
  auto timeline = test::parse_xml(page.sections[1].figures[0].svg.markup);
  CHECK(timeline->find("rect", "span").size() <= 4 * 1500);
}

TEST_CASE("render: output format follows --format, then the extension") {
  Options o;
  o.out.output = "x.PNG";
  CHECK(output_format(o) == "png");
  o.out.output = "x.svg";
  CHECK(output_format(o) == "svg");
  o.out.format = "html";
  CHECK(output_format(o) == "html");
  o.out.format.clear();
  o.out.output = "x.pdf";
  CHECK(error_of([&] { output_format(o); }, ExitCode::kUsage) ==
        "cannot tell the output format from 'x.pdf'; name it .html, .svg or .png, or pass --format html|svg|png");
}

TEST_CASE("render: a PNG size out of range says which way to move --width or --scale") {
  if (!png_available()) return;
  const std::string wide = R"(<svg xmlns="http://www.w3.org/2000/svg" width="50" height="20"/>)";
  CHECK(error_of([&] { rasterize_png(wide, {0, 0.01}); }, ExitCode::kUsage) ==
        "PNG size 1x0 px is outside 1..32767; pick a larger --scale");
  CHECK(error_of([&] { rasterize_png(wide, {0, 1000}); }, ExitCode::kUsage) ==
        "PNG size 50000x20000 px is outside 1..32767; pick a smaller --scale");
  const std::string tall = R"(<svg xmlns="http://www.w3.org/2000/svg" width="10" height="1000"/>)";
  CHECK(error_of([&] { rasterize_png(tall, {400, 1}); }, ExitCode::kUsage) ==
        "PNG size 400x40000 px is outside 1..32767; pick a smaller --width");
}

TEST_CASE("render: PNG has the requested size") {
  if (!png_available()) {
    CHECK(error_of([] { rasterize_png("<svg/>", {}); }, ExitCode::kUnavailable).rfind("PNG output needs librsvg", 0) == 0);
    return;
  }
  Page page = build_page({load("plan.plan.json")});
  Options o;
  o.width_px = 640;
  auto [w, h] = png_size(render_page(page, "png", o));
  CHECK(w == 640);
  auto svg = test::parse_xml(render_page(page, "svg", o));
  double sw = std::stod(svg->children[0]->attr("width")), sh = std::stod(svg->children[0]->attr("height"));
  CHECK(h == static_cast<int>(std::lround(sh * 640 / sw)));
  Options scaled;
  scaled.scale = 0.5;
  auto [w2, h2] = png_size(render_page(page, "png", scaled));
  CHECK(w2 == static_cast<int>(std::lround(sw * 0.5)));
  CHECK(h2 == static_cast<int>(std::lround(sh * 0.5)));
}

TEST_CASE("render: DOT syntax errors exit 65 with Graphviz's message and line") {
  if (!graph_layout_available()) {
    CHECK(error_of([] { layout_dot("digraph { a -> b }", "g.dot"); }, ExitCode::kUnavailable)
              .rfind("g.dot: graph layout needs Graphviz", 0) == 0);
    return;
  }
  CHECK(error_of([] { layout_dot("digraph {\n a -> ;\n}\n", "g.dot"); }, ExitCode::kDataError) ==
        "g.dot:2: invalid DOT: syntax error in line 2 near ';'");  // the line Graphviz's own dot names
}

TEST_CASE("render: real vbench and vplan documents render with every part") {
  // Copies of tests/data/vbench and tests/data/vplan fixtures written by the real tools.
  Input bench = load("vbench_gpt_nano_cpu.bench.json");
  Page page = build_page({bench});
  REQUIRE(page.sections.size() == 2);
  CHECK(page.sections[1].figures.size() >= 5);
  CHECK(page.sections[1].tables[0].table.rows.size() == bench.doc["benchmarks"].size());
  bool device = false;
  for (const auto& f : page.sections[0].facts) device = device || f.key == "device";
  CHECK(device);
  Input cold = bench;  // vbench run --caches cold says so in its metadata; the system panel shows it
  cold.doc["metadata"]["caches"] = "cold";
  bool caches = false;
  const Page cold_page = build_page({cold});
  for (const auto& f : cold_page.sections[0].facts) caches = caches || (f.key == "caches" && f.value == "cold");
  CHECK(caches);

  // vbench run on cuda lists the forwards its prepare tried: a table per config, fastest first, the kept one marked.
  Input searched = bench;
  searched.doc["benchmarks"]["gpt_nano"]["plan_search"] = OrderedJson::parse(R"({"kept": "fused block rows",
      "replays": 15, "timed": [{"forward": "unfused", "median_ms": 0.060}, {"forward": "fused block rows",
      "median_ms": 0.050}, {"forward": "persistent", "median_ms": null}, {"forward": "close", "median_ms": 0.051}],
      "playoff": {"rounds": 4, "replays": 60, "timed": [{"forward": "fused block rows", "median_ms": 0.0502},
      {"forward": "close", "median_ms": 0.0521}]},
      "rejected": [{"forward": "wrong", "reason": "its logits are 1.00e+00 off"}]})");
  const Page searched_page = build_page({searched});
  REQUIRE(searched_page.sections.size() == 3);
  CHECK(searched_page.sections[2].heading == "Plan search at prepare");
  const Table& plans = searched_page.sections[2].tables.at(0).table;
  REQUIRE(plans.rows.size() == 5);
  CHECK(plans.rows[0] == std::vector<std::string>{"fused block rows", "0.05", "0.0502", "–", "kept"});
  CHECK(plans.rows[1] == std::vector<std::string>{"close", "0.051", "0.0521", "+2.0%", ""});
  CHECK(plans.rows[2][3] == "+20.0%");
  CHECK(plans.rows[3][0] == "persistent");  // could not run: after every timed one
  CHECK(plans.rows[4] == std::vector<std::string>{"wrong", "–", "–", "–", "not used: its logits are 1.00e+00 off"});
  CHECK_NOTHROW(test::parse_xml(render_page(searched_page, "svg", {})));

  // vbench run --forwards-from (a real one, H100): no search, so no table; a note names the forward and where it
  // came from.
  const Page pinned_page = build_page({load("vbench_gpt2_bf16_pinned_h100.bench.json")});
  REQUIRE(pinned_page.sections.size() == 3);
  CHECK(pinned_page.sections[2].tables.empty());
  CHECK(pinned_page.sections[2].notes ==
        std::vector<std::string>{"gpt2: no search; ran the forward searched.json named: unfused with wgmma GEMMs "
                                 "64x1x1 and programmatic launches and qkv and attention in one wgmma kernel"});

  // vbench run --repetitions 3: the results say how far the repetitions' medians are apart.
  const Page reps_page = build_page({load("vbench_gpt_nano_cpu_reps.bench.json")});
  const std::vector<std::string>& reps_notes = reps_page.sections[1].notes;
  CHECK(std::count_if(reps_notes.begin(), reps_notes.end(), [](const std::string& n) {
          return n.rfind("gpt_nano: 3 repetitions (each a prepare of its own), medians ", 0) == 0;
        }) == 1);

  // A real cuda run (gpt2 bf16, H200): its search, fastest first, the kept forward among the playoff's.
  Input gpt2 = load("vbench_gpt2_bf16_cuda_h200.bench.json");
  const Page gpt2_page = build_page({gpt2});
  for (const auto& f : gpt2_page.sections[0].facts) CHECK(f.key != "threads");  // 0 on cuda: not shown
  REQUIRE(gpt2_page.sections.size() == 3);
  const Table& gpt2_plans = gpt2_page.sections[2].tables.at(0).table;
  const OrderedJson& gpt2_search = gpt2.doc["benchmarks"]["gpt2"]["plan_search"];
  CHECK(gpt2_plans.rows.size() == gpt2_search["timed"].size() + gpt2_search["rejected"].size());
  CHECK(std::count_if(gpt2_plans.rows.begin(), gpt2_plans.rows.end(),
                      [](const std::vector<std::string>& row) { return row.back() == "kept"; }) == 1);

  // A sweep (vbench run -B 1,4 -T 16,64): latency and throughput against B and against T, a line per config and
  // value of the other axis, after the usual charts.
  const Page sweep_page = build_page({load("vbench_gpt_nano_cpu_sweep.bench.json")});
  const auto& sweep_figures = sweep_page.sections[1].figures;
  REQUIRE(sweep_figures.size() == page.sections[1].figures.size() + 4);
  const auto by_batch = test::parse_xml(sweep_figures[sweep_figures.size() - 4].svg.markup);
  CHECK(by_batch->find("polyline").size() == 2);  // gpt_nano at T=16 and at T=64
  CHECK(sweep_page.sections[1].tables[0].table.rows.size() == 4);
  const Table& sweep_results = sweep_page.sections[1].tables[0].table;
  const auto noise = static_cast<std::size_t>(
      std::find(sweep_results.headers.begin(), sweep_results.headers.end(), "noise") - sweep_results.headers.begin());
  REQUIRE(noise < sweep_results.headers.size());
  CHECK(sweep_results.rows[0][noise].back() == '%');  // std / mean, as vbench's table

  Page history = build_page({bench, load("vbench_gpt_nano_cpu_rerun.bench.json")});
  CHECK(history.sections[0].tables[0].table.rows.size() == 2);

  Input cmp = load("vbench_gpt_nano_cpu.compare.json");
  Page cpage = build_page({cmp});
  CHECK(cpage.sections[1].tables[0].table.rows.size() == cmp.doc["comparisons"].size());
  cmp.doc["comparisons"][0]["differs"] = "caches warm vs cold";  // vbench compare's note on runs set up differently
  const std::vector<std::string> cnotes = build_page({cmp}).sections[1].notes;
  const std::string differs_note = "gpt_nano: the two runs differ in caches warm vs cold.";
  CHECK(std::find(cnotes.begin(), cnotes.end(), differs_note) != cnotes.end());
  cmp.doc["geomean_speedup"] = 2.5;  // vbench compare's geometric mean over the configs timed on both sides
  cmp.doc["geomean_configs"] = 3;
  const std::vector<std::string> gnotes = build_page({cmp}).sections[1].notes;
  CHECK(std::find(gnotes.begin(), gnotes.end(), "Geometric mean of the speedups over 3 configs: 2.5×.") !=
        gnotes.end());
  cmp.doc["comparisons"][0]["kept_forwards"] = {{"baseline", "unfused"}, {"candidate", "fused block rows"}};
  const std::vector<std::string> knotes = build_page({cmp}).sections[1].notes;
  CHECK(std::find(knotes.begin(), knotes.end(),
                  "gpt_nano: prepare kept different forwards: baseline unfused; candidate fused block rows.") !=
        knotes.end());
  cmp.doc["comparisons"][0]["ci_over"] = "repetitions";  // vbench run --repetitions on both sides
  cmp.doc["comparisons"][0]["baseline_repetitions"] = 5;
  cmp.doc["comparisons"][0]["candidate_repetitions"] = 3;
  const std::vector<std::string> rnotes = build_page({cmp}).sections[1].notes;
  CHECK(std::find(rnotes.begin(), rnotes.end(), "gpt_nano: 95% CI over the medians of 5 and 3 repetitions.") !=
        rnotes.end());

  // Real repetitions on both sides (vbench compare of two `vbench run --repetitions 3`): whiskers over the
  // repetitions' medians on the median bars, and a line per side of each repetition's median.
  const Page reps = build_page({load("vbench_gpt_nano_cpu_reps.compare.json")});
  const std::vector<std::string>& reps_cnotes = reps.sections[1].notes;
  CHECK(std::find(reps_cnotes.begin(), reps_cnotes.end(),
                  "gpt_nano: 95% CI over the medians of 3 and 3 repetitions; the median bars' whiskers span them.") !=
        reps_cnotes.end());
  REQUIRE(reps.sections[1].figures.size() == 3);
  CHECK(reps.sections[1].figures[0].svg.markup.find("<line") != std::string::npos);  // the whiskers
  const auto reps_chart = test::parse_xml(reps.sections[1].figures[2].svg.markup);
  CHECK(reps.sections[1].figures[2].svg.markup.find("Median of each repetition") != std::string::npos);
  CHECK(reps_chart->find("polyline").size() == 2);
  CHECK(reps.sections[1].figures[2].svg.markup.find("gpt_nano candidate, repetition 2: 4.873 ms") !=
        std::string::npos);

  // Sweeps compared (vbench against torch.compile, B 1,4,16 x T 32,64): the speedup against B and against T too.
  const Page sweeps = build_page({load("vbench_gpt_nano_sweep_h200.compare.json")});
  REQUIRE(sweeps.sections[1].figures.size() == 4);
  const auto speedup_by_batch = test::parse_xml(sweeps.sections[1].figures[2].svg.markup);
  CHECK(speedup_by_batch->find("polyline").size() == 2);  // gpt_nano at T=32 and at T=64
  CHECK(sweeps.sections[1].figures[3].svg.markup.find("sequence length T") != std::string::npos);

  Input plan = load("vplan_matmul_ws_sm90.plan.json");
  const OrderedJson plan_doc = parse_json(fixture("vplan_matmul_ws_sm90.plan.json"), "plan");  // what the page shows
  std::size_t smem = 0;
  for (const auto& b : plan_doc["buffers"]) smem += b["space"] == "smem";
  Page ppage = build_page({plan});
  CHECK(test::parse_xml(ppage.sections[1].figures[0].svg.markup)->find("rect", "span").size() == smem);
  CHECK(ppage.sections[3].tables[0].table.rows.size() == plan_doc["buffers"].size());
  std::string dot = combined_graph_dot(plan.plan);
  for (const auto& c : plan_doc["channels"])
    CHECK(dot.find("op" + std::to_string(c["producer"]["op"].get<int>()) + " -> buf" + std::to_string(c["buffer"].get<int>())) !=
          std::string::npos);
  if (png_available()) CHECK(png_size(render_page(ppage, "png", {})).first > 0);

  // vtrace's sample: absolute timestamps near 1.8e18 ns must still give exact relative times.
  Input trace = load("vtrace_sample.trace.json");
  Page tpage = build_page({trace});
  auto timeline = test::parse_xml(tpage.sections[1].figures[0].svg.markup);
  auto spans = timeline->find("rect", "span");
  CHECK(spans.size() == trace.trace.kernels.size() + trace.trace.memcpys.size());
  const auto& k0 = trace.trace.kernels.at(0);
  std::string expect = format_duration_ns(static_cast<double>(k0.end_ns - k0.start_ns));
  bool found = false;
  for (const auto* s : spans) found = found || s->title().find(k0.name.str() + "\n" + expect) == 0;
  CHECK(found);
  CHECK(tpage.sections.back().tables.back().table.rows.size() == trace.trace.findings.size());
}

TEST_CASE("render: SVG pages wrap notes, facts and the subtitle inside the page width") {
  // Issue 45, item 19: long notes (a bench run's, the torch NVTX trace's) ran past the right edge of SVG and PNG.
  auto unescape = [](std::string s) {  // one character per entity, as drawn
    for (const char* entity : {"&#39;", "&amp;", "&lt;", "&gt;", "&quot;"})
      for (auto p = s.find(entity); p != std::string::npos; p = s.find(entity, p)) s.replace(p, std::strlen(entity), "'");
    return s;
  };
  for (const std::string f : {"vbench_gpt2_bf16_cuda_h200.bench.json", "vtrace_torch_nvtx_h100.trace.json"}) {
    const Page page = build_page({load(f)});
    std::size_t longest_note = 0;
    for (const auto& s : page.sections)
      for (const auto& n : s.notes) longest_note = std::max(longest_note, n.size());
    REQUIRE(longest_note > 200);  // the fixture still has a note longer than any page is wide
    auto root = test::parse_xml(render_page(page, "svg", {}));
    const double width = std::stod(root->children[0]->attr("width"));
    for (const auto* t : root->children[0]->find("text")) {
      const std::string cls = t->attr("class");
      if (cls != "pnote" && cls != "psub" && cls != "pval" && cls != "pkey") continue;
      INFO(f << ": " << t->text);
      CHECK(std::stod(t->attr("x")) + text_width(unescape(t->text), 13) <= width);
    }
  }
}

TEST_CASE("render: sweep charts label every swept B and T") {
  // Issue 45, item 20: log axes ticked only at decades left B = 4, 16 and T = 32, 64 unlabelled.
  const Page page = build_page({load("vbench_gpt_nano_sweep_h200.compare.json")});
  std::map<std::string, std::vector<std::string>> ticks;  // chart title -> x tick labels
  for (const auto& f : page.sections[1].figures) {
    auto root = test::parse_xml(f.svg.markup);
    const std::string title = root->children[0]->title();
    for (const auto* t : root->find("text", "tick"))
      if (t->attr("text-anchor") == "middle") ticks[title].push_back(t->text);
  }
  CHECK(ticks["Speedup vs batch size B"] == std::vector<std::string>{"1", "4", "16"});
  CHECK(ticks["Speedup vs sequence length T"] == std::vector<std::string>{"32", "64"});
}

TEST_CASE("render: a trend over runs of different setups draws a line per setup and says so") {
  // Issue 45, item 21: an H100 cuda bf16 run and a CPU fp32 run shared one gpt_nano line with no word.
  const Page page = build_page({load("bench.bench.json"), load("vbench_gpt_nano_cpu.bench.json")});
  REQUIRE(page.sections[0].heading == "Trend over time");
  auto root = test::parse_xml(page.sections[0].figures[0].svg.markup);
  std::vector<std::string> legend;
  for (const auto* t : root->find("text", "legend")) legend.push_back(t->text);
  CHECK(std::count(legend.begin(), legend.end(), "gpt_nano (cuda H100 80GB HBM3 bf16)") == 1);
  CHECK(std::count(legend.begin(), legend.end(), "gpt_nano (cpu Intel(R) Xeon(R) Proces… fp32)") == 1);
  CHECK(std::count(legend.begin(), legend.end(), "gpt2") == 1);  // in one run only: its own name
  CHECK(page.sections[0].notes ==
        std::vector<std::string>{"gpt_nano: the runs differ in backend, device, dtype; one line per setup, not one trend."});
  CHECK(page.sections[0].tables[0].table.headers.size() == 2 + legend.size());
  // Runs of one setup keep one line per config and no note.
  const Page same = build_page({load("bench.bench.json"), load("bench_old.bench.json")});
  CHECK(same.sections[0].notes.empty());
}

TEST_CASE("render: an image of a trace whose NVTX ranges dwarf its kernels fits the timeline to the kernels") {
  // Issue 45, item 23: a 104 ms NVTX range around 150 µs of kernels drew the kernels as one pixel in the PNG.
  const Page page = build_page({load("vtrace_torch_nvtx_h100.trace.json")});
  const Section& timeline = page.sections[1];
  REQUIRE(timeline.figures.size() >= 2);
  const Figure& zoomable = timeline.figures[0];
  const Figure& fitted = timeline.figures[1];
  CHECK((zoomable.in_html && !zoomable.in_image));
  CHECK((!fitted.in_html && fitted.in_image));
  auto root = test::parse_xml(fitted.svg.markup);
  CHECK(root->find("svg", "zoomable").empty());
  const auto* plot = root->find("rect", "plot").at(0);
  const double left = std::stod(plot->attr("x")), right = left + std::stod(plot->attr("width"));
  double widest_kernel = 0;
  for (const auto* span : root->find("rect", "span")) {
    const double x = std::stod(span->attr("x")), w = std::stod(span->attr("width"));
    CHECK(x >= left - 0.01);  // NVTX ranges clipped to the plot
    CHECK(x + w <= right + 0.01);
    if (span->title().find("(NVTX)") == std::string::npos) widest_kernel = std::max(widest_kernel, w);
  }
  CHECK(widest_kernel > 50);
  CHECK(std::count_if(timeline.notes.begin(), timeline.notes.end(), [](const std::string& n) {
          return n.rfind("SVG/PNG: the timeline shows the 150", 0) == 0 && n.find("clipped") != std::string::npos;
        }) == 1);
  const std::string html = render_page(page, "html", html_options());
  CHECK(html.find("NVTX ranges clipped)") == std::string::npos);  // HTML keeps the zoomable timeline only
  CHECK(count(html, "class=\"zoomable\"") == 1);
  // A trace without NVTX ranges keeps one timeline, in both outputs.
  const Page plain = build_page({load("trace.trace.json")});
  CHECK(plain.sections[1].figures[0].in_image);
  CHECK(plain.sections[1].figures.size() == 2);  // timeline and top kernels
}

TEST_CASE("render: plan page names buffers by id, marks mbarriers and counts every warp") {
  // Issue 45, item 22: attn_ws_sm100's mbarrier arrays read "acc · 8 B" four times among the data buffers, with no
  // id and no barrier marking, and "warps: 4" for a 12-warp warp-specialized kernel. The fixture is
  // `vplan analyze tests/data/ttgir/attn_ws_sm100.ttgir`.
  const Page page = build_page({load("vplan_attn_ws_sm100.plan.json")});
  const auto& facts = page.sections[0].facts;
  auto warps = std::find_if(facts.begin(), facts.end(), [](const Fact& f) { return f.key == "warps"; });
  REQUIRE(warps != facts.end());
  CHECK(warps->value == "12 (4 in the default partition)");
  auto smem = test::parse_xml(page.sections[1].figures[0].svg.markup);
  std::vector<std::string> lanes;
  for (const auto* t : smem->find("text", "tick"))
    if (t->attr("text-anchor") == "end") lanes.push_back(t->text);
  REQUIRE(lanes.size() == 21);  // SMEM buffers
  CHECK(std::set<std::string>(lanes.begin(), lanes.end()).size() == lanes.size());  // each lane its own name
  CHECK(lanes[0] == "B0 q · 32.0 KiB");
  CHECK(lanes[6] == "B1 q (barrier) · 8 B");  // the 6 data buffers first, then the barriers
  CHECK(std::count_if(lanes.begin(), lanes.end(),
                      [](const std::string& l) { return l.find("(barrier)") != std::string::npos; }) == 15);
  std::size_t grey = 0;
  for (const auto* span : smem->find("rect", "span")) grey += span->attr("fill") == "#8c8c8c";
  CHECK(grey == 15);
  const Table& buffers = page.sections[3].tables[0].table;
  CHECK(buffers.headers[2] == "kind");
  CHECK(buffers.rows[1][0] == "B1");
  CHECK(buffers.rows[1][2] == "mbarrier");
  CHECK(buffers.rows[0][2] == "data");
}

TEST_CASE("plandiff page: changes by section in a fixed order, counts in the header, unknown sections named") {
  OrderedJson doc = parse_json(R"J({"format": "vtools.plandiff", "version": 1,
      "tool": {"name": "vplan", "version": "0"}, "created": "x",
      "a": {"kernel": "k", "source": "a.ttgir"}, "b": {"kernel": "k", "source": "b.ttgir"}, "identical": false,
      "changes": [{"section": "buffer", "change": "resized", "subject": "smem %3", "before": "32 KiB", "after": "48 KiB"},
                  {"section": "total", "change": "changed", "subject": "SMEM peak", "before": "96 KiB", "after": "112 KiB"},
                  {"section": "buffer", "change": "added", "subject": "smem %9", "before": "", "after": "16 KiB"},
                  {"section": "future", "change": "added", "subject": "x", "before": "", "after": "y"}]})J",
                               "d.json");
  const Page page = build_page({classify_input(doc.dump(), "d.json")});
  CHECK(page.title == "Plan diff");
  REQUIRE(page.sections.size() == 3);
  CHECK(page.sections[0].facts.back().value == "4 (2 added, 1 changed, 1 resized)");
  CHECK(page.sections[1].heading == "Totals and budget");
  CHECK(page.sections[2].heading == "Buffers");
  CHECK(page.sections[2].tables.at(0).table.rows.size() == 2);
  CHECK(page.sections[0].notes.at(0) == "1 changes of kind 'future' are not shown (a newer vplan wrote them)");
}

TEST_CASE("render: a trace with ranks labels its lanes by rank and shows the rank analysis of vtrace summary --ranks") {
  // tests/data/vtrace/ranks: two ranks of an all-reduce job (slurm), one trace each; rank 1 arrives late each time.
  const Input rank0 = classify_input(fixture("../vtrace/ranks/rank0.trace.json"), "rank0.trace.json");
  const Page page = build_page({rank0});
  const std::string& svg = page.sections[1].figures[0].svg.markup;
  CHECK(svg.find("rank 0 · GPU 0 · stream ") != std::string::npos);
  const auto ranks = std::find_if(page.sections.begin(), page.sections.end(), [](const Section& s) { return s.heading == "Ranks"; });
  REQUIRE(ranks != page.sections.end());
  REQUIRE(ranks->tables.size() >= 2);
  CHECK(ranks->tables[0].table.rows.size() == 1);
  CHECK(ranks->tables[0].table.rows[0][0] == "0 (node0)");
  CHECK(ranks->notes.at(0).rfind("1 rank, ", 0) == 0);
  // A trace without ranks has no such section and unlabelled lanes.
  const Page plain = build_page({load("trace.trace.json")});
  CHECK(std::none_of(plain.sections.begin(), plain.sections.end(), [](const Section& s) { return s.heading == "Ranks"; }));
  CHECK(plain.sections[1].figures[0].svg.markup.find("rank ") == std::string::npos);
}

TEST_CASE("render: trace page gives each kernel's hot source lines, hottest first, as vtrace summary --by line") {
  const char* doc = R"json({"format":"vtools.trace","version":1,"run":{"mode":"accesses"},"kernels":[],
    "hot_lines":[
      {"kernel":"k","file":"/src/k.cu","line":12,"function":"k","text":"  float v = in[i];","pcs":1,"pc_offset":192,
       "loads":64,"stores":0,"atomics":0,"bytes_loaded":256,"bytes_stored":0,"requests":2,"sectors":8,"lanes":64,
       "findings":3},
      {"kernel":"k","file":"/src/k.cu","line":13,"function":"k","pcs":1,"pc_offset":240,"loads":0,"stores":64,
       "atomics":0,"bytes_loaded":0,"bytes_stored":1024,"requests":2,"sectors":32,"lanes":64,"findings":0},
      {"kernel":"k","file":null,"line":null,"function":"","pcs":1,"pc_offset":496,"sass":"STG.E [R2.64], R5",
       "note":"no source line","loads":0,"stores":1,"atomics":0,"bytes_loaded":0,"bytes_stored":4,"requests":1,
       "sectors":1,"lanes":1,"findings":0}],
    "hot_lines_dropped_requests":9})json";
  Page page = build_page({classify_input(doc, "lines.json")});
  const Section& lines = page.sections.back();
  CHECK(lines.heading == "Hot source lines");
  REQUIRE(lines.tables.size() == 1);
  CHECK(lines.tables[0].title == "k: 5 warp requests, 256 B loaded, 1.0 KiB stored");
  const auto& table = lines.tables[0].table;
  REQUIRE(table.rows.size() == 3);
  CHECK(table.rows[0][0] == "k.cu:13");  // the most bytes first
  CHECK(table.rows[1][0] == "k.cu:12");
  CHECK(table.rows[1][10] == "3");
  CHECK(table.rows[1].back() == "float v = in[i];");
  CHECK(table.rows[2][0] == "pc +0x1f0");
  CHECK(table.rows[2].back() == "STG.E [R2.64], R5");
  CHECK(std::any_of(lines.notes.begin(), lines.notes.end(),
                    [](const std::string& n) { return n.rfind("9 warp requests at PCs past", 0) == 0; }));
}

namespace {

/// A vtools.bench document of one run at `timestamp` on cuda bf16: each benchmark (name, B, T) with a median.
std::string bench_doc(const std::string& timestamp, const std::vector<std::tuple<std::string, int, int>>& benchmarks,
                      const std::string& metadata_shape = "") {
  std::string doc = R"({"format":"vtools.bench","version":1,"metadata":{"timestamp":")" + timestamp +
                    R"(","backend":"cuda","gpu_name":"NVIDIA H100 80GB HBM3","dtype":"bf16")" + metadata_shape +
                    R"(},"benchmarks":{)";
  double median_ms = 0.2;
  for (const auto& [name, batch, seq] : benchmarks) {
    doc += (doc.back() == '{' ? "\"" : ",\"") + name + R"(":{"timing":{"median":)" + num(median_ms += 0.1) + "}";
    if (batch > 0) doc += R"(,"batch_size":)" + std::to_string(batch) + R"(,"seq_len":)" + std::to_string(seq);
    doc += "}";
  }
  return doc + "}}";
}

std::vector<std::string> legend_names(const std::string& svg) {
  std::vector<std::string> names;
  const auto root = test::parse_xml(svg);
  for (const auto* t : root->find("text", "legend")) names.push_back(t->text);
  return names;
}

}  // namespace

TEST_CASE("render: a trend of 20 series names every one in its legend, inside the chart, in HTML and SVG") {
  // The legend ran on one line past the chart's right edge: from about the 10th series on, names were cut off.
  std::vector<std::tuple<std::string, int, int>> sweep;
  for (int b : {1, 2, 4, 8, 16})
    for (int t : {64, 128, 256, 512}) sweep.push_back({"gpt_tile_medium/B:" + std::to_string(b) + "/T:" + std::to_string(t), b, t});
  REQUIRE(sweep.size() == 20);
  const Page page = build_page({classify_input(bench_doc("2026-11-01T10:00:00Z", sweep), "old.json"),
                                classify_input(bench_doc("2026-11-02T10:00:00Z", sweep), "new.json")});
  REQUIRE(page.sections[0].heading == "Trend over time");
  const Svg& trend = page.sections[0].figures[0].svg;
  auto root = test::parse_xml(trend.markup);
  const std::vector<std::string> legend = legend_names(trend.markup);
  REQUIRE(legend.size() == 20);
  for (std::size_t k = 0; k < sweep.size(); ++k) CHECK(legend[k] == std::get<0>(sweep[k]));
  CHECK(test::marks_outside_viewbox(*root->children[0]).empty());
  CHECK(root->find("polyline", "line").size() == 20 + 10);  // a line per series, a dashed swatch from the 11th on
  // The legend sits above the plot, which keeps the height it has with a one-line legend.
  const double plot_top = std::stod(root->find("rect", "plot")[0]->attr("y"));
  for (const auto* t : root->find("text", "legend")) CHECK(std::stod(t->attr("y")) < plot_top - 9);
  CHECK(trend.height - plot_top == doctest::Approx(380 - 52));
  // The SVG page (and the PNG drawn from it) stacks the taller chart whole: every name is in it once.
  const std::string svg_page = render_page(page, "svg", {});
  for (const auto& [name, b, t] : sweep) CHECK(count(svg_page, "class=\"legend\">" + name + "</text>") == 1);
}

TEST_CASE("render: a trend joins a single run's config with a sweep's key of its shape, as vbench compare pairs them") {
  // "gpt_nano" run at B=4 T=64 and "gpt_nano/B:4/T:64" of a later sweep are one benchmark to vbench compare
  // (formats/bench paired_benchmark); the trend drew them as two series of one point each.
  const std::string single = bench_doc("2026-11-01T10:00:00Z", {{"gpt_nano", 4, 64}, {"gpt2", 4, 64}});
  const std::string sweep =
      bench_doc("2026-11-02T10:00:00Z", {{"gpt_nano/B:1/T:64", 1, 64}, {"gpt_nano/B:4/T:64", 4, 64}});
  // A single run whose benchmarks name no shape runs at the metadata's, as vbench reads it.
  const std::string single_by_metadata = bench_doc("2026-11-03T10:00:00Z", {{"gpt_nano", 0, 0}},
                                                   R"(,"batch_size":4,"seq_len":64)");
  const Page page = build_page({classify_input(single, "single.json"), classify_input(sweep, "sweep.json"),
                                classify_input(single_by_metadata, "again.json")});
  const std::string& svg = page.sections[0].figures[0].svg.markup;
  CHECK(legend_names(svg) == std::vector<std::string>{"gpt_nano/B:4/T:64", "gpt2", "gpt_nano/B:1/T:64"});
  CHECK(page.sections[0].notes.empty());  // one setup: B and T are the same
  auto root = test::parse_xml(svg);
  const auto lines = root->find("polyline", "line");
  REQUIRE(lines.size() == 3);
  CHECK(count(lines[0]->attr("points"), ",") == 3);  // gpt_nano in all three runs
  const Table& history = page.sections[0].tables[0].table;
  CHECK(history.headers == std::vector<std::string>{"run", "source", "gpt_nano/B:4/T:64", "gpt2", "gpt_nano/B:1/T:64"});
  CHECK(history.rows[1] == std::vector<std::string>{"2026-11-02T10:00:00", "sweep.json", "0.4", "–", "0.3"});
  // Another shape of a plain name is not the sweep's key: the B=1 key stays its own line.
  const Page other = build_page({classify_input(bench_doc("2026-11-01T10:00:00Z", {{"gpt_nano", 2, 64}}), "b2.json"),
                                 classify_input(sweep, "sweep.json")});
  CHECK(legend_names(other.sections[0].figures[0].svg.markup) ==
        std::vector<std::string>{"gpt_nano", "gpt_nano/B:1/T:64", "gpt_nano/B:4/T:64"});
}

TEST_CASE("render: the results table shows an absent shape or size as a dash, not 0") {
  const Page page = build_page({classify_input(bench_doc("2026-11-01T10:00:00Z", {{"x", 0, 0}}), "x.json")});
  const Table& results = page.sections[1].tables.at(0).table;
  REQUIRE(results.rows.size() == 1);
  CHECK(results.rows[0][1] == "–/–/–");
  CHECK(results.rows[0][2] == "–");
  CHECK(results.rows[0][3] == "–");
}
