#include "libcommon/json_writer.hpp"

#include <charconv>
#include <cstring>

namespace vtools {

void JsonWriter::separate() {
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (!level.empty) out_ += level.layout == Layout::kLines ? "," : ", ";
  level.empty = false;
  if (level.layout == Layout::kLines) {
    out_ += '\n';
    out_.append(2 * levels_.size(), ' ');
  }
}

void JsonWriter::open(char bracket, Layout layout) {
  before_value();
  out_ += bracket;
  levels_.push_back(Level{layout});
}

void JsonWriter::close(char bracket) {
  const Level level = levels_.back();
  levels_.pop_back();
  if (level.layout == Layout::kLines && !level.empty) {
    out_ += '\n';
    out_.append(2 * levels_.size(), ' ');
  }
  out_ += bracket;
  if (levels_.empty()) out_ += '\n';
}

void JsonWriter::before_elements() {
  Level& level = levels_.back();
  if (!level.empty) out_ += ',';
  level.empty = false;
}

namespace {

/// Printable ASCII without quotes or backslashes: copied as is. The check has no early exit so that the compiler
/// vectorises it: kernel names are ~250 characters, and a launch-bound trace holds 10^5 of them.
bool plain(std::string_view s) {
  unsigned char special = 0;  // bytes: keeps the vector lanes 16 wide
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    special |= (u < 0x20) | (u >= 0x7f) | (u == '"') | (u == '\\');
  }
  return special == 0;
}

}  // namespace

void JsonWriter::key(std::string_view name) {
  // A compact object's short plain key goes out with its separator in one append: a kernel record has 20 of them.
  constexpr std::size_t kMaxKey = 48;
  if (!after_key_ && !levels_.empty() && levels_.back().layout == Layout::kCompact && name.size() <= kMaxKey &&
      plain(name)) {
    char text[kMaxKey + 6];
    char* p = text;
    if (!levels_.back().empty) *p++ = ',', *p++ = ' ';
    levels_.back().empty = false;
    *p++ = '"';
    std::memcpy(p, name.data(), name.size());
    p += name.size();
    *p++ = '"', *p++ = ':', *p++ = ' ';
    out_.append(text, static_cast<std::size_t>(p - text));
  } else {
    value(name);
    out_ += ": ";
  }
  after_key_ = true;
}

void JsonWriter::value(std::string_view s) {
  before_value();
  append_string(out_, s);
}

void JsonWriter::append_string(std::string& out, std::string_view s) {
  // Plain text (nearly every name and path) is copied; anything else goes through nlohmann's escaper.
  if (!plain(s)) {
    out += OrderedJson(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

void JsonWriter::value(double d) {
  before_value();
  append_number(out_, d);
}

void JsonWriter::append_number(std::string& out, double d) {
  // The shortest form that reads back as `d`, in fixed notation where nlohmann's dump uses it too (a vtrace access
  // record has two averages, and a training step 2 M records); nlohmann for the rest (exponents; NaN and
  // infinities become null). Integral values keep their ".0".
  if (d >= 1e-4 && d < 1e15) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed).ptr;
    const std::string_view text(buf, static_cast<std::size_t>(end - buf));
    out += text;
    if (text.find('.') == std::string_view::npos) out += ".0";
    return;
  }
  out += OrderedJson(d).dump();
}

void JsonWriter::value(const OrderedJson& j) {
  before_value();
  out_ += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace vtools
