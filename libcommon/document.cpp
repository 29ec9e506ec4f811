#include "document.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <functional>
#include <istream>
#include <memory>
#include <streambuf>
#include <vector>

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

// Refuses nesting deeper than kMaxJsonDepth before the recursive parser sees it (over the whole text first, so that
// this error comes before any other).
static void check_depth(std::string_view text, std::string_view name, const ReadProgress& passed = {}) {
  const std::size_t at = find_json_depth_over(text, kMaxJsonDepth, passed);
  if (at != std::string_view::npos)
    throw Error(ExitCode::kDataError, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                location_of_offset(text, at, std::string(name)));
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

/// One pass over the text of `open` up to `end` bytes: the location of offset `from` (file:line:col), and the bytes
/// [from, end) in `tail` (fewer where the text ends before). For an error in a text never held whole.
static SourceLocation stream_location(const OpenText& open, std::size_t from, std::size_t end, std::string_view name,
                                      std::string* tail = nullptr) {
  SourceLocation loc{std::string(name), 1, 1};
  const std::unique_ptr<TextStream> stream = open();
  std::vector<char> buf(1u << 20);
  for (std::size_t at = 0; at < end;) {
    const std::size_t n = stream->read(buf.data(), std::min(buf.size(), end - at));
    if (n == 0) break;
    for (std::size_t i = 0; i < n && at + i < from; ++i) {
      if (buf[i] == '\n') {
        ++loc.line;
        loc.column = 1;
      } else {
        ++loc.column;
      }
    }
    if (tail && at + n > from) {
      const std::size_t skip = from > at ? from - at : 0;
      tail->append(buf.data() + skip, n - skip);
    }
    at += n;
  }
  return loc;
}

/// check_depth over a text read in passes.
static void check_depth(const OpenText& open, std::string_view name) {
  const std::size_t at = find_json_depth_over(*open(), kMaxJsonDepth);
  if (at != std::string_view::npos)
    throw Error(ExitCode::kDataError, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                stream_location(open, at, at, name));
}

/// location_of_offset(text, token_start(text, stop_byte)) for a text read in passes: the token is looked for in the
/// last MiB before the stop (a longer token is pointed at inside).
static SourceLocation stream_token_location(const OpenText& open, std::size_t stop_byte, std::string_view name) {
  constexpr std::size_t kWindowBytes = 1u << 20;
  const std::size_t from = stop_byte > kWindowBytes ? stop_byte - kWindowBytes : 0;
  std::string window;
  const SourceLocation before = stream_location(open, from, stop_byte, name, &window);
  const SourceLocation in = location_of_offset(window, token_start(window, stop_byte - from), std::string(name));
  if (in.line == 1) return {before.file, before.line, before.column + in.column - 1};
  return {before.file, before.line + in.line - 1, in.column};
}

namespace {

/// A TextStream as a std::streambuf, for nlohmann's parser (which reads an istream's buffer directly).
class TextStreamBuffer final : public std::streambuf {
 public:
  explicit TextStreamBuffer(TextStream& stream) : stream_(stream), buf_(1u << 16) {}

 protected:
  int_type underflow() override {
    const std::size_t n = stream_.read(buf_.data(), buf_.size());
    if (n == 0) return traits_type::eof();
    setg(buf_.data(), buf_.data(), buf_.data() + n);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  TextStream& stream_;
  std::vector<char> buf_;
};

}  // namespace

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

/// What a streamed parse reads: a text in memory (or mapped), or, where `open` is set, passes over a text never held
/// whole (a compressed input's, decompressed as it is read).
struct DocumentText {
  std::string_view whole;
  const OpenText* open = nullptr;
};

/// Thrown by StreamingHandler at a container that would open more than kMaxJsonDepth: parse_streamed then runs
/// check_depth, which words the error and finds where.
struct DepthOver {};

/// Events -> the top-level object's members, each array's elements handed out one by one (see
/// parse_document_streamed). `depth_` counts the containers open; the top-level object is depth 1. The element being
/// built is kept after it is handed out and the next one is written over it in place (same keys, same strings'
/// capacity), so a 10^6-record array costs no allocation per record where records share their shape.
class StreamingHandler final : public JsonEvents {
 public:
  StreamingHandler(const DocumentText& text, std::string_view name, const std::vector<DocumentFormat>& accepted,
                   const ElementReader& element, const ArrayStart& array_start)
      : text_(text), name_(name), accepted_(accepted), element_(element), array_start_(array_start) {}

  OrderedJson top;

  void null() override { set(nullptr); }
  void boolean(bool v) override { set(v); }
  void number_integer(std::int64_t v) override { set(v); }
  void number_unsigned(std::uint64_t v) override { set(v); }
  void number_float(double v) override { set(v); }
  void string(std::string& v) override {
    const bool whole = stack_.empty();
    OrderedJson* s = slot();
    if (s->is_string())
      s->get_ref<std::string&>() = v;  // keeps the capacity of the string it replaces
    else
      *s = v;
    if (whole) done();
  }
  void start_object() override { open(OrderedJson::value_t::object); }
  void start_array() override {
    if (depth_ == 1) {  // a top-level array: its elements are handed out, an empty one stays in its place
      top[key_] = OrderedJson::array();
      if (array_start_) array_start_(key_);
      streaming_ = true;
      index_ = 0;
      ++depth_;
      return;
    }
    open(OrderedJson::value_t::array);
  }
  void key(std::string& k) override {
    if (depth_ == 1)
      key_ = k;
    else
      building_key_ = k;
  }
  void end_object() override { close(); }
  void end_array() override {
    if (depth_ == 2 && streaming_) {
      streaming_ = false;
      --depth_;
      return;
    }
    close();
  }
  /// nlohmann's report of invalid JSON (parse_document_streamed's second pass) as vtools' message.
  [[noreturn]] void parse_error(std::size_t byte, const nlohmann::detail::exception& e) const {
    if (e.id == 406)  // "number overflow" (found by fuzz_document): the number, not echoed, is still bad input
      throw Error(ExitCode::kDataError, "invalid JSON: a number is out of range (beyond a 64-bit float)",
                  SourceLocation{std::string(name_)});
    if (text_.open) {
      char first = 0;
      const bool empty = (*text_.open)()->read(&first, 1) == 0;
      throw Error(ExitCode::kDataError,
                  "invalid JSON: " + (empty ? "empty input, expected a JSON document" : parse_error_reason(e.what())),
                  stream_token_location(*text_.open, byte, name_));
    }
    const std::string_view text = text_.whole;
    const std::string reason = text.empty() ? "empty input, expected a JSON document" : parse_error_reason(e.what());
    throw Error(ExitCode::kDataError, "invalid JSON: " + reason,
                location_of_offset(text, token_start(text, byte), std::string(name_)));
  }

 private:
  using Members = OrderedJson::object_t::Container;

  /// A container being filled: the first `filled` members (elements) are this pass's, the rest an older value's.
  struct Open {
    OrderedJson* json;
    std::size_t filled;
  };

  /// Where the next value goes: the element's root, the next element of an array, or the member building_key_.
  OrderedJson* slot() {
    if (depth_ == 0) not_an_object();
    if (stack_.empty()) return &value_;
    Open& o = stack_.back();
    if (o.json->is_array()) {
      auto& elements = o.json->get_ref<OrderedJson::array_t&>();
      if (o.filled == elements.size()) elements.emplace_back();
      return &elements[o.filled++];
    }
    Members& members = o.json->get_ref<OrderedJson::object_t&>();  // as a vector: ordered_map's [] takes a key
    if (o.filled < members.size() && members[o.filled].first == building_key_) return &members[o.filled++].second;
    for (std::size_t i = 0; i < o.filled; ++i)  // a repeated key: its last value, in the first one's place
      if (members[i].first == building_key_) return &members[i].second;
    while (members.size() > o.filled) members.pop_back();
    members.emplace_back(building_key_, nullptr);
    ++o.filled;
    return &members.back().second;
  }
  /// A scalar; one that is a whole value (a top-level member, an element of a top-level array) is done once set.
  template <class T>
  void set(T v) {
    const bool whole = stack_.empty();
    *slot() = v;
    if (whole) done();
  }
  void open(OrderedJson::value_t type) {
    if (depth_ >= kMaxJsonDepth) throw DepthOver{};  // before the tree grows deeper than a destructor should recurse
    if (depth_ == 0) {
      if (type != OrderedJson::value_t::object) not_an_object();
      ++depth_;
      return;
    }
    OrderedJson* s = slot();
    if (s->type() != type) *s = OrderedJson(type);
    ++depth_;
    stack_.push_back({s, 0});
  }
  void close() {
    --depth_;
    if (depth_ == 0) return;  // the top-level object
    Open& o = stack_.back();
    if (o.json->is_array()) {
      o.json->get_ref<OrderedJson::array_t&>().resize(o.filled);
    } else {
      Members& members = o.json->get_ref<OrderedJson::object_t&>();
      while (members.size() > o.filled) members.pop_back();
    }
    stack_.pop_back();
    if (stack_.empty()) done();
  }
  /// value_ is a whole value: a top-level member, or an element of a top-level array.
  void done() {
    if (!streaming_) {
      top[key_] = std::move(value_);
      return;
    }
    // vtools writers put the envelope first; a version after the arrays is checked at the end
    if (!envelope_checked_ && top.contains("format") && top.contains("version")) {
      check_envelope(top, name_, accepted_);
      envelope_checked_ = true;
    }
    element_(key_, index_++, std::move(value_));  // a reader that leaves it there gets it back to write over
  }
  [[noreturn]] void not_an_object() const {
    std::string expected;
    for (const auto& f : accepted_) expected += (expected.empty() ? "'" : " or '") + std::string(f.name) + "'";
    throw Error(ExitCode::kDataError, "expected a JSON object with \"format\" " + expected,
                SourceLocation{std::string(name_)});
  }

  const DocumentText& text_;
  std::string_view name_;
  const std::vector<DocumentFormat>& accepted_;
  const ElementReader& element_;
  const ArrayStart& array_start_;
  int depth_ = 0;
  std::string key_, building_key_;
  bool streaming_ = false, envelope_checked_ = false;
  std::size_t index_ = 0;
  OrderedJson value_;        ///< the value being built
  std::vector<Open> stack_;  ///< its open containers
};

/// nlohmann's SAX interface over a StreamingHandler: the second pass of parse_document_streamed.
struct NlohmannEvents {
  StreamingHandler& to;
  bool null() { return to.null(), true; }
  bool boolean(bool v) { return to.boolean(v), true; }
  bool number_integer(std::int64_t v) { return to.number_integer(v), true; }
  bool number_unsigned(std::uint64_t v) { return to.number_unsigned(v), true; }
  bool number_float(double v, const std::string&) { return to.number_float(v), true; }
  bool string(std::string& v) { return to.string(v), true; }
  bool binary(nlohmann::json::binary_t&) { return to.null(), true; }  // JSON text has none
  bool start_object(std::size_t) { return to.start_object(), true; }
  bool key(std::string& k) { return to.key(k), true; }
  bool end_object() { return to.end_object(), true; }
  bool start_array(std::size_t) { return to.start_array(), true; }
  bool end_array() { return to.end_array(), true; }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) {
    to.parse_error(byte, e);
  }
};

/// parse_document_streamed over a text in memory or read in passes: the fast scanner, which refuses nesting past
/// kMaxJsonDepth as it goes, then (invalid JSON only) nlohmann's parser for the error's words. A valid document is
/// read once (a compressed one decompressed once). A read that fails for any reason reads the whole text again for
/// the depth check before its own error, so that "nested deeper" comes first, as when the check ran over the whole
/// text before the records (which cost a second pass, ~0.35 s of zstd at 1M launches, on every read).
OrderedJson parse_streamed(const DocumentText& text, std::string_view name, const std::vector<DocumentFormat>& accepted,
                           const ElementReader& element, const ReadProgress& passed, const ArrayStart& array_start) {
  const auto depth_first = [&] {
    if (text.open)
      check_depth(*text.open, name);
    else
      check_depth(text.whole, name, passed);
  };
  std::size_t delivered = 0;
  const ElementReader counted = [&](std::string_view key, std::size_t index, OrderedJson&& v) {
    element(key, index, std::move(v));
    ++delivered;
  };
  try {
    StreamingHandler handler(text, name, accepted, counted, array_start);
    const bool valid = text.open ? scan_json(*(*text.open)(), handler, passed) : scan_json(text.whole, handler, passed);
    if (valid) {
      check_envelope(handler.top, name, accepted);
      return std::move(handler.top);
    }
  } catch (const DepthOver&) {
    depth_first();
    throw Error(ExitCode::kInternal, "JSON nesting over the limit was not found again", SourceLocation{std::string(name)});
  } catch (...) {
    depth_first();
    throw;
  }
  depth_first();
  // Invalid JSON: nlohmann's parser says where and why. It reports the same events up to the byte scan_json stopped
  // at; the elements handed out already are not handed out again (and should nlohmann read on, the rest are).
  std::size_t skip = delivered;
  const ElementReader rest = [&](std::string_view key, std::size_t index, OrderedJson&& v) {
    if (skip > 0) {
      --skip;
      return;
    }
    element(key, index, std::move(v));
  };
  StreamingHandler handler(text, name, accepted, rest, array_start);
  NlohmannEvents events{handler};
  try {
    if (text.open) {
      const std::unique_ptr<TextStream> stream = (*text.open)();
      TextStreamBuffer buffer(*stream);
      std::istream in(&buffer);
      OrderedJson::sax_parse(in, &events);
    } else {
      OrderedJson::sax_parse(text.whole.begin(), text.whole.end(), &events);
    }
  } catch (const nlohmann::json::exception& e) {
    throw_other_json_error(e, name);
  }
  check_envelope(handler.top, name, accepted);
  return std::move(handler.top);
}

}  // namespace

OrderedJson parse_document_streamed(std::string_view text, std::string_view name,
                                    std::vector<DocumentFormat> accepted, const ElementReader& element,
                                    const ReadProgress& passed, const ArrayStart& array_start) {
  return parse_streamed(DocumentText{text}, name, accepted, element, passed, array_start);
}

OrderedJson parse_document_streamed(const OpenText& open, std::string_view name, std::vector<DocumentFormat> accepted,
                                    const ElementReader& element, const ArrayStart& array_start) {
  return parse_streamed(DocumentText{{}, &open}, name, accepted, element, {}, array_start);
}

OrderedJson read_document(const std::string& path, std::vector<DocumentFormat> accepted) {
  return parse_document(read_input(path), input_display_name(path), std::move(accepted));
}

std::string dump_json(const OrderedJson& doc) {
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_document(const OrderedJson& doc, const std::string& path) { write_output(path, dump_json(doc)); }

}  // namespace vtools
