#include "libcommon/json_scanner.hpp"

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vtools {

namespace {

constexpr std::size_t kProgressBytes = 8u << 20;  ///< how often (in bytes of text) scan_json calls `passed`

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// The value of one hex digit, -1 for anything else.
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The first byte at or after `p` that a string cannot copy as it is: '"', '\\', a control byte or a byte of a
/// multi-byte UTF-8 sequence; `end` when there is none.
const char* skip_plain(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  while (end - p >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed compare: bytes 0x80-0xFF are negative, so "< 0x20" also finds every non-ASCII byte.
    const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                      _mm_cmplt_epi8(x, space));
    if (const int mask = _mm_movemask_epi8(stop)) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
  }
  return end;
}

/// The first of `Bytes` at or after `p`, `end` if none.
template <char... Bytes>
const char* find_any(const char* p, const char* end) {
#if defined(__SSE2__)
  while (end - p >= 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_setzero_si128();
    ((hit = _mm_or_si128(hit, _mm_cmpeq_epi8(x, _mm_set1_epi8(Bytes)))), ...);
    if (const int mask = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && ((*p != Bytes) && ...)) ++p;
  return p;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp <= 0x7FF) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp <= 0xFFFF) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Scanner {
 public:
  Scanner(std::string_view text, JsonEvents& events, const ReadProgress& passed)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), events_(events), passed_(passed) {}
  /// Over a stream: the text comes into buf_ as the scanner needs it (more()).
  Scanner(TextStream& stream, JsonEvents& events, const ReadProgress& passed)
      : Scanner(std::string_view(), events, passed) {
    stream_ = &stream;
    buf_.resize(kStreamBufferBytes);
    begin_ = p_ = end_ = buf_.data();
  }

  /// The grammar of RFC 8259 as a loop over an explicit stack of open containers ('{' or '[').
  bool run() {
    if (have() && static_cast<unsigned char>(*p_) == 0xEF) {  // a byte order mark, or nlohmann's "invalid BOM"
      if (!need(3) || static_cast<unsigned char>(p_[1]) != 0xBB || static_cast<unsigned char>(p_[2]) != 0xBF)
        return false;
      p_ += 3;
    }
    std::vector<char> open;
    skip_blanks();
  value:
    if (!have()) return false;
    switch (*p_) {
      case '{':
        ++p_;
        events_.start_object();
        skip_blanks();
        if (p_ < end_ && *p_ == '}') {
          ++p_;
          events_.end_object();
          goto after_value;
        }
        open.push_back('{');
        goto member;
      case '[':
        ++p_;
        events_.start_array();
        skip_blanks();
        if (p_ < end_ && *p_ == ']') {
          ++p_;
          events_.end_array();
          goto after_value;
        }
        open.push_back('[');
        goto value;
      case '"':
        if (!string(text_)) return false;
        events_.string(text_);
        goto after_value;
      case 't':
        if (!literal("true")) return false;
        events_.boolean(true);
        goto after_value;
      case 'f':
        if (!literal("false")) return false;
        events_.boolean(false);
        goto after_value;
      case 'n':
        if (!literal("null")) return false;
        events_.null();
        goto after_value;
      default:
        if (!number()) return false;
        goto after_value;
    }
  member:  // a key, its colon, then its value
    if (p_ == end_ || *p_ != '"' || !string(key_)) return false;
    events_.key(key_);
    skip_blanks();
    if (p_ == end_ || *p_ != ':') return false;
    ++p_;
    skip_blanks();
    goto value;
  after_value:
    skip_blanks();  // p_ == end_ after it: the end of the text
    // nlohmann's lexer reads a NUL byte as the end of the input (for C strings): what follows one is not read.
    if (open.empty()) return p_ == end_ || *p_ == '\0';
    if (open.size() <= 2 && offset() - reported_ >= kProgressBytes && passed_) {
      reported_ = offset();
      passed_(reported_);
    }
    if (p_ == end_) return false;
    if (*p_ == ',') {
      ++p_;
      skip_blanks();
      if (open.back() == '{') goto member;
      goto value;
    }
    if (*p_ == (open.back() == '{' ? '}' : ']')) {
      ++p_;
      if (open.back() == '{')
        events_.end_object();
      else
        events_.end_array();
      open.pop_back();
      goto after_value;
    }
    return false;
  }

 private:
  static constexpr std::size_t kStreamBufferBytes = 1u << 20;

  /// The offset of p_ in the whole text.
  [[nodiscard]] std::size_t offset() const { return base_ + static_cast<std::size_t>(p_ - begin_); }

  /// Over a stream, reads more text after end_ (into buf_, after what is kept: from mark_ where a number is being
  /// read, else from p_); false at the end of the text. A token cut at the end of one read thus continues with the
  /// next; only a number's start (mark_) and p_ are pointers held across a call, and both are moved with the text.
  bool more() { return stream_ && !ended_ && refill(); }
  [[gnu::noinline]] bool refill() {
    const char* keep = mark_ ? mark_ : p_;
    const auto kept = static_cast<std::size_t>(end_ - keep), at = static_cast<std::size_t>(p_ - keep);
    base_ += static_cast<std::size_t>(keep - begin_);
    std::memmove(buf_.data(), keep, kept);
    if (kept == buf_.size()) buf_.resize(buf_.size() * 2);  // one token longer than the buffer
    const std::size_t n = stream_->read(buf_.data() + kept, buf_.size() - kept);
    begin_ = buf_.data();
    if (mark_) mark_ = begin_;
    p_ = begin_ + at;
    end_ = begin_ + kept + n;
    if (n == 0) ended_ = true;
    return n > 0;
  }
  /// A byte at p_ (reading more where it is at end_).
  bool have() { return p_ < end_ || more(); }
  /// `n` bytes at p_ (reading more as needed); false where the text ends before.
  bool need(std::size_t n) {
    while (static_cast<std::size_t>(end_ - p_) < n)
      if (!more()) return false;
    return true;
  }
  bool at_digit() { return have() && is_digit(*p_); }

  void skip_blanks() {
    do {
      while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\t' || *p_ == '\r')) ++p_;
    } while (p_ == end_ && more());
  }

  bool literal(std::string_view word) {
    if (!need(word.size()) || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  /// The string at p_ (its opening quote) into `out`, escapes resolved; p_ after its closing quote.
  bool string(std::string& out) {
    out.clear();
    ++p_;
    const char* run = p_;
    for (;;) {
      p_ = skip_plain(p_, end_);
      if (p_ == end_) {  // what was read goes into `out` before more() moves the text
        out.append(run, p_);
        if (!more()) return false;
        run = p_;
        continue;
      }
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out.append(run, p_);
        ++p_;
        return true;
      }
      if (c == '\\') {
        out.append(run, p_);
        if (!escape(out)) return false;
        run = p_;
        continue;
      }
      if (c < 0x20) return false;  // a control byte must be escaped
      if (end_ - p_ < 4 && stream_) {  // a UTF-8 sequence may go on in the next read
        out.append(run, p_);
        need(4);
        run = p_;
      }
      const std::size_t n = utf8_sequence(p_, end_);
      if (n == 0) return false;
      p_ += n;
    }
  }

  /// The escape at p_ (its backslash) appended to `out`; p_ after it.
  bool escape(std::string& out) {
    if (!need(2)) return false;
    const char c = p_[1];
    p_ += 2;
    switch (c) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default: return false;
    }
    int cp = codepoint();
    if (cp < 0) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: a low one must follow
      if (!need(2) || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      const int low = codepoint();
      if (low < 0xDC00 || low > 0xDFFF) return false;
      cp = ((cp - 0xD800) << 10) + (low - 0xDC00) + 0x10000;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return false;
    }
    append_utf8(out, static_cast<std::uint32_t>(cp));
    return true;
  }

  /// The 4 hex digits at p_ (after "\u"), -1 when they are not.
  int codepoint() {
    if (!need(4)) return -1;
    int cp = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = hex_value(p_[i]);
      if (h < 0) return -1;
      cp = cp * 16 + h;
    }
    p_ += 4;
    return cp;
  }

  /// The number at p_, reported with nlohmann's type (json_scanner.hpp). mark_ keeps its start in the text.
  bool number() {
    mark_ = p_;
    const bool ok = number_from_mark();
    mark_ = nullptr;
    return ok;
  }
  bool number_from_mark() {
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (!have()) return false;
    if (*p_ == '0') {
      ++p_;
    } else if (is_digit(*p_)) {
      while (at_digit()) ++p_;
    } else {
      return false;
    }
    bool integer = true;
    if (have() && *p_ == '.') {
      ++p_;
      if (!at_digit()) return false;
      while (at_digit()) ++p_;
      integer = false;
    }
    if (have() && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (have() && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!at_digit()) return false;
      while (at_digit()) ++p_;
      integer = false;
    }
    const char* start = mark_;
    if (integer) {  // as strtoll/strtoull: out of range falls through to a double
      if (negative) {
        std::int64_t v = 0;
        if (std::from_chars(start, p_, v).ec == std::errc()) {
          events_.number_integer(v);
          return true;
        }
      } else {
        std::uint64_t v = 0;
        if (std::from_chars(start, p_, v).ec == std::errc()) {
          events_.number_unsigned(v);
          return true;
        }
      }
    }
    // strtod as nlohmann calls it: on the token with '.' as the locale's decimal point.
    number_text_.assign(start, p_);
    const char point = *std::localeconv()->decimal_point;
    if (point != '.')
      for (char& ch : number_text_)
        if (ch == '.') ch = point;
    const double d = std::strtod(number_text_.c_str(), nullptr);
    if (!std::isfinite(d)) return false;  // nlohmann's error 406, "number overflow"
    events_.number_float(d);
    return true;
  }

  const char* begin_;  ///< the start of the text in memory (over a stream: of buf_, at offset base_)
  const char* p_;
  const char* end_;
  const char* mark_ = nullptr;  ///< the start of the number being read, kept in buf_ by more()
  std::size_t base_ = 0;
  TextStream* stream_ = nullptr;
  std::vector<char> buf_;
  bool ended_ = false;
  JsonEvents& events_;
  const ReadProgress& passed_;
  std::size_t reported_ = 0;
  std::string text_, key_, number_text_;  ///< reused: most strings fit the capacity the ones before left
};

/// find_json_depth_over's state between two pieces of text: the depth, and whether a string or an escape is open.
struct DepthCount {
  int max_depth;
  int depth = 0;
  bool in_string = false, escaped = false;

  /// The offset in [begin, end) of the first bracket over max_depth; npos when there is none.
  std::size_t scan(const char* const begin, const char* const end) {
    const char* p = begin;
    while (p < end) {
      if (escaped) {  // the escaped character
        escaped = false;
        ++p;
        continue;
      }
      if (in_string) {  // to its closing quote, over escaped characters
        p = find_any<'"', '\\'>(p, end);
        if (p == end) break;
        if (*p++ == '"')
          in_string = false;
        else
          escaped = true;
        continue;
      }
      p = find_any<'"', '[', ']', '{', '}'>(p, end);  // outside strings: to the next quote or bracket
      if (p == end) break;
      const char c = *p++;
      if (c == '[' || c == '{') {
        if (++depth > max_depth) return static_cast<std::size_t>(p - 1 - begin);
      } else if (c == ']' || c == '}') {
        --depth;
      } else {
        in_string = true;
      }
    }
    return std::string_view::npos;
  }
};

}  // namespace

std::size_t utf8_sequence(const char* p, const char* end) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(p[i]); };
  const auto in = [&](std::size_t i, unsigned lo, unsigned hi) {
    return p + i < end && b(i) >= lo && b(i) <= hi;
  };
  const unsigned c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (c == 0xE0) return in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xED) return in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;
  if (c == 0xF0) return in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (c == 0xF4) return in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

bool scan_json(std::string_view text, JsonEvents& events, const ReadProgress& passed) {
  return Scanner(text, events, passed).run();
}

bool scan_json(TextStream& text, JsonEvents& events, const ReadProgress& passed) {
  return Scanner(text, events, passed).run();
}

std::size_t find_json_depth_over(std::string_view text, int max_depth, const ReadProgress& passed) {
  DepthCount count{max_depth};
  for (std::size_t at = 0; at < text.size(); at += kProgressBytes) {
    if (at > 0 && passed) passed(at);
    const std::size_t n = std::min(kProgressBytes, text.size() - at);
    const std::size_t over = count.scan(text.data() + at, text.data() + at + n);
    if (over != std::string_view::npos) return at + over;
  }
  return std::string_view::npos;
}

std::size_t find_json_depth_over(TextStream& text, int max_depth) {
  DepthCount count{max_depth};
  std::vector<char> buf(1u << 20);
  std::size_t at = 0;
  while (const std::size_t n = text.read(buf.data(), buf.size())) {
    const std::size_t over = count.scan(buf.data(), buf.data() + n);
    if (over != std::string_view::npos) return at + over;
    at += n;
  }
  return std::string_view::npos;
}

}  // namespace vtools
