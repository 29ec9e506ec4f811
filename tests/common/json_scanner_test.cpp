#include "libcommon/json_scanner.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/common/json_event_log.hpp"

using namespace vtools;

TEST_CASE("json_scanner: the events and values of nlohmann's SAX parser on valid JSON") {
  for (const char* text : {
           R"({"a": 1, "b": [true, false, null], "c": {"d": "e"}, "": {}, "f": []})",
           "  [1, -1, 0, -0, 18446744073709551615, 18446744073709551616, -9223372036854775808, -9223372036854775809]\n",
           "[1.5, -0.0, 1e3, 1E-3, 2.5e+2, 1e-400, 123456789012345678901234567890.5]",
           R"(["plain", "esc \" \\ \/ \b \f \n \r \t", "\u0041\u00e9\u20ac\ud83d\ude00", "\u0000", "café €😀"])",
           "\xEF\xBB\xBF{\"bom\": true}", "\"top-level string\"", "42", "null", "[[[]], {\"a\": {\"b\": [{}]}}]",
           R"({"dup": 1, "dup": [2]})", "\t\r\n{\r\n}\t"}) {
    CAPTURE(text);
    const JsonEventLog ours = scanned_events(text), theirs = nlohmann_events(text);
    CHECK(ours.valid);
    CHECK(theirs.valid);
    CHECK(ours.events == theirs.events);
  }
}

TEST_CASE("json_scanner: a NUL byte after the value ends the input, as nlohmann's lexer reads it") {
  for (const std::string text : {std::string("3333333332\0\x13", 12), std::string("{\"a\": 1} \0 garbage", 18),
                                 std::string("[1, \0]", 7), std::string("\0", 1)}) {
    CAPTURE(text);
    const JsonEventLog ours = scanned_events(text), theirs = nlohmann_events(text);
    CHECK(ours.valid == theirs.valid);
    CHECK(ours.events == theirs.events);
  }
  CHECK(scanned_events(std::string("3333333332\0\x13", 12)).valid);  // the fuzz target's first disagreement
}

TEST_CASE("json_scanner: invalid JSON is refused where nlohmann refuses it, with the same events before") {
  for (const char* text :
       {"", "   ", "{", "[1, 2", "[1,]", "{\"a\" 1}", "{\"a\": 1,}", "{,}", "tru", "nul", "[01]", "[-]", "[1.]",
        "[1e]", "[.5]", "[+1]", "[1e999]", "[-1e999]", "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"",
        "\"\\ud800\"", "\"\\ud800\\u0041\"", "\"\\udc00\"", "\"ctrl \x01 byte\"", "\"tab \t raw\"", "\"\xC0\xAF\"",
        "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xE2\x82\"", "\"\xFF\"", "\xEF\xBB{}", "{} x", "[1] [2]",
        "{\"a\": 1}}", "[}", "{]", "{1: 2}", "[\"a\" \"b\"]"}) {
    CAPTURE(text);
    const JsonEventLog ours = scanned_events(text), theirs = nlohmann_events(text);
    CHECK_FALSE(ours.valid);
    CHECK_FALSE(theirs.valid);
    CHECK(ours.events == theirs.events);
  }
  const std::string nul("[1, \0 2]", 8);  // a NUL byte inside the text, not at its end
  CHECK_FALSE(scanned_events(nul).valid);
  CHECK_FALSE(nlohmann_events(nul).valid);
}

TEST_CASE("json_scanner: long strings cross the 16-byte blocks with every kind of stop at every offset") {
  for (std::size_t pad = 0; pad < 40; ++pad)
    for (const std::string stop : {"\\n", "é", "\\u00e9", "\"", "\x01", "\xFF"}) {
      const std::string text = "[\"" + std::string(pad, 'x') + stop + std::string(40 - pad, 'y') + "\"]";
      CAPTURE(text);
      const JsonEventLog ours = scanned_events(text), theirs = nlohmann_events(text);
      CHECK(ours.valid == theirs.valid);
      CHECK(ours.events == theirs.events);
    }
}

TEST_CASE("json_scanner: progress is reported as the text is read, at offsets inside it") {
  std::string text = "[";
  for (int i = 0; i < 500000; ++i) text += std::string(i ? "," : "") + "{\"name\": \"kernel\", \"start_ns\": 1234567}";
  text += "]";
  std::vector<std::size_t> offsets;
  JsonEventLog log;
  CHECK(scan_json(text, log, [&](std::size_t at) { offsets.push_back(at); }));
  REQUIRE(!offsets.empty());
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    CHECK(offsets[i] < text.size());
    if (i > 0) CHECK(offsets[i] > offsets[i - 1]);
  }
}
