#include "libcommon/json_scanner.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <algorithm>
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
  for (const std::string& text : {std::string("3333333332\0\x13", 12), std::string("{\"a\": 1} \0 garbage", 18),
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

namespace {

/// A text in two reads, cut at `at`; each read gives at most what is left of its piece.
class CutStream final : public TextStream {
 public:
  CutStream(std::string_view text, std::size_t at) : first_(text.substr(0, at)), second_(text.substr(at)) {}
  std::size_t read(char* out, std::size_t size) override {
    std::string_view& piece = first_.empty() ? second_ : first_;
    const std::size_t n = std::min(size, piece.size());
    std::copy_n(piece.data(), n, out);
    piece.remove_prefix(n);
    return n;
  }

 private:
  std::string_view first_, second_;
};

JsonEventLog streamed_events(TextStream& stream) {
  JsonEventLog log;
  log.valid = scan_json(stream, log);
  return log;
}

}  // namespace

TEST_CASE("json_scanner: over a stream, a token cut between two reads is read whole, at every place") {
  const std::string valid =
      "\xEF\xBB\xBF {\"name\": \"esc \\\" \\\\ \\n \\u00e9 \\ud83d\\ude00 caf\xC3\xA9 \xF0\x9F\x98\x80\", "
      "\"n\": [0, -12, 18446744073709551615, -9223372036854775809, 1.5e-3, -0.25E+2, 123456789012345678901234567890],"
      "\"t\": true, \"f\": false, \"z\": null, \"o\": {}, \"a\": [[], {\"k\": \"v\"}]}\n";
  const std::string invalid[] = {"{\"a\": tru}", "{\"a\": [1, 2", "{\"a\": \"\\ud800\"}", "{\"a\": 1.}", "[\"\xE2\x82\"]",
                                 "{\"a\": 1} x"};
  for (const std::string& text : std::vector<std::string>{valid, invalid[0], invalid[1], invalid[2], invalid[3],
                                                          invalid[4], invalid[5]}) {
    const JsonEventLog whole = scanned_events(text);
    for (std::size_t at = 0; at <= text.size(); ++at) {
      CAPTURE(text);
      CAPTURE(at);
      CutStream cut(text, at);
      const JsonEventLog ours = streamed_events(cut);
      CHECK(ours.valid == whole.valid);
      CHECK(ours.events == whole.events);
    }
    for (std::size_t piece = 1; piece <= 7; ++piece) {  // cut everywhere at once: every token across reads
      StringTextStream pieces(text, piece);
      CHECK(streamed_events(pieces).events == whole.events);
    }
  }
  CHECK(scanned_events(valid).valid);
}

TEST_CASE("json_scanner: over a stream, a token longer than the read buffer, progress in whole-text offsets") {
  const std::string text = "[\"" + std::string(3u << 20, 'x') + "\", 1." + std::string(2u << 20, '7') + ", " +
                           std::string(9u << 20, ' ') + "1]";
  StringTextStream stream(text, 100000);
  std::vector<std::size_t> offsets;
  JsonEventLog log;
  CHECK(scan_json(stream, log, [&](std::size_t at) { offsets.push_back(at); }));
  CHECK(log.events == scanned_events(text).events);
  REQUIRE(offsets.size() == 1);
  CHECK(offsets[0] == text.size() - 1);  // after the last element, at the closing bracket
}

TEST_CASE("json_scanner: find_json_depth_over over a stream gives the offset it gives in memory, at every cut") {
  for (const std::string& text : {std::string("[\"[[[\\\"[[\", [[[1]]], {\"a\": [[[]]]}]"), std::string("[[[[]]]]"),
                                 std::string("[\"\\\\\", [[[[[]]]]]]")}) {
    for (int depth = 1; depth <= 6; ++depth) {
      const std::size_t whole = find_json_depth_over(text, depth);
      for (std::size_t piece = 1; piece <= text.size(); ++piece) {
        CAPTURE(text);
        CAPTURE(piece);
        StringTextStream stream(text, piece);
        CHECK(find_json_depth_over(stream, depth) == whole);
      }
    }
  }
}
