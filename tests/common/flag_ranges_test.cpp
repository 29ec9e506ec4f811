#include "libcommon/flag_ranges.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace vtools;

namespace {
// The validator's message for `value` ("" when it is accepted).
std::string check(const CLI::Validator& v, std::string value) { return v(value); }
}  // namespace

TEST_CASE("flag_ranges: integers are whole, in range, and never wrap or saturate") {
  const auto seed = unsigned64_range();
  CHECK(check(seed, "0") == "");
  CHECK(check(seed, "18446744073709551615") == "");
  CHECK(check(seed, "+7") == "");
  CHECK(check(seed, "-1") == "expected an integer from 0 to 18446744073709551615, got '-1'");
  CHECK(check(seed, "18446744073709551616") ==
        "expected an integer from 0 to 18446744073709551615, got '18446744073709551616'");
  CHECK(check(seed, "12345678901234567890123") ==
        "expected an integer from 0 to 18446744073709551615, got '12345678901234567890123'");
  CHECK(check(seed, "1e3") != "");
  CHECK(check(seed, " 1") != "");
  CHECK(check(seed, "") != "");

  const auto width = integer_range(1, 32767);
  CHECK(check(width, "1") == "");
  CHECK(check(width, "32767") == "");
  CHECK(check(width, "0") == "expected an integer from 1 to 32767, got '0'");
  CHECK(check(width, "-1") == "expected an integer from 1 to 32767, got '-1'");
  CHECK(check(width, "99999999999999999999") == "expected an integer from 1 to 32767, got '99999999999999999999'");
  CHECK(check(width, "12px") != "");
}

TEST_CASE("flag_ranges: integer lists are checked whole, empty items refused") {
  const auto list = integer_list(1, 100);
  CHECK(check(list, "4") == "");
  CHECK(check(list, "1,4,16") == "");
  CHECK(check(list, "4,,8") == "expected integers from 1 to 100 separated by commas, got '4,,8'");
  CHECK(check(list, ",4") != "");
  CHECK(check(list, "4,") != "");
  CHECK(check(list, "") != "");
  CHECK(check(list, "4,101") != "");
  CHECK(check(list, "4, 8") != "");
  CHECK(integer_list_values("1,4,16") == std::vector<int>{1, 4, 16});
  CHECK(integer_list_values("1\n2,3") == std::vector<int>{1, 2, 3});  // a repeated flag's values, joined
}

TEST_CASE("flag_ranges: a list option keeps its default, takes a list, joins repeats and refuses an empty item") {
  auto parse = [](std::vector<std::string> args, std::vector<int>& values) {
    CLI::App app;
    add_integer_list_option(&app, "--batch,-B", values, 1, 100, "batch sizes");
    std::reverse(args.begin(), args.end());  // CLI11 takes argv-style vectors last first
    app.parse(args);
  };
  std::vector<int> b{4};
  parse({}, b);
  CHECK(b == std::vector<int>{4});
  parse({"-B", "1,8"}, b);
  CHECK(b == std::vector<int>{1, 8});
  parse({"-B", "2", "--batch", "3,5"}, b);
  CHECK(b == std::vector<int>{2, 3, 5});
  CHECK_THROWS_AS(parse({"-B", "4,,8"}, b), CLI::ValidationError);
  CHECK_THROWS_AS(parse({"-B", "101"}, b), CLI::ValidationError);
}

TEST_CASE("flag_ranges: numbers are finite decimals in range") {
  const auto pct = number_range(0, 1000);
  CHECK(check(pct, "0") == "");
  CHECK(check(pct, "5.5") == "");
  CHECK(check(pct, "1000") == "");
  CHECK(check(pct, "-5") == "expected a number from 0 to 1000, got '-5'");
  CHECK(check(pct, "nan") == "expected a number from 0 to 1000, got 'nan'");
  CHECK(check(pct, "inf") != "");
  CHECK(check(pct, "0x10") != "");
  CHECK(check(pct, "1001") != "");
  CHECK(check(number_range(0.01, 100), "0.0001") == "expected a number from 0.01 to 100, got '0.0001'");
}

TEST_CASE("flag_ranges: long values are cut in messages, between characters (quoted_value)") {
  CHECK(check(number_range(0, 1000), std::string(50, '9')) ==
        "expected a number from 0 to 1000, got '" + std::string(37, '9') + "...'");
  std::string wide, wide_cut;
  for (int i = 0; i < 30; ++i) wide += "名";
  for (int i = 0; i < 18; ++i) wide_cut += "名";
  CHECK(check(number_range(0, 1000), wide) == "expected a number from 0 to 1000, got '" + wide_cut + "...'");
}
