#include "libcommon/document.hpp"

#include <doctest/doctest.h>

#include "libcommon/error.hpp"

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
