// A fast JSON reader for the streamed document path (document.cpp): it reads the text once, front to back, and
// reports the events nlohmann's SAX parser reports, with the same values and number types, without nlohmann's
// per-character input adapter and token buffer (~5x faster on a vtools.trace). It only tells valid from invalid:
// for invalid text the caller runs nlohmann's parser, whose message (reason, line:column) users see.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "libcommon/text_stream.hpp"

namespace vtools {

/// What scan_json reports, in document order. Numbers take nlohmann's types: an integer written without '-' that
/// fits 64 bits is unsigned, one written with '-' that fits is signed, any other number (a fraction, an exponent,
/// out of range) is a double as strtod reads it.
class JsonEvents {
 public:
  virtual ~JsonEvents() = default;
  virtual void null() = 0;
  virtual void boolean(bool v) = 0;
  virtual void number_integer(std::int64_t v) = 0;
  virtual void number_unsigned(std::uint64_t v) = 0;
  virtual void number_float(double v) = 0;
  /// The decoded string (escapes resolved); the receiver may move from it.
  virtual void string(std::string& v) = 0;
  virtual void key(std::string& k) = 0;
  virtual void start_object() = 0;
  virtual void end_object() = 0;
  virtual void start_array() = 0;
  virtual void end_array() = 0;
};

/// The length of the well-formed UTF-8 sequence at `p` (RFC 3629: no overlong form, surrogate or code point past
/// U+10FFFF; the ranges nlohmann's lexer accepts), 0 if it is not one.
std::size_t utf8_sequence(const char* p, const char* end);

/// Called with an offset as a reader goes: the bytes before it have been read (see InputText::passed).
using ReadProgress = std::function<void(std::size_t offset)>;

/// Reads `text` as one JSON value (after an optional UTF-8 byte order mark, with whitespace around it) as nlohmann
/// does, reporting each event as it is read, and `passed` every few MiB. Returns false at the first byte that
/// makes the text invalid JSON (as nlohmann would, events up to there have been reported); true when it is valid.
/// A float out of a double's range (1e999) counts as invalid, as it is nlohmann's error 406.
bool scan_json(std::string_view text, JsonEvents& events, const ReadProgress& passed = {});

/// scan_json over a text read in pieces (a compressed input's, as it is decompressed): a token cut between two
/// reads is read whole; in memory are the current read (1 MiB) and the token it continues. `passed` hears offsets in
/// the whole text.
bool scan_json(TextStream& text, JsonEvents& events, const ReadProgress& passed = {});

/// The offset of the first '[' or '{' outside strings that opens more than `max_depth` of them, counting brackets as
/// they come whether or not the text is valid JSON; npos when there is none. Calls `passed` as scan_json does.
std::size_t find_json_depth_over(std::string_view text, int max_depth, const ReadProgress& passed = {});

/// find_json_depth_over over a text read in pieces; the offset is in the whole text.
std::size_t find_json_depth_over(TextStream& text, int max_depth);

}  // namespace vtools
