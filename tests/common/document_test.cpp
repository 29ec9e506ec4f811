#include "libcommon/document.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"

using namespace vtools;

static Error error_of(std::string_view text, std::vector<DocumentFormat> accepted = {kBenchFormat}) {
  try {
    parse_document(text, "in.json", std::move(accepted));
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error thrown");
  return Error(ExitCode::kOk, "");
}

TEST_CASE("document: envelope has format, version, tool and created") {
  auto doc = new_document(kPlanFormat, "vplan");
  CHECK(doc["format"] == "vtools.plan");
  CHECK(doc["version"] == 1);
  CHECK(doc["tool"]["name"] == "vplan");
  CHECK(doc["created"].get<std::string>().size() == 20);
  auto back = parse_document(dump_json(doc), "x", {kPlanFormat});
  CHECK(back == doc);
}

TEST_CASE("document: JSON syntax errors name file, line and column") {
  auto e = error_of("{\n  \"format\": \"vtools.bench\",\n  \"version\": tru\n}");
  CHECK(e.code() == ExitCode::kDataError);
  CHECK(e.where().file == "in.json");
  CHECK(e.where().line == 3);
  CHECK(e.where().column == 14);
  CHECK(std::string(e.what()).rfind("in.json:3:14: invalid JSON: syntax error", 0) == 0);
}

TEST_CASE("document: JSON syntax errors never echo input bytes, only what was expected") {
  // nlohmann appends "; last read: '<raw bytes>'": a 0xFF byte or the tail of a literal would reach the terminal.
  auto ff = error_of("{\"format\": \"\xff\xfe\"}");
  CHECK(std::string(ff.what()) == "in.json:1:13: invalid JSON: syntax error while parsing value - invalid string: "
                                   "ill-formed UTF-8 byte");
  auto key = error_of("{\"format\": 1,\n \xff\n\n}");
  CHECK(std::string(key.what()) ==
        "in.json:2:2: invalid JSON: syntax error while parsing object key - invalid literal; expected string literal");
  auto tail = error_of("[1, tru\n\n\n]");
  CHECK(tail.message() == "invalid JSON: syntax error while parsing value - invalid literal");
  auto unexpected = error_of("{\"format\" 1}");
  CHECK(unexpected.message() ==
        "invalid JSON: syntax error while parsing object separator - unexpected number literal; expected ':'");
  auto overflow = error_of("[22E26511]");
  CHECK(std::string(overflow.what()) == "in.json: invalid JSON: a number is out of range (beyond a 64-bit float)");
}

TEST_CASE("document: wrong format, missing format, newer version and non-objects are refused") {
  CHECK(std::string(error_of(R"({"format": "vtools.trace", "version": 1})").what()) ==
        "in.json: document format 'vtools.trace' where 'vtools.bench' was expected");
  CHECK(std::string(error_of(R"({"version": 1})").what()).find("no \"format\"") != std::string::npos);
  CHECK(std::string(error_of(R"({"format": "vtools.bench", "version": 9})").what()) ==
        "in.json: vtools.bench version 9 is not supported (this vtools reads 1..1)");
  CHECK(std::string(error_of(R"({"format": "vtools.bench", "version": 18446744073709551615})").what()) ==
        "in.json: vtools.bench version 18446744073709551615 is not supported (this vtools reads 1..1)");
  CHECK(std::string(error_of(R"({"format": "vtools.bench", "version": -1})").what()) ==
        "in.json: vtools.bench version -1 is not supported (this vtools reads 1..1)");
  CHECK(error_of("[1, 2]").code() == ExitCode::kDataError);
  CHECK(std::string(error_of("").what()).find("empty input") != std::string::npos);
}

TEST_CASE("document: deep nesting is refused before parsing") {
  std::string deep(100000, '[');
  auto e = error_of(deep);
  CHECK(e.code() == ExitCode::kDataError);
  CHECK(e.message() == "JSON nested deeper than 256 levels");
  CHECK(e.where().column == 257);
}

TEST_CASE("document: several accepted formats") {
  auto doc = parse_document(R"({"format": "vtools.compare", "version": 1})", "x", {kBenchFormat, kCompareFormat});
  CHECK(document_format(doc) == "vtools.compare");
}

TEST_CASE("document: invalid UTF-8 in strings is replaced on output, not thrown") {
  OrderedJson doc;
  doc["name"] = std::string("bad\xff");
  CHECK(dump_json(doc).find("bad\xEF\xBF\xBD") != std::string::npos);
}

namespace {

struct Streamed {
  OrderedJson top;
  std::vector<std::string> elements;  ///< "key[i]=value"
};

Streamed streamed(std::string_view text, std::vector<DocumentFormat> accepted = {kTraceFormat}) {
  Streamed s;
  s.top = parse_document_streamed(text, "in.json", std::move(accepted),
                                  [&](std::string_view key, std::size_t i, OrderedJson&& v) {
                                    s.elements.push_back(std::string(key) + "[" + std::to_string(i) + "]=" + v.dump());
                                  });
  return s;
}

std::string streamed_error(std::string_view text, std::vector<DocumentFormat> accepted = {kTraceFormat}) {
  try {
    streamed(text, std::move(accepted));
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

std::string parsed_error(std::string_view text, std::vector<DocumentFormat> accepted = {kTraceFormat}) {
  try {
    parse_document(text, "in.json", std::move(accepted));
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

}  // namespace

TEST_CASE("document: streamed, each top-level array's elements come one by one; the rest stays in the tree") {
  const Streamed s = streamed(
      R"J({"format": "vtools.trace", "version": 2, "run": {"mode": "x", "notes": ["a", "b"]},
          "kernels": [{"name": "k", "grid": [1, 2, 3]}, {"name": "m"}], "empty": [], "names": ["p", 7, null],
          "nested": [[1, [2]], {"a": {"b": [3]}}], "partial": false})J");
  CHECK(s.elements == std::vector<std::string>{R"J(kernels[0]={"name":"k","grid":[1,2,3]})J",
                                               R"J(kernels[1]={"name":"m"})J", R"J(names[0]="p")J", "names[1]=7",
                                               "names[2]=null", "nested[0]=[1,[2]]",
                                               R"J(nested[1]={"a":{"b":[3]}})J"});
  CHECK(s.top.dump() ==
        R"J({"format":"vtools.trace","version":2,"run":{"mode":"x","notes":["a","b"]},"kernels":[],"empty":[],)J"
        R"J("names":[],"nested":[],"partial":false})J");
}

TEST_CASE("document: streamed, the same errors as parse_document, and a wrong envelope before any element") {
  for (const char* text : {"{\n  \"format\": \"vtools.trace\",\n  \"version\": tru\n}", "", "[1, 2]", "{\"a\": 1",
                           R"J({"format": "vtools.plan", "version": 1, "kernels": [1]})J",
                           R"J({"format": "vtools.trace", "version": 9, "kernels": [1]})J", R"J({"version": 1})J",
                           "{\"format\": \"vtools.trace\", \"version\": 1, \"x\": 1e999999}"}) {
    CAPTURE(text);
    CHECK(streamed_error(text) == parsed_error(text));
  }
  // The envelope comes first: a plan is refused as one, before its arrays reach a trace reader.
  std::size_t elements = 0;
  CHECK_THROWS_AS(parse_document_streamed(R"J({"format": "vtools.plan", "version": 1, "kernels": [1, 2]})J", "p",
                                          {kTraceFormat}, [&](std::string_view, std::size_t, OrderedJson&&) { ++elements; }),
                  Error);
  CHECK(elements == 0);
}

TEST_CASE("document: streamed, a version after the arrays is read at the end; array_start hears each array open") {
  // Before: the envelope was checked at the first element with "format" alone, refusing this document for "no
  // integer version" that parse_document accepts.
  const Streamed s = streamed(R"J({"format": "vtools.trace", "kernels": [1], "version": 2})J");
  CHECK(s.elements == std::vector<std::string>{"kernels[0]=1"});
  CHECK(streamed_error(R"J({"format": "vtools.trace", "kernels": [1], "version": 9})J") ==
        parsed_error(R"J({"format": "vtools.trace", "kernels": [1], "version": 9})J"));
  std::vector<std::string> opened;
  (void)parse_document_streamed(R"J({"format": "vtools.trace", "version": 2, "a": [1], "b": {"c": []}, "a": []})J", "in.json",
                                {kTraceFormat}, [](std::string_view, std::size_t, OrderedJson&&) {}, {},
                                [&](std::string_view key) { opened.emplace_back(key); });
  CHECK(opened == std::vector<std::string>{"a", "a"});
}

TEST_CASE("input limits: a streamed reader's default cap is larger; VTOOLS_MAX_INPUT_BYTES sets both") {
  ::unsetenv("VTOOLS_MAX_INPUT_BYTES");
  CHECK(max_input_bytes() == kDefaultMaxInputBytes);
  CHECK(max_input_bytes(kStreamedMaxInputBytes) == (4ull << 30));
  ::setenv("VTOOLS_MAX_INPUT_BYTES", "1000", 1);
  CHECK(max_input_bytes() == 1000);
  CHECK(max_input_bytes(kStreamedMaxInputBytes) == 1000);
  ::setenv("VTOOLS_MAX_INPUT_BYTES", "", 1);  // VAR= in a Makefile or CI config: the default, not a usage error
  CHECK(max_input_bytes() == kDefaultMaxInputBytes);
  ::unsetenv("VTOOLS_MAX_INPUT_BYTES");
}

TEST_CASE("document: leading_document_format reads a first \"format\" member, else says nothing") {
  CHECK(leading_document_format(R"({"format":"vtools.trace","kernels":[)") == "vtools.trace");  // the rest unread
  CHECK(leading_document_format(" \n{ \"format\" :\t\"vtools.plan\", \"version\": 1}") == "vtools.plan");
  CHECK(leading_document_format(R"({"version":1,"format":"vtools.trace"})").empty());  // not first: parse to know
  CHECK(leading_document_format(R"({"format":"vtools.\u0074race"})").empty());          // escapes: parse to know
  CHECK(leading_document_format(R"({"format":"vtools.trace)").empty());
  CHECK(leading_document_format(R"({"format":3})").empty());
  CHECK(leading_document_format("").empty());
  CHECK(leading_document_format("[").empty());
}

TEST_CASE("document: streamed, records written over the one before are the records a fresh parse gives") {
  // Shapes change from record to record: keys added, dropped, reordered, repeated, and values changing type.
  const std::vector<std::string> records = {
      R"({"a": 1, "b": "long string value over the small-string size", "c": [1, 2, 3], "d": {"x": 1}})",
      R"({"a": 2, "b": "short", "c": [4], "d": {"x": 2, "y": [5]}})",
      R"({"b": "first", "a": 3})",
      R"({"a": 4, "a": [6, 7], "b": null, "c": {"nested": [[], {}]}})",
      R"({"a": "now a string", "b": 1.5, "c": [], "d": {}})",
      R"({})",
      R"([1, {"k": "v"}, [2]])",
      R"("a string element")",
      R"({"a": 5, "b": "long string value over the small-string size", "c": [1, 2, 3], "d": {"x": 1}, "e": true})"};
  std::string text = R"({"format": "vtools.trace", "version": 2, "kernels": [)";
  for (std::size_t i = 0; i < records.size(); ++i) text += (i ? ", " : "") + records[i];
  text += R"(], "run": {"mode": "x"}})";
  std::vector<std::string> seen;
  const OrderedJson top = parse_document_streamed(text, "in.json", {kTraceFormat},
                                                  [&](std::string_view, std::size_t, OrderedJson&& v) {
                                                    seen.push_back(v.dump());
                                                  });
  REQUIRE(seen.size() == records.size());
  for (std::size_t i = 0; i < records.size(); ++i) CHECK(seen[i] == OrderedJson::parse(records[i]).dump());
  CHECK(top.dump() == R"J({"format":"vtools.trace","version":2,"kernels":[],"run":{"mode":"x"}})J");
}

TEST_CASE("document: streamed, invalid JSON after some records: they are not handed out twice, nlohmann's message") {
  for (const char* text : {R"({"format": "vtools.trace", "version": 2, "kernels": [{"a": 1}, {"a": 2}, {"a": tru}]})",
                           R"({"format": "vtools.trace", "version": 2, "kernels": [{"a": 1}, {"a": 2})",
                           "{\"format\": \"vtools.trace\", \"version\": 2, \"kernels\": [{\"a\": \"\xC0\"}]}"}) {
    CAPTURE(text);
    std::vector<std::string> seen;
    try {
      parse_document_streamed(text, "in.json", {kTraceFormat},
                              [&](std::string_view, std::size_t i, OrderedJson&& v) {
                                seen.push_back(std::to_string(i) + "=" + v.dump());
                              });
      FAIL("no error thrown");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) == parsed_error(text));
    }
    const std::vector<std::string> expected = {R"(0={"a":1})", R"(1={"a":2})"};
    CHECK(seen == std::vector<std::string>(expected.begin(), expected.begin() + std::min(seen.size(), expected.size())));
    CHECK(seen.size() <= 2);
  }
}

TEST_CASE("input text: a file is mapped and reads as read_input reads it; passed() keeps it readable") {
  const std::string path = "input_text_test.json";
  std::string body = "{\"format\": \"vtools.trace\", \"pad\": \"";
  body += std::string(3 * 4096 + 123, 'x');
  body += "\"}\n";
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fwrite(body.data(), 1, body.size(), f);
    std::fclose(f);
  }
  InputText input = read_input_text(path);
  CHECK(input.text() == body);
  input.passed(2 * 4096 + 7);  // pages before it dropped: read again from the file, unchanged
  CHECK(input.text() == body);
  input.passed(100);  // a second pass
  input.passed(body.size());
  CHECK(input.text() == read_input(path));
  const InputText moved = std::move(input);
  CHECK(moved.text() == body);
  std::remove(path.c_str());
  // What is not a plain file goes through read_input, with its errors.
  CHECK_THROWS_AS(read_input_text("/nonexistent/input_text.json"), Error);
  CHECK(InputText(std::string("held")).text() == "held");
}

TEST_CASE("document: streamed over passes (a compressed input), the records and errors of the text in memory") {
  const auto passes = [](std::string_view text, std::size_t piece) -> OpenText {
    return [text, piece] { return std::make_unique<StringTextStream>(text, piece); };
  };
  const std::string good = "{\"format\": \"vtools.trace\", \"version\": 2, \"run\": {\"mode\": \"x\"},\n"
                           "\"kernels\": [{\"a\": 1}, {\"a\": \"two\"}], \"names\": [\"k\"]}";
  const Streamed whole = streamed(good);
  for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
    Streamed s;
    s.top = parse_document_streamed(passes(good, piece), "in.json", {kTraceFormat},
                                    [&](std::string_view key, std::size_t i, OrderedJson&& v) {
                                      s.elements.push_back(std::string(key) + "[" + std::to_string(i) + "]=" + v.dump());
                                    });
    CHECK(s.top.dump() == whole.top.dump());
    CHECK(s.elements == whole.elements);
  }
  const std::string deep = "{\"format\": \"vtools.trace\", \"version\": 2,\n \"x\": " + std::string(300, '[') +
                           std::string(300, ']') + "}";
  const std::string long_line = "{\"format\": \"vtools.trace\", \"version\": 2, \"pad\": \"" +
                                std::string(3u << 20, 'x') + "\",\n  \"kernels\": [1, tru]}";
  for (const std::string& text : {std::string("{\n  \"format\": \"vtools.trace\",\n  \"version\": tru\n}"),
                                  std::string(""), std::string("[1, 2]"), std::string("{\"a\": 1"), deep, long_line,
                                  std::string(R"J({"format": "vtools.plan", "version": 1, "kernels": [1]})J"),
                                  std::string("{\"format\": \"vtools.trace\", \"version\": 1, \"x\": 1e999999}"),
                                  std::string("{\"format\": \"vtools.trace\", \"version\": 2, \"k\": [\"\xC0\"]}")}) {
    CAPTURE(text.substr(0, 80));
    for (std::size_t piece : {std::size_t{1}, std::size_t{5}, std::size_t{1} << 20}) {
      std::string message;
      try {
        parse_document_streamed(passes(text, piece), "in.json", {kTraceFormat},
                                [](std::string_view, std::size_t, OrderedJson&&) {});
        FAIL("no error thrown");
      } catch (const Error& e) {
        CHECK(e.code() == ExitCode::kDataError);
        message = e.what();
      }
      CHECK(message == streamed_error(text));
    }
  }
}

TEST_CASE("document: streamed, a valid text is read in one pass; a failing one again, deep nesting still first") {
  int opens = 0;
  const auto counted = [&opens](std::string_view text) -> OpenText {
    return [text, &opens] {
      ++opens;
      return std::make_unique<StringTextStream>(text, 7);
    };
  };
  const auto none = [](std::string_view, std::size_t, OrderedJson&&) {};
  const std::string good = "{\"format\": \"vtools.trace\", \"version\": 2, \"kernels\": [{\"a\": [[1]]}, 2]}";
  parse_document_streamed(counted(good), "in.json", {kTraceFormat}, none);
  CHECK(opens == 1);
  // A record refused before nesting past the limit: the nesting is the error, as when the depth was checked first.
  const auto refuse = [](std::string_view, std::size_t, OrderedJson&&) {
    throw Error(ExitCode::kDataError, "record refused", SourceLocation{"in.json"});
  };
  const std::string deep_later = "{\"format\": \"vtools.trace\", \"version\": 2, \"kernels\": [1],\n \"x\": " +
                                 std::string(300, '[') + std::string(300, ']') + "}";
  for (const bool passes : {false, true}) {
    CAPTURE(passes);
    // Passes: the records, the depth check, and (deep) one more for the line:column.
    for (const auto& [text, message, opened] :
         {std::tuple<std::string, std::string, int>{deep_later, "in.json:2:262: JSON nested deeper than 256 levels", 3},
          {good, "in.json: record refused", 2}}) {
      opens = 0;
      try {
        if (passes)
          parse_document_streamed(counted(text), "in.json", {kTraceFormat}, refuse);
        else
          parse_document_streamed(text, "in.json", {kTraceFormat}, refuse);
        FAIL("no error thrown");
      } catch (const Error& e) {
        CHECK(std::string(e.what()) == message);
      }
      CHECK(opens == (passes ? opened : 0));
    }
  }
}

TEST_CASE("input text: a compressed file is read in passes, its text never whole; text() still gives it whole") {
  const std::string plain = read_input(VTOOLS_TEST_DATA "/vtrace/graphs.trace.json", kDefaultMaxInputBytes,
                                       InputContent::kBinary);
  for (const char* ext : {".gz", ".zst"}) {
    CAPTURE(ext);
    const InputText input = read_input_text(std::string(VTOOLS_TEST_DATA "/vtrace/graphs.trace.json") + ext);
    CHECK(input.compressed());
    std::string text;
    const std::unique_ptr<TextStream> stream = input.open();
    char buf[97];  // odd-sized reads
    while (const std::size_t n = stream->read(buf, sizeof buf)) text.append(buf, n);
    CHECK(text == plain);
    CHECK(input.head(10) == plain.substr(0, 10));
    CHECK(input.head(1u << 20) == plain);
    CHECK(input.text() == plain);
  }
  CHECK_FALSE(read_input_text(VTOOLS_TEST_DATA "/vtrace/graphs.trace.json").compressed());
  for (const auto& [file, message] :
       {std::pair<std::string, std::string>{"cut.trace.json.gz", "invalid gzip data: it ends early (a cut file?)"},
        {"cut.trace.json.zst", "invalid zstd data: it ends early (a cut file?)"}}) {
    const std::string path = VTOOLS_TEST_DATA "/bad/vtrace/" + file;
    const InputText input = read_input_text(path);
    try {
      const std::unique_ptr<TextStream> stream = input.open();
      char buf[4096];
      while (stream->read(buf, sizeof buf) > 0) {
      }
      FAIL("no error thrown");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kDataError);
      CHECK(std::string(e.what()) == path + ": " + message);
    }
  }
}
