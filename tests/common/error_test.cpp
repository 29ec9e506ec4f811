#include "libcommon/error.hpp"

#include <doctest/doctest.h>

using namespace vtools;

TEST_CASE("error: message carries file:line:col and the exit category") {
  Error e(ExitCode::kDataError, "expected '>' after memdesc shape, got ','", {"kernel.ttgir", 12, 7});
  CHECK(std::string(e.what()) == "kernel.ttgir:12:7: expected '>' after memdesc shape, got ','");
  CHECK(e.code() == ExitCode::kDataError);
  CHECK(Error(ExitCode::kNoInput, "x", {"f"}).what() == std::string("f: x"));
  CHECK(Error(ExitCode::kNoInput, "x").what() == std::string("x"));
}

TEST_CASE("error: location_of_offset counts lines and columns from 1") {
  std::string_view text = "ab\ncd\n\nx";
  auto l = location_of_offset(text, 4, "f");
  CHECK(l.line == 2);
  CHECK(l.column == 2);
  CHECK(location_of_offset(text, 7, "f").line == 4);
  CHECK(location_of_offset(text, 999, "f").line == 4);  // clamped to the end
}

TEST_CASE("error: did-you-mean suggestions only for close names") {
  std::vector<std::string> names{"gpt_nano", "gpt_micro", "gpt2-medium"};
  CHECK(closest_match("gpt_nan", names) == "gpt_nano");
  CHECK(closest_match("gpt2-mediun", names) == "gpt2-medium");
  CHECK(closest_match("llama", names).empty());
  CHECK(closest_match("tabel", {"json", "table", "csv"}) == "table");  // a swap of neighbours is one slip
  CHECK(closest_match("rnu", {"run", "list"}) == "run");
  CHECK(with_suggestion("unknown config 'gpt_nan'", "gpt_nan", names) ==
        "unknown config 'gpt_nan'; did you mean 'gpt_nano'?");
}
