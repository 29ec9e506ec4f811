#include "libcommon/error.hpp"

#include <doctest/doctest.h>

#include "libcommon/json_scanner.hpp"

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

// Values were cut at 40 bytes, which split a UTF-8 character and wrote invalid UTF-8 to stderr.
TEST_CASE("error: quoted_value cuts a long value between characters and escapes control characters") {
  auto valid_utf8 = [](const std::string& s) {
    for (const char* p = s.data(); p < s.data() + s.size();) {
      const std::size_t n = static_cast<unsigned char>(*p) < 0x80 ? 1 : utf8_sequence(p, s.data() + s.size());
      if (n == 0) return false;
      p += n;
    }
    return true;
  };
  CHECK(quoted_value("-5") == "'-5'");
  CHECK(quoted_value(std::string(50, '9')) == "'" + std::string(37, '9') + "...'");  // 40 columns with the "..."
  std::string wide, accents, wide_cut, accents_cut;
  for (int i = 0; i < 30; ++i) wide += "名";     // 3 bytes, 2 columns each
  for (int i = 0; i < 50; ++i) accents += "é";  // 2 bytes, 1 column each
  for (int i = 0; i < 18; ++i) wide_cut += "名";
  for (int i = 0; i < 37; ++i) accents_cut += "é";
  CHECK(quoted_value(wide) == "'" + wide_cut + "...'");
  CHECK(quoted_value(accents) == "'" + accents_cut + "...'");
  CHECK(quoted_value(accents, 80) == "'" + accents + "'");
  for (std::size_t cols = 0; cols < 70; ++cols) {
    CHECK(valid_utf8(quoted_value(wide, cols)));
    CHECK(valid_utf8(quoted_value("x" + wide, cols)));
  }
  CHECK(quoted_value("a\x1b[2Jb\n") == "'a\\x1b[2Jb\\n'");
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
