// Test and fuzz helper: the events of libcommon's scan_json and of nlohmann's SAX parser written as one string each,
// so that both readers of a text can be compared event by event.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "libcommon/json_scanner.hpp"

namespace vtools {

/// Events as text ("u:7", "s:\"x\"", "{", "k:\"a\"", ...): doubles by their bits, strings JSON-escaped.
struct JsonEventLog final : JsonEvents {
  std::vector<std::string> events;
  bool valid = false;

  static std::string quoted(const std::string& s) {
    return nlohmann::json(s).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  }
  void null() override { events.push_back("null"); }
  void boolean(bool v) override { events.push_back(v ? "true" : "false"); }
  void number_integer(std::int64_t v) override { events.push_back("i:" + std::to_string(v)); }
  void number_unsigned(std::uint64_t v) override { events.push_back("u:" + std::to_string(v)); }
  void number_float(double v) override {
    char buf[64];
    std::snprintf(buf, sizeof buf, "f:%a", v);
    events.push_back(buf);
  }
  void string(std::string& v) override { events.push_back("s:" + quoted(v)); }
  void key(std::string& k) override { events.push_back("k:" + quoted(k)); }
  void start_object() override { events.push_back("{"); }
  void end_object() override { events.push_back("}"); }
  void start_array() override { events.push_back("["); }
  void end_array() override { events.push_back("]"); }
};

/// nlohmann's SAX interface into a JsonEventLog.
struct NlohmannEventLog {
  JsonEventLog& log;
  bool null() { return log.null(), true; }
  bool boolean(bool v) { return log.boolean(v), true; }
  bool number_integer(std::int64_t v) { return log.number_integer(v), true; }
  bool number_unsigned(std::uint64_t v) { return log.number_unsigned(v), true; }
  bool number_float(double v, const std::string&) { return log.number_float(v), true; }
  bool string(std::string& v) { return log.string(v), true; }
  bool binary(nlohmann::json::binary_t&) { return true; }
  bool start_object(std::size_t) { return log.start_object(), true; }
  bool key(std::string& k) { return log.key(k), true; }
  bool end_object() { return log.end_object(), true; }
  bool start_array(std::size_t) { return log.start_array(), true; }
  bool end_array() { return log.end_array(), true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

inline JsonEventLog scanned_events(std::string_view text) {
  JsonEventLog log;
  log.valid = scan_json(text, log);
  return log;
}

inline JsonEventLog nlohmann_events(std::string_view text) {
  JsonEventLog log;
  NlohmannEventLog sax{log};
  log.valid = nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  return log;
}

}  // namespace vtools
