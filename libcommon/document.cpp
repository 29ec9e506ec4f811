#include "document.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <functional>

#include "error.hpp"
#include "input_file.hpp"
#include "output_file.hpp"

namespace vtools {

std::string iso8601_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

OrderedJson new_document(const DocumentFormat& format, std::string_view tool_name) {
  OrderedJson doc;
  doc["format"] = format.name;
  doc["version"] = format.version;
  doc["tool"] = {{"name", tool_name}, {"version", tool_version()}};
  doc["created"] = iso8601_now();
  return doc;
}

// Refuses nesting deeper than kMaxJsonDepth before the recursive parser sees it.
static void check_depth(std::string_view text, std::string_view name) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw Error(ExitCode::kDataError, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                    location_of_offset(text, i, std::string(name)));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// nlohmann reports the byte where it stopped (1-based); step back to the start of the offending token so the
// column points at "tru" in `"version": tru`, not at the newline after it.
static std::size_t token_start(std::string_view text, std::size_t stop_byte) {
  if (stop_byte == 0 || text.empty()) return 0;
  std::size_t i = std::min(stop_byte - 1, text.size() - 1);
  while (i > 0 && (text[i] == '\n' || text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) --i;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+'; };
  if (text[i] == '"') {
    while (i > 0 && !(text[i - 1] == '"' && (i < 2 || text[i - 2] != '\\'))) --i;
    return i > 0 ? i - 1 : 0;
  }
  while (i > 0 && word(text[i]) && word(text[i - 1])) --i;
  return i;
}

// nlohmann's parse_error text is "[json.exception.parse_error.101] parse error at line L, column C: syntax error while
// parsing CONTEXT - REASON[; last read: 'TOKEN'][; expected KIND]". TOKEN is the raw input (a 0xFF byte, a long
// tail), so it never reaches the user: keep CONTEXT and REASON (fixed wording) and the expected token kind, which is
// one of nlohmann's token_type_name() spellings.
static std::string parse_error_reason(const std::string& what) {
  auto colon = what.find(": ");
  std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
  const auto last_read = reason.find("; last read: '");
  if (last_read == std::string::npos) return reason;
  std::string expected;
  for (const char* kind : {"'['", "'{'", "']'", "'}'", "':'", "','", "string literal", "number literal", "true literal",
                           "false literal", "null literal", "end of input", "'[', '{', or a literal"}) {
    const std::string suffix = std::string("'; expected ") + kind;
    if (reason.size() >= last_read + suffix.size() && reason.ends_with(suffix))
      expected = std::string("; expected ") + kind;
  }
  return reason.substr(0, last_read) + expected;
}

/// Any other nlohmann error as a data error, cut before the first quote: what nlohmann quotes is taken from the input.
[[noreturn]] static void throw_other_json_error(const nlohmann::json::exception& e, std::string_view name) {
  const std::string what = e.what();
  const auto bracket = what.find("] ");
  const std::string reason = bracket == std::string::npos ? what : what.substr(bracket + 2);
  throw Error(ExitCode::kDataError, "invalid JSON: " + reason.substr(0, reason.find(" '")),
              SourceLocation{std::string(name)});
}

OrderedJson parse_json(std::string_view text, std::string_view name) {
  check_depth(text, name);
  try {
    return OrderedJson::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points at the last character read; point at the start of the offending token instead.
    std::size_t offset = token_start(text, e.byte);
    std::string reason = text.empty() ? "empty input, expected a JSON document" : parse_error_reason(e.what());
    throw Error(ExitCode::kDataError, "invalid JSON: " + reason, location_of_offset(text, offset, std::string(name)));
  } catch (const nlohmann::json::out_of_range&) {
    // 406 "number overflow parsing '22E26511'" (found by fuzz_document): the number, not echoed, is still bad input.
    throw Error(ExitCode::kDataError, "invalid JSON: a number is out of range (beyond a 64-bit float)",
                SourceLocation{std::string(name)});
  } catch (const nlohmann::json::exception& e) {
    throw_other_json_error(e, name);
  }
}

std::string leading_document_format(std::string_view text) {
  std::size_t i = 0;
  const auto skip_blanks = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  };
  const auto take = [&](std::string_view token) {
    skip_blanks();
    if (text.substr(i, token.size()) != token) return false;
    i += token.size();
    return true;
  };
  if (!take("{") || !take("\"format\"") || !take(":") || !take("\"")) return "";
  const std::size_t end = text.find('"', i);
  if (end == std::string_view::npos) return "";
  const std::string_view value = text.substr(i, end - i);
  for (char c : value)
    if (c == '\\' || static_cast<unsigned char>(c) < 0x20) return "";  // escapes: left to the parser
  return std::string(value);
}

std::string document_format(const OrderedJson& doc) {
  if (doc.is_object() && doc.contains("format") && doc["format"].is_string()) return doc["format"].get<std::string>();
  return "";
}

/// The envelope checks of parse_document on a parsed document (or, streamed, its members other than arrays).
static void check_envelope(const OrderedJson& doc, std::string_view name, const std::vector<DocumentFormat>& accepted) {
  SourceLocation where{std::string(name)};
  std::string expected;
  for (const auto& f : accepted) expected += (expected.empty() ? "'" : " or '") + std::string(f.name) + "'";
  if (!doc.is_object()) throw Error(ExitCode::kDataError, "expected a JSON object with \"format\" " + expected, where);
  std::string format = document_format(doc);
  if (format.empty())
    throw Error(ExitCode::kDataError, "not a vtools document: no \"format\" string (expected " + expected + ")", where);
  const DocumentFormat* match = nullptr;
  for (const auto& f : accepted)
    if (f.name == format) match = &f;
  if (!match) throw Error(ExitCode::kDataError, "document format '" + format + "' where " + expected + " was expected", where);
  if (!doc.contains("version") || !doc["version"].is_number_integer())
    throw Error(ExitCode::kDataError, "document has no integer \"version\"", where);
  const OrderedJson& version = doc["version"];  // printed as written: a cast would wrap 2^63 and more negative
  const std::optional<int> v = json_integer<int>(version);
  if (!v || *v < 1 || *v > match->version)
    throw Error(ExitCode::kDataError,
                format + " version " + version.dump() + " is not supported (this vtools reads 1.." +
                    std::to_string(match->version) + ")",
                where);
}

OrderedJson parse_document(std::string_view text, std::string_view name, std::vector<DocumentFormat> accepted) {
  OrderedJson doc = parse_json(text, name);
  check_envelope(doc, name, accepted);
  return doc;
}

namespace {

/// nlohmann SAX events -> the top-level object's members, each array's elements handed out one by one (see
/// parse_document_streamed). `depth` counts the containers open; the top-level object is depth 1.
class StreamingHandler {
 public:
  StreamingHandler(std::string_view text, std::string_view name, const std::vector<DocumentFormat>& accepted,
                   const ElementReader& element, const ArrayStart& array_start)
      : text_(text), name_(name), accepted_(accepted), element_(element), array_start_(array_start) {}

  OrderedJson top;

  bool null() { return scalar(OrderedJson(nullptr)); }
  bool boolean(bool v) { return scalar(OrderedJson(v)); }
  bool number_integer(std::int64_t v) { return scalar(OrderedJson(v)); }
  bool number_unsigned(std::uint64_t v) { return scalar(OrderedJson(v)); }
  bool number_float(double v, const std::string&) { return scalar(OrderedJson(v)); }
  bool string(std::string& v) { return scalar(OrderedJson(std::move(v))); }
  bool binary(nlohmann::json::binary_t&) { return scalar(OrderedJson(nullptr)); }  // JSON text has none

  bool start_object(std::size_t) { return open(OrderedJson::object()); }
  bool start_array(std::size_t) {
    if (depth_ == 1) {  // a top-level array: its elements are handed out, an empty one stays in its place
      top[key_] = OrderedJson::array();
      if (array_start_) array_start_(key_);
      streaming_ = true;
      index_ = 0;
      ++depth_;
      return true;
    }
    return open(OrderedJson::array());
  }
  bool key(std::string& k) {
    if (depth_ == 1)
      key_ = std::move(k);
    else
      building_key_ = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() {
    if (depth_ == 2 && streaming_) {
      streaming_ = false;
      --depth_;
      return true;
    }
    return close();
  }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) {
    if (e.id == 406)  // "number overflow" (found by fuzz_document): the number, not echoed, is still bad input
      throw Error(ExitCode::kDataError, "invalid JSON: a number is out of range (beyond a 64-bit float)",
                  SourceLocation{std::string(name_)});
    const std::string reason = text_.empty() ? "empty input, expected a JSON document" : parse_error_reason(e.what());
    throw Error(ExitCode::kDataError, "invalid JSON: " + reason,
                location_of_offset(text_, token_start(text_, byte), std::string(name_)));
  }

 private:
  bool open(OrderedJson container) {
    if (depth_ == 0) {
      if (!container.is_object()) not_an_object();
      ++depth_;
      return true;
    }
    ++depth_;
    if (stack_.empty()) {
      value_ = std::move(container);
      stack_.push_back(&value_);
    } else {
      stack_.push_back(place(std::move(container)));
    }
    return true;
  }
  bool close() {
    --depth_;
    if (depth_ == 0) return true;  // the top-level object
    stack_.pop_back();
    if (stack_.empty()) done(std::move(value_));
    return true;
  }
  bool scalar(OrderedJson v) {
    if (depth_ == 0) not_an_object();
    if (stack_.empty()) {
      done(std::move(v));
    } else {
      place(std::move(v));
    }
    return true;
  }
  /// Adds `v` to the container being built; returns where it went.
  OrderedJson* place(OrderedJson v) {
    OrderedJson& into = *stack_.back();
    if (into.is_array()) {
      into.push_back(std::move(v));
      return &into.back();
    }
    OrderedJson& slot = into[building_key_];
    slot = std::move(v);
    return &slot;
  }
  /// A whole value: a top-level member, or an element of a top-level array.
  void done(OrderedJson v) {
    if (!streaming_) {
      top[key_] = std::move(v);
      return;
    }
    // vtools writers put the envelope first; a version after the arrays is checked at the end
    if (!envelope_checked_ && top.contains("format") && top.contains("version")) {
      check_envelope(top, name_, accepted_);
      envelope_checked_ = true;
    }
    element_(key_, index_++, std::move(v));
  }
  [[noreturn]] void not_an_object() const {
    std::string expected;
    for (const auto& f : accepted_) expected += (expected.empty() ? "'" : " or '") + std::string(f.name) + "'";
    throw Error(ExitCode::kDataError, "expected a JSON object with \"format\" " + expected,
                SourceLocation{std::string(name_)});
  }

  std::string_view text_, name_;
  const std::vector<DocumentFormat>& accepted_;
  const ElementReader& element_;
  const ArrayStart& array_start_;
  int depth_ = 0;
  std::string key_, building_key_;
  bool streaming_ = false, envelope_checked_ = false;
  std::size_t index_ = 0;
  OrderedJson value_;                 ///< the value being built
  std::vector<OrderedJson*> stack_;   ///< its open containers
};

}  // namespace

OrderedJson parse_document_streamed(std::string_view text, std::string_view name,
                                    std::vector<DocumentFormat> accepted, const ElementReader& element,
                                    const ArrayStart& array_start) {
  check_depth(text, name);
  StreamingHandler handler(text, name, accepted, element, array_start);
  try {
    OrderedJson::sax_parse(text.begin(), text.end(), &handler);
  } catch (const nlohmann::json::exception& e) {
    throw_other_json_error(e, name);
  }
  check_envelope(handler.top, name, accepted);
  return std::move(handler.top);
}

OrderedJson read_document(const std::string& path, std::vector<DocumentFormat> accepted) {
  return parse_document(read_input(path), input_display_name(path), std::move(accepted));
}

std::string dump_json(const OrderedJson& doc) {
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_document(const OrderedJson& doc, const std::string& path) { write_output(path, dump_json(doc)); }

}  // namespace vtools
