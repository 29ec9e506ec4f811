#include "libcommon/field_reader.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "libcommon/error.hpp"

using namespace vtools;

namespace {

/// The message (file included) and exit category of what `read` throws.
template <class F>
std::string refusal(F read) {
  try {
    read();
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

const OrderedJson kDoc = OrderedJson::parse(R"({
  "benchmarks": {"gpt2": {"timing": {"median": 1.5, "n": 3, "big": 1e300, "neg": -1, "s": "x", "flag": true,
                                     "none": null, "u64": 18446744073709551615, "float_int": 2.0}}},
  "kernels": [{"grid": [1, 2, "a"]}, 3],
  "names": ["a", 4],
  "samples": [1, null, 2.5],
  "dtype": "bf61",
  "long": "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
  "odd keys": {"a.b": 1}
})");

}  // namespace

TEST_CASE("field_reader: paths run from the document root through members and elements") {
  const FieldReader root(kDoc, "", "d.json");
  const FieldReader timing = root.required_object("benchmarks").required_object("gpt2").required_object("timing");
  CHECK(timing.path() == "benchmarks.gpt2.timing");
  CHECK(timing.path("median") == "benchmarks.gpt2.timing.median");
  CHECK(timing.path("samples", 4) == "benchmarks.gpt2.timing.samples[4]");
  CHECK(refusal([&] { (void)timing.integer<std::uint32_t>("big", 0); }) ==
        "d.json: benchmarks.gpt2.timing.big: expected an integer from 0 to 4294967295, got 1e+300");
  std::vector<std::string> paths;
  CHECK(refusal([&] { root.for_each("kernels", [&](const FieldReader& k) { paths.push_back(k.path("grid", 2)); }); }) ==
        "d.json: kernels[1]: expected an object, got 3");
  CHECK(paths == std::vector<std::string>{"kernels[0].grid[2]"});
  // Keys that are not plain names are quoted, so a path never carries raw bytes and stays unambiguous.
  const FieldReader odd = root.required_object("odd keys");
  CHECK(odd.path() == R"(["odd keys"])");
  CHECK(odd.path("a.b") == R"(["odd keys"]["a.b"])");
  CHECK(refusal([&] { (void)odd.string("a.b"); }) == R"(d.json: ["odd keys"]["a.b"]: expected a string, got 1)");
}

TEST_CASE("field_reader: integers are JSON integers within the C++ type's range, never cast") {
  const FieldReader t(kDoc["benchmarks"]["gpt2"]["timing"], "t", "d.json");
  CHECK(t.integer<int>("n", 0) == 3);
  CHECK(t.required_integer<std::uint64_t>("u64") == 18446744073709551615ull);
  CHECK(refusal([&] { (void)t.integer<std::int64_t>("u64", 0); }) ==
        "d.json: t.u64: expected an integer from -9223372036854775808 to 9223372036854775807, got "
        "18446744073709551615");
  CHECK(refusal([&] { (void)t.integer<std::uint64_t>("neg", 0); }) ==
        "d.json: t.neg: expected an integer from 0 to 18446744073709551615, got -1");
  CHECK(t.integer<std::int8_t>("neg", 0) == -1);
  CHECK(refusal([&] { (void)t.integer<int>("float_int", 0); }) ==
        "d.json: t.float_int: expected an integer from -2147483648 to 2147483647, got 2.0");
  CHECK(refusal([&] { (void)t.integer<int>("s", 0); }) ==
        "d.json: t.s: expected an integer from -2147483648 to 2147483647, got \"x\"");
  CHECK(refusal([&] { (void)t.integer<int>("flag", 0); }) ==
        "d.json: t.flag: expected an integer from -2147483648 to 2147483647, got true");
  const FieldReader grid(kDoc["kernels"][0], "kernels[0]", "d.json");
  CHECK(refusal([&] { (void)grid.integers<int>("grid"); }) ==
        "d.json: kernels[0].grid[2]: expected an integer from -2147483648 to 2147483647, got \"a\"");
}

TEST_CASE("field_reader: absent and null give the fallback; required fields say they are missing") {
  const FieldReader t(kDoc["benchmarks"]["gpt2"]["timing"], "t", "d.json");
  CHECK(t.integer<int>("none", 7) == 7);
  CHECK(t.integer<int>("absent", 8) == 8);
  CHECK(!t.optional_integer<int>("none"));
  CHECK(std::isnan(t.number("absent", NAN)));
  CHECK(t.string("none", "fb") == "fb");
  CHECK(t.boolean("none", true));
  CHECK(!t.object("none"));
  CHECK(t.array("none") == nullptr);
  CHECK(t.strings("absent").empty());
  CHECK(refusal([&] { (void)t.required_integer<int>("none"); }) == "d.json: t.none: missing, expected an integer");
  CHECK(refusal([&] { (void)t.required_string("absent"); }) == "d.json: t.absent: missing, expected a string");
  CHECK(refusal([&] { (void)t.required_object("absent"); }) == "d.json: t.absent: missing, expected an object");
  CHECK(refusal([&] { (void)t.required_array("none"); }) == "d.json: t.none: missing, expected an array");
}

TEST_CASE("field_reader: every other type is refused as 'expected X, got V'") {
  const FieldReader root(kDoc, "", "d.json");
  const FieldReader t(kDoc["benchmarks"]["gpt2"]["timing"], "t", "d.json");
  CHECK(t.number("median", 0) == 1.5);
  CHECK(t.number("n", 0) == 3.0);  // an integer is a number
  CHECK(refusal([&] { (void)t.number("s", 0); }) == "d.json: t.s: expected a number, got \"x\"");
  CHECK(refusal([&] { (void)t.string("median"); }) == "d.json: t.median: expected a string, got 1.5");
  CHECK(refusal([&] { (void)t.boolean("s", false); }) == "d.json: t.s: expected true or false, got \"x\"");
  CHECK(refusal([&] { (void)root.object("kernels"); }) == "d.json: kernels: expected an object, got [{\"grid\":[1,2,\"a\"]},3]");
  CHECK(refusal([&] { (void)root.array("benchmarks"); }) == "d.json: benchmarks: expected an array, got an object");
  CHECK(refusal([&] { (void)root.strings("names"); }) == "d.json: names[1]: expected a string, got 4");
  CHECK(refusal([&] { (void)root.numbers("samples"); }) == "d.json: samples[1]: expected a number, got null");
  const std::vector<double> samples = root.numbers("samples", -1.0);
  CHECK(samples == std::vector<double>{1, -1, 2.5});
  CHECK(refusal([&] { (void)FieldReader(kDoc["names"], "names", "d.json"); }) ==
        "d.json: names: expected an object, got [\"a\",4]");
}

TEST_CASE("field_reader: long strings are cut, names from a fixed set suggest the closest") {
  const FieldReader root(kDoc, "", "d.json");
  CHECK(refusal([&] { (void)root.number("long", 0); }) ==
        "d.json: long: expected a number, got \"abcdefghijklmnopqrstuvwxyzabcdefghijklm...");
  CHECK(refusal([&] { (void)root.one_of("dtype", {"fp32", "tf32", "bf16"}); }) ==
        "d.json: dtype: expected \"fp32\", \"tf32\" or \"bf16\", got \"bf61\"; did you mean \"bf16\"?");
  CHECK(root.one_of("absent", {"a"}, "a") == "a");
  CHECK(describe_json_value(OrderedJson::array({1})) == "[1]");
  CHECK(describe_json_value(OrderedJson::object()) == "{}");
  CHECK(describe_json_value(OrderedJson(std::vector<int>(100, 7))) == "an array of 100 elements");
  CHECK(describe_json_value(OrderedJson::array({"a\n"})) == "[\"a\\n\"]");  // escaped, never a raw newline
  CHECK(describe_json_value(OrderedJson("\xc3\xa9")) == "\"\xc3\xa9\"");
}

TEST_CASE("field_reader: fail and expected name a member, an element or the object itself") {
  const FieldReader k(kDoc["kernels"][0], "kernels", 0, "d.json");
  CHECK(k.path() == "kernels[0]");
  CHECK(refusal([&] { k.fail("end_ns", "expected at least start_ns (50), got 40"); }) ==
        "d.json: kernels[0].end_ns: expected at least start_ns (50), got 40");
  CHECK(refusal([&] { k.expected("grid", "an array of 3 integers", kDoc["kernels"][0]["grid"], 1); }) ==
        "d.json: kernels[0].grid[1]: expected an array of 3 integers, got [1,2,\"a\"]");
  CHECK(refusal([&] { k.fail("", "names no kernel"); }) == "d.json: kernels[0]: names no kernel");
}

TEST_CASE("field_reader: get reads into a field of any type, a narrower range is checked and named") {
  const FieldReader t(kDoc["benchmarks"]["gpt2"]["timing"], "t", "d.json");
  std::uint32_t n = 9;
  double median = 0;
  std::string s = "keep";
  bool flag = false;
  std::int64_t absent = -1;
  t.get("n", n);
  t.get("median", median);
  t.get("s", s);
  t.get("flag", flag);
  t.get("absent", absent);
  t.get("none", s);
  CHECK(n == 3);
  CHECK(median == 1.5);
  CHECK(s == "x");
  CHECK(flag);
  CHECK(absent == -1);  // absent and null leave the field as it was
  CHECK(t.integer<std::int64_t>("n", -1, 0) == 3);
  CHECK(refusal([&] { (void)t.integer<std::int64_t>("neg", -1, 0); }) ==
        "d.json: t.neg: expected an integer from 0 to 9223372036854775807, got -1");
  CHECK(refusal([&] { (void)t.required_integer<int>("n", 4, 8); }) ==
        "d.json: t.n: expected an integer from 4 to 8, got 3");
}

TEST_CASE("field_reader: a row of a table is read as the object its columns name") {
  const Columns columns({"launch", "block", "type", "launch"});  // a repeated name reads the first
  const OrderedJson table = OrderedJson::parse(R"([[3, [1, 2, 3], "float*", 9], [4, null, "x", 0], [1, 2]])");
  const FieldReader row(table[0], columns, "accesses", 0, "t.json");
  CHECK(row.required_integer<int>("launch") == 3);
  CHECK(row.string("type") == "float*");
  CHECK(row.integers<int>("block") == std::vector<int>{1, 2, 3});
  CHECK(row.find("absent") == nullptr);
  const FieldReader nulls(table[1], columns, "accesses", 1, "t.json");
  CHECK(nulls.array("block") == nullptr);  // null reads as absent, as in an object
  CHECK(refusal([&] { (void)nulls.integer<int>("type", 0); }) ==
        "t.json: accesses[1].type: expected an integer from -2147483648 to 2147483647, got \"x\"");
  CHECK(refusal([&] { FieldReader(table[2], columns, "accesses", 2, "t.json"); }) ==
        "t.json: accesses[2]: expected an array of 4 values (one per column), got [1,2]");
  CHECK(refusal([&] { FieldReader(kDoc, columns, "accesses", 7, "t.json"); }) ==
        "t.json: accesses[7]: expected an array of 4 values (one per column), got an object");
  CHECK(columns.position("block") == 1);
  CHECK(columns.position("nope") == FieldReader::npos);
}

TEST_CASE("field_reader: lookups in any order find every member, an absent one after a present one included") {
  const OrderedJson obj = OrderedJson::parse(R"({"a": 1, "b": 2, "c": 3, "d": null})");
  const FieldReader f(obj, "", "in.json");
  CHECK(f.integer<int>("c", 0) == 3);
  CHECK(f.integer<int>("a", 0) == 1);
  CHECK(f.integer<int>("c", 0) == 3);
  CHECK_FALSE(f.has("zz"));
  CHECK(f.integer<int>("b", 0) == 2);
  CHECK_FALSE(f.has("d"));
  CHECK(f.integer<int>("b", 0) == 2);
  CHECK(f.integer<int>("a", 0) == 1);
}
