#include "tools/vrender/svg_chart.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "tests/vrender/svg_tree.hpp"
#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/svg_markup.hpp"

using namespace vtools::vrender;
using vtools::Table;
using test::parse_xml;

namespace {
BarChart two_series() {
  BarChart c{"Latency", {"gpt_nano", "gpt_micro", "gpt<2>"}, {}, {"latency", "ms"}, {}};
  c.series.push_back({"mean", {0.2, 0.34, 4.8}, {0.15, 0.3, 4.5}, {0.25, 0.38, 5.1}, {}});
  c.series.push_back({"median", {0.21, kNoValue, 4.7}, {}, {}, {}});
  return c;
}
}  // namespace

TEST_CASE("svg_chart: grouped bars draw one bar per finite value with error bars and tooltips") {
  Svg svg = render_bar_chart(two_series());
  auto root = parse_xml(svg.markup);
  auto bars = root->find("rect", "bar");
  CHECK(bars.size() == 5);  // 3 + 2 (the NaN median is skipped)
  CHECK(root->find("line", "err").size() == 9);  // 3 error bars x (stem + 2 caps)
  CHECK(bars[0]->title() == "mean, gpt_nano: 0.2 ms");
  CHECK(bars[0]->attr("fill") == "#4e79a7");
  CHECK(bars[1]->attr("fill") == "#f28e2b");  // second series of the first group, second colour
  // Category labels are escaped text, legend names both series.
  auto texts = root->find("text");
  int labels = 0, legend = 0;
  for (const auto* t : texts) {
    labels += t->text == "gpt&lt;2&gt;";
    legend += t->attr("class") == "legend";
  }
  CHECK(labels == 1);
  CHECK(legend == 2);
  CHECK(root->children.front()->title() == "Latency");
}

TEST_CASE("svg_chart: bar heights are proportional to values") {
  BarChart c{"", {"a", "b"}, {{"s", {1, 2}, {}, {}, {}}}, {"v", ""}, {}};
  auto root = parse_xml(render_bar_chart(c).markup);
  auto bars = root->find("rect", "bar");
  REQUIRE(bars.size() == 2);
  CHECK(std::stod(bars[1]->attr("height")) == doctest::Approx(2 * std::stod(bars[0]->attr("height"))).epsilon(0.01));
}

TEST_CASE("svg_chart: the same model renders to the same bytes") {
  CHECK(render_bar_chart(two_series()).markup == render_bar_chart(two_series()).markup);
  HeatMap m{"h", 2, 3, {1, 0, 2, 3, kNoValue, 4}, {"r0", "r1"}, {"x", "B"}, {"y", ""}, 0, 96, "bytes", "B"};
  CHECK(render_heat_map(m).markup == render_heat_map(m).markup);
}

TEST_CASE("svg_chart: heat map draws non-empty cells on the colour ramp with a scale") {
  HeatMap m{"Accesses", 2, 3, {1, 0, 2, 3, kNoValue, 4}, {"(0,0,0)", "(1,0,0)"}, {"offset", "B"}, {"block", ""}, 0, 96,
            "bytes touched", "B"};
  auto root = parse_xml(render_heat_map(m).markup);
  std::vector<const test::Element*> cells;
  root->collect([](const test::Element& e) { return e.attr("class") == "cell" && !e.title().empty(); }, cells);
  CHECK(cells.size() == 4);  // 0 and NaN are empty
  CHECK(cells.back()->attr("fill") == "#fde725");  // the maximum is the top of the ramp
  CHECK(cells.back()->title() == "(1,0,0), 64 B .. 96 B: 4 B bytes touched");
  CHECK(root->find("rect", "cell").size() == 4 + 32);  // plus the 32-step colour scale
}

TEST_CASE("svg_chart: lane chart draws one row per lane and one span per interval") {
  LaneChart c{"SMEM liveness", {}, {"op index", ""}, 0, 10, false, {}, 900, 22};
  c.lanes.push_back({"a_smem", {{0, 4, 0, "a", "a_smem live [0, 4)"}}});
  c.lanes.push_back({"b_smem", {{0, 4, 1, "", "b"}, {6, 9, 1, "", "b again"}}});
  Svg svg = render_lane_chart(c);
  auto root = parse_xml(svg.markup);
  auto spans = root->find("rect", "span");
  REQUIRE(spans.size() == 3);
  CHECK(spans[0]->title() == "a_smem live [0, 4)");
  CHECK(std::stod(spans[2]->attr("width")) == doctest::Approx(std::stod(spans[0]->attr("width")) * 0.75).epsilon(0.01));
  CHECK(root->find("svg", "zoomable").empty());
  CHECK(svg.height == doctest::Approx(48 + 2 * 22 + 48));
}

TEST_CASE("svg_chart: a zoomable lane chart nests its spans in an svg with a viewBox") {
  LaneChart c{"Timeline", {{"GPU 0 · stream 7", {{0, 1, 0, "", "k"}}}}, {"time", "µs"}, kNoValue, kNoValue, true, {"k"}, 900, 22};
  auto root = parse_xml(render_lane_chart(c).markup);
  auto inner = root->find("svg", "zoomable");
  REQUIRE(inner.size() == 1);
  CHECK(inner[0]->attr("preserveAspectRatio") == "none");
  CHECK(inner[0]->find("rect", "span").size() == 1);
}

TEST_CASE("svg_chart: xy chart draws a polyline and a point per finite value") {
  XYChart c{"Trend", {{"gpt_nano", {0, 1, 2}, {0.2, kNoValue, 0.19}, {}}}, {"run", ""}, {"median", "ms"}, {"a", "b", "c"}};
  auto root = parse_xml(render_xy_chart(c).markup);
  CHECK(root->find("circle").size() == 2);
  CHECK(root->find("polyline").size() == 1);
  CHECK(root->find("circle")[0]->title() == "gpt_nano: 0.2 ms");
}

TEST_CASE("svg_chart: box chart places boxes by offset and draws the limit line") {
  BoxChart c{"SMEM", {{0, 4, 0, 49152, 0, "a", "a"}, {0, 4, 49152, 147456, 1, "b", "b"}}, {"op", ""}, {"offset", "B"}, {{232448, "limit"}}};
  auto root = parse_xml(render_box_chart(c).markup);
  auto boxes = root->find("rect", "span");
  REQUIRE(boxes.size() == 2);
  CHECK(std::stod(boxes[1]->attr("height")) == doctest::Approx(2 * std::stod(boxes[0]->attr("height"))).epsilon(0.01));
  CHECK(root->find("line", "ref").size() == 1);
}

TEST_CASE("svg_chart: waterfall floats each change on the running total, up red, down green, totals from 0") {
  WaterfallChart c{"GPU time", {{"base", 10, true, ""}, {"k1", 4, false, ""}, {"k2", -2, false, "k2: -2 ms"},
                                {"candidate", 12, true, ""}},
                   {"GPU time", "ms"}};
  auto root = parse_xml(render_waterfall_chart(c).markup);
  auto bars = root->find("rect", "bar");
  REQUIRE(bars.size() == 4);
  auto top = [&](std::size_t i) { return std::stod(bars[i]->attr("y")); };
  auto bottom = [&](std::size_t i) { return top(i) + std::stod(bars[i]->attr("height")); };
  auto height = [&](std::size_t i) { return std::stod(bars[i]->attr("height")); };
  CHECK(bars[0]->attr("fill") == "#4e79a7");  // totals in the first palette colour
  CHECK(bars[1]->attr("fill") == "#e15759");  // increase: red
  CHECK(bars[2]->attr("fill") == "#59a14f");  // decrease: green
  CHECK(bars[3]->attr("fill") == "#4e79a7");
  CHECK(height(1) == doctest::Approx(0.4 * height(0)).epsilon(0.01));  // drawn from 0: heights are values
  CHECK(bottom(1) == doctest::Approx(top(0)).epsilon(0.001));            // k1 starts where base ends
  CHECK(top(2) == doctest::Approx(top(1)).epsilon(0.001));               // k2 starts at 14 and goes down
  CHECK(bottom(2) == doctest::Approx(top(3)).epsilon(0.001));            // ... to 12, the candidate total
  CHECK(bottom(0) == doctest::Approx(bottom(3)).epsilon(0.001));
  CHECK(bars[1]->title() == "k1: +4 ms");
  CHECK(bars[2]->title() == "k2: -2 ms");
  CHECK(root->find("line", "link").size() == 3);
}

TEST_CASE("svg_chart: a waterfall of small changes to a large total zooms its axis and says so") {
  WaterfallChart c{"", {{"base", 1000, true, ""}, {"k", 1, false, ""}, {"cand", 1001, true, ""}}, {"t", "ms"}};
  auto root = parse_xml(render_waterfall_chart(c).markup);
  auto bars = root->find("rect", "bar");
  REQUIRE(bars.size() == 3);
  CHECK(std::stod(bars[1]->attr("height")) > 20);  // 1 in 1000 from 0 would be under a pixel
  bool says = false;
  for (const auto* t : root->find("text")) says = says || t->text == "axis does not start at 0";
  CHECK(says);
}

TEST_CASE("svg_chart: a waterfall whose running total would overflow keeps the last finite one") {
  WaterfallChart c{"", {{"base", 0, true, ""}, {"a", 1e308, false, ""}, {"b", 1e308, false, ""}, {"end", 1, true, ""}},
                   {"t", "ms"}};
  auto root = parse_xml(render_waterfall_chart(c).markup);
  auto bars = root->find("rect", "bar");
  REQUIRE(bars.size() == 4);
  for (const auto* b : bars) CHECK(std::stod(b->attr("height")) <= c.height);  // an infinite total gave a 0..1 axis
  CHECK(std::stod(bars[2]->attr("height")) == 1);  // the overflowing change is drawn as none
}

TEST_CASE("svg_chart: tables render header and rows, and say how many rows were cut") {
  Table t;
  t.headers = {"config", "ms"};
  for (int i = 0; i < 5; ++i) t.add_row({"c" + std::to_string(i), std::to_string(i)});
  auto root = parse_xml(render_table(t, 3).markup);
  CHECK(root->find("text", "th").size() == 2);
  CHECK(root->find("text", "td").size() == 6);
  CHECK(root->find("text", "legend")[0]->text == "\xe2\x80\xa6 2 more rows (see the HTML page)");
}

TEST_CASE("svg_chart: markup escapes XML and numbers are locale-free and short") {
  CHECK(xml_escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;");
  CHECK(xml_escape("bad \xff byte") == "bad \xef\xbf\xbd byte");
  // Well-formed UTF-8 that XML 1.0 still refuses: U+FFFE, U+FFFF, a surrogate, an overlong '/'; kept: U+10FFFF, é.
  CHECK(xml_escape("a\xef\xbf\xbe\xef\xbf\xbf\xed\xa0\x80\xc0\xaf") ==
        "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(xml_escape("\xf4\x8f\xbf\xbf \xc3\xa9") == "\xf4\x8f\xbf\xbf \xc3\xa9");
  CHECK(num(1.5) == "1.5");
  CHECK(num(2.0) == "2");
  CHECK(num(-0.0001) == "0");
  CHECK(num(std::nan("")) == "0");
}

TEST_CASE("svg_chart: wrap_text breaks at spaces, cuts words longer than a line and caps the lines") {
  CHECK(wrap_text("one two three four", 9) == std::vector<std::string>{"one two", "three", "four"});
  CHECK(wrap_text("", 10) == std::vector<std::string>{""});
  CHECK(wrap_text("a /very/long/path/name.json b", 8) ==
        std::vector<std::string>{"a", "/very/lo", "ng/path/", "name.jso", "n b"});
  CHECK(wrap_text("µs µs µs µs", 8) == std::vector<std::string>{"µs µs µs", "µs"});  // code points, not bytes
  CHECK(wrap_text("one two three four five six", 9, 2) == std::vector<std::string>{"one two", "three …"});
  CHECK(wrap_text("one two threefold four", 9, 2) == std::vector<std::string>{"one two", "threefol…"});
}

TEST_CASE("svg_chart: reference line labels sit right of the plot, clear of every bar and point") {
  // Issue 45, item 20: "no change" was drawn over the last bar of a speedup chart.
  BarChart bars{"Speedup", {"a", "b", "c"}, {{"speedup", {4.3, 4.9, 2.1}, {}, {}, {}}}, {"speedup", "×"},
                {{1.0, "no change"}}};
  auto root = parse_xml(render_bar_chart(bars).markup);
  auto labels = root->find("text", "reflabel");
  REQUIRE(labels.size() == 1);
  const double label_x = std::stod(labels[0]->attr("x"));
  CHECK(labels[0]->attr("text-anchor").empty());  // starts at x and runs right, into the margin
  for (const auto* bar : root->find("rect", "bar"))
    CHECK(std::stod(bar->attr("x")) + std::stod(bar->attr("width")) < label_x);
  CHECK(label_x + text_width("no change", 11) <= bars.width);
  XYChart xy{"Speedup vs B", {{"T=32", {1, 4}, {4.3, 4.4}, {}}}, {"B", "", true}, {"speedup", "×"}};
  xy.ref_lines = {{1.0, "no change"}};
  auto xy_root = parse_xml(render_xy_chart(xy).markup);
  const double xy_label_x = std::stod(xy_root->find("text", "reflabel").at(0)->attr("x"));
  for (const auto* c : xy_root->find("circle")) CHECK(std::stod(c->attr("cx")) < xy_label_x);
}

TEST_CASE("svg_chart: dodged series keep equal points apart") {
  // Issue 45, item 20: two sweep lines through the same (B, speedup) drew one point over the other.
  XYChart c{"", {{"T=32", {1, 4}, {4.3, 4.4}, {}}, {"T=64", {1, 4}, {4.3, 4.2}, {}}}, {"B", "", true, {1, 4}},
            {"speedup", "×"}};
  c.dodge_px = 5;
  auto root = parse_xml(render_xy_chart(c).markup);  // owns the elements find() points to
  auto circles = root->find("circle");
  REQUIRE(circles.size() == 4);
  CHECK(std::stod(circles[2]->attr("cx")) - std::stod(circles[0]->attr("cx")) == doctest::Approx(5));
  CHECK(circles[0]->attr("cy") == circles[2]->attr("cy"));
}

TEST_CASE("svg_chart: distribution chart zooms to the data with a box, median, whiskers and the samples") {
  // Issue 45, item 24: six bars from 0 per config whose tops differed by 2% showed nothing of the spread.
  DistributionChart c{"Latency", {{"gpt_nano", 0.1893, 0.1945, 0.2074, 0.2204, 0.2205, 0.2205,
                                   {0.1893, 0.2, 0.2074, 0.21, 0.2205}, "gpt_nano"}},
                      {"latency", "ms"}};
  auto root = parse_xml(render_distribution_chart(c).markup);
  const auto* plot = root->find("rect", "plot").at(0);
  const double plot_h = std::stod(plot->attr("height"));
  auto boxes = root->find("rect", "bar");
  REQUIRE(boxes.size() == 1);
  CHECK(std::stod(boxes[0]->attr("height")) > 0.5 * plot_h);  // p5..p95 fills most of a zoomed axis
  CHECK(boxes[0]->title() == "gpt_nano");
  CHECK(root->find("line", "median").size() == 1);
  CHECK(root->find("circle", "dot").size() == 5);
  for (const auto* t : root->find("text", "tick")) CHECK(t->text != "0");  // the axis does not start at 0
  // Categories far apart in scale share the axis as % of their own median.
  c.items.push_back({"gpt2", 4.52, 4.58, 4.85, 5.13, 5.28, 5.31, {}, "gpt2"});
  c.relative = true;
  auto rel_root = parse_xml(render_distribution_chart(c).markup);  // owns the elements find() points to
  auto rel = rel_root->find("rect", "bar");
  REQUIRE(rel.size() == 2);
  CHECK(std::stod(rel[1]->attr("height")) > 0.5 * std::stod(rel[0]->attr("height")));
}

TEST_CASE("svg_chart: a legend too wide for one line wraps into rows of columns inside the chart") {
  // A trace's timeline names its ten busiest kernels, 24 characters each: on one line they ran past the right edge.
  LaneChart c{"Timeline", {{"stream 7", {{0, 1, 0, "", ""}}}}, {"time", "ns"}, kNoValue, kNoValue, false, {}, 900, 22, {}};
  for (int k = 0; k < 12; ++k) c.legend.push_back("kernel_" + std::to_string(k) + "_with_a_long_name");
  const Svg one_row = render_lane_chart(LaneChart{c.title, c.lanes, c.x, kNoValue, kNoValue, false, {"a", "b"}, 900, 22, {}});
  const Svg svg = render_lane_chart(c);
  auto root = parse_xml(svg.markup);
  CHECK(test::marks_outside_viewbox(*root->children[0]).empty());
  auto past_edge = parse_xml(R"(<svg viewBox="0 0 100 50"><rect x="0" y="0" width="10" height="10"/>)"
                             R"(<text x="80" y="20" class="legend">kernel_9</text></svg>)");
  CHECK(test::marks_outside_viewbox(*past_edge->children[0]).size() == 1);  // 8 characters at 6.6 px from x=80
  std::vector<std::string> names;
  std::set<std::string> columns, rows;
  for (const auto* t : root->find("text", "legend")) {
    names.push_back(t->text);
    columns.insert(t->attr("x"));
    rows.insert(t->attr("y"));
  }
  CHECK(names == c.legend);
  CHECK(columns.size() == 4);  // 900 px hold four columns of the widest name
  CHECK(rows.size() == 3);
  CHECK(svg.height == doctest::Approx(one_row.height + 2 * kLegendRowPx));  // the lanes keep their height
  // A legend that fits stays one right-aligned line ending at the right margin.
  auto short_root = parse_xml(one_row.markup);
  const auto legend = short_root->find("text", "legend");
  REQUIRE(legend.size() == 2);
  CHECK(legend[0]->attr("y") == legend[1]->attr("y"));
  CHECK(std::stod(legend[1]->attr("x")) + text_width("b", 11) + 12 == doctest::Approx(900 - 16));
}

TEST_CASE("svg_chart: line series past the palette's ten colours are dashed, in the plot and the legend") {
  XYChart c{"", {}, {"x", ""}, {"y", ""}, {}, true, {}, 720, 340};
  for (int k = 0; k < 12; ++k) c.series.push_back({"s" + std::to_string(k), {0, 1}, {1.0 + k, 2.0 + k}, {}});
  auto root = parse_xml(render_xy_chart(c).markup);
  const auto lines = root->find("polyline", "line");
  REQUIRE(lines.size() == 2 + 12);  // the two dashed swatches of the legend first, then a line per series
  CHECK(lines[0]->attr("stroke-dasharray") == "6 3");
  CHECK(lines[2]->attr("stroke-dasharray").empty());
  CHECK(lines[2 + 10]->attr("stroke") == lines[2]->attr("stroke"));  // the 11th series has the 1st one's colour ...
  CHECK(lines[2 + 10]->attr("stroke-dasharray") == "6 3");           // ... and a dash
  CHECK(series_dash(9).empty());
  CHECK(series_dash(20) == "2 3");
}
