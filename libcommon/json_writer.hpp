// Streams JSON text without building a tree, for documents with 10^5+ records (a vtrace run of a PyTorch loop
// holds ~70k kernels per 500 iterations): nlohmann's ordered tree costs ~15 µs per 20-field record, this ~1 µs.
// Layout, chosen for large documents: containers marked `lines` put each element on its own line (the top-level
// object, arrays of records), everything else goes on one line (`{"a": 1, "b": [1, 2]}`), so one kernel is one
// line (grep- and diff-friendly).
// Strings are escaped as JSON requires; invalid UTF-8 is replaced like dump_json does.
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "libcommon/document.hpp"

namespace vtools {

class JsonWriter {
 public:
  enum class Layout { kCompact, kLines };

  explicit JsonWriter(std::string& out) : out_(out) {}
  /// A writer for elements of a kLines array `depth` containers deep (2: an array in the top-level object), alone:
  /// big arrays are formatted in blocks on several threads and sent out in order after before_elements().
  JsonWriter(std::string& out, int depth)
      : out_(out), levels_(static_cast<std::size_t>(depth), Level{Layout::kLines}) {}
  /// For elements a depth writer formatted that the caller sends out itself, right after this writer's output so
  /// far (a 10^8-byte document is written out block by block, never joined): writes the comma they need, if any.
  void before_elements();

  void begin_object(Layout layout = Layout::kCompact) { open('{', layout); }
  void end_object() { close('}'); }
  void begin_array(Layout layout = Layout::kCompact) { open('[', layout); }
  void end_array() { close(']'); }

  /// The key of the next value in the current object.
  void key(std::string_view name);

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(bool b) { scalar(b ? "true" : "false"); }
  void value(std::nullptr_t) { scalar("null"); }
  void value(double d);
  /// A small subtree (envelope, run metadata), written compact.
  void value(const OrderedJson& j);
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void value(T n) {
    before_value();
    append_integer(out_, n);
  }
  /// A compact array of integers ("[1024, 2, 1]"), formatted in one append: a kernel record has three (grid,
  /// block, cluster), and a trace 10^5 kernels.
  template <class T, std::size_t N, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void value(const std::array<T, N>& numbers) {
    char buf[2 + N * 22];
    char* p = buf;
    *p++ = '[';
    for (std::size_t i = 0; i < N; ++i) {
      if (i > 0) *p++ = ',', *p++ = ' ';
      p = std::to_chars(p, buf + sizeof buf, numbers[i]).ptr;
    }
    *p++ = ']';
    scalar(std::string_view(buf, static_cast<std::size_t>(p - buf)));
  }
  /// A value the caller formatted as JSON itself (a table row built in one buffer: a trace's 2 M access rows).
  void formatted(std::string_view json) { scalar(json); }
  /// `s` as a JSON string, `d` and `n` as value() writes them, appended to `out`: for formatted().
  static void append_string(std::string& out, std::string_view s);
  static void append_number(std::string& out, double d);
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  static void append_integer(std::string& out, T n) {
    char buf[24];
    out.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, n).ptr - buf));
  }

  template <class T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

 private:
  struct Level {
    Layout layout;
    bool empty = true;
  };
  void open(char bracket, Layout layout);
  void close(char bracket);
  void before_value() {  // comma/newline/indent before an element (not after a key: inline, most values follow one)
    if (after_key_) {
      after_key_ = false;
      return;
    }
    separate();
  }
  void separate();
  void scalar(std::string_view text) {
    before_value();
    out_ += text;
  }

  std::string& out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace vtools
