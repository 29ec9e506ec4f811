#include "libcommon/json_writer.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

using namespace vtools;
using Layout = JsonWriter::Layout;

TEST_CASE("json_writer: layout puts each element of a lines container on its own line") {
  std::string out;
  JsonWriter w(out);
  w.begin_object(Layout::kLines);
  w.field("format", "vtools.trace");
  w.key("kernels");
  w.begin_array(Layout::kLines);
  w.begin_object();
  w.field("name", "k");
  w.key("grid");
  w.begin_array();
  w.value(1);
  w.value(2);
  w.end_array();
  w.end_object();
  w.begin_object();
  w.end_object();
  w.end_array();
  w.key("empty");
  w.begin_array(Layout::kLines);
  w.end_array();
  w.field("partial", false);
  w.end_object();
  CHECK(out ==
        "{\n"
        "  \"format\": \"vtools.trace\",\n"
        "  \"kernels\": [\n"
        "    {\"name\": \"k\", \"grid\": [1, 2]},\n"
        "    {}\n"
        "  ],\n"
        "  \"empty\": [],\n"
        "  \"partial\": false\n"
        "}\n");
}

TEST_CASE("json_writer: an array of integers is written like the same array element by element") {
  std::string by_element, whole;
  JsonWriter a(by_element), b(whole);
  const std::array<std::int64_t, 3> grid{1024, -2, std::numeric_limits<std::int64_t>::min()};
  a.begin_object();
  a.key("grid");
  a.begin_array();
  for (auto v : grid) a.value(v);
  a.end_array();
  a.key("none");
  a.begin_array();
  a.end_array();
  a.end_object();
  b.begin_object();
  b.field("grid", grid);
  b.field("none", std::array<std::uint64_t, 0>{});
  b.end_object();
  CHECK(whole == by_element);
  CHECK(whole == "{\"grid\": [1024, -2, -9223372036854775808], \"none\": []}\n");
}

TEST_CASE("json_writer: scalars round-trip through the parser") {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("u64", std::numeric_limits<std::uint64_t>::max());
  w.field("i64", std::numeric_limits<std::int64_t>::min());
  w.field("neg", -3);
  w.field("half", 0.5);
  w.field("nan", std::numeric_limits<double>::quiet_NaN());
  w.field("yes", true);
  w.field("none", nullptr);
  w.field("sub", OrderedJson{{"a", 1}});
  w.end_object();
  auto j = parse_json(out, "t");
  CHECK(j["u64"].get<std::uint64_t>() == std::numeric_limits<std::uint64_t>::max());
  CHECK(j["i64"].get<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  CHECK(j["neg"] == -3);
  CHECK(j["half"] == 0.5);
  CHECK(j["nan"].is_null());
  CHECK(j["yes"] == true);
  CHECK(j["none"].is_null());
  CHECK(j["sub"]["a"] == 1);
}

TEST_CASE("json_writer: strings are escaped and invalid UTF-8 replaced, like dump_json") {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % 12);
    for (int c = 0; c < n; ++c) s.push_back(static_cast<char>(rng() % 256));
    std::string out;
    JsonWriter w(out);
    w.begin_array();
    w.value(s);
    w.end_array();
    OrderedJson expected = OrderedJson::array({s});
    CHECK(parse_json(out, "t") == parse_json(dump_json(expected), "t"));
  }
  std::string out;
  JsonWriter w(out);
  w.value(std::string_view("tab\there \"q\" back\\slash \xc3\xa9"));
  CHECK(parse_json(out, "t") == "tab\there \"q\" back\\slash \xc3\xa9");
}

TEST_CASE("json_writer: elements formatted apart and appended equal elements written in place") {
  auto write_three = [](JsonWriter& w, int first) {
    for (int i = first; i < first + 3; ++i) {
      w.begin_object();
      w.field("i", i);
      w.end_object();
    }
  };
  std::string whole;
  JsonWriter w(whole);
  w.begin_object(Layout::kLines);
  w.key("items");
  w.begin_array(Layout::kLines);
  write_three(w, 0);
  write_three(w, 3);
  w.end_array();
  w.end_object();

  std::string joined, part1, part2;
  JsonWriter a(part1, 2), b(part2, 2);
  write_three(a, 0);
  write_three(b, 3);
  JsonWriter j(joined);
  j.begin_object(Layout::kLines);
  j.key("items");
  j.begin_array(Layout::kLines);
  j.before_elements();
  joined += part1;  // as trace_writer sends blocks: each after the first starts with the comma between them
  joined += ',' + part2;
  j.end_array();
  j.end_object();
  CHECK(joined == whole);
}

TEST_CASE("json_writer: doubles read back exactly, stay doubles, and are never longer than nlohmann's") {
  std::mt19937_64 rng(20261129);
  std::uniform_int_distribution<int> exponent(-330, 320);
  for (int i = 0; i < 200000; ++i) {
    double d;
    switch (i % 3) {
      case 0:  // an average of counts, as access records hold
        d = static_cast<double>(rng() % 100000000) / static_cast<double>(1 + rng() % 1000000);
        break;
      case 1:
        d = static_cast<double>(rng() % 64);
        break;
      default:
        d = std::ldexp(static_cast<double>(rng() >> 11), exponent(rng) - 53) * (rng() % 2 ? 1 : -1);
    }
    std::string out;
    JsonWriter w(out);
    w.value(d);
    const OrderedJson j = parse_json(out, "t");
    const std::string peer = OrderedJson(d).dump();
    INFO(out << " (nlohmann: " << peer << ")");
    REQUIRE(j.is_number_float());
    CHECK(j.get<double>() == d);
    CHECK(out.size() <= peer.size() + 1);  // + the newline after a top-level value
  }
}
