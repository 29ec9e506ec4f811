#include "tools/vtrace/sass_listing.hpp"

#include <cctype>

namespace vtools::vtrace {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// "/*00b0*/ rest" -> (0xb0, rest); nullopt-like false when the line does not start with a hex offset comment.
bool split_offset(std::string_view line, std::uint64_t& offset, std::string_view& rest) {
  if (line.substr(0, 2) != "/*") return false;
  const auto close = line.find("*/", 2);
  if (close == std::string_view::npos || close == 2 || close > 18) return false;
  offset = 0;
  for (char c : line.substr(2, close - 2)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    offset = offset * 16 + static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(c))
                                                          ? c - '0'
                                                          : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
  }
  rest = line.substr(close + 2);
  return true;
}

}  // namespace

SassListing SassListing::parse(std::string_view text) {
  SassListing out;
  std::string current;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    std::string_view line = trim(text.substr(0, eol));
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (line.size() > 8 && line.substr(0, 8) == ".section" && std::isspace(static_cast<unsigned char>(line[8]))) {
      // .section .text.<name>,"ax",@progbits
      std::string_view name = trim(line.substr(8));
      name = name.substr(0, name.find(','));
      current = name.substr(0, 6) == ".text." ? std::string(name.substr(6)) : std::string();
      continue;
    }
    if (line.size() > 7 && line.substr(0, 6) == ".text." && line.back() == ':') {  // .text.<name>: (a label)
      current = std::string(line.substr(6, line.size() - 7));
      continue;
    }
    std::uint64_t offset = 0;
    std::string_view rest;
    if (current.empty() || !split_offset(line, offset, rest)) continue;
    // "LDG.E R2, desc[UR4][R2.64] ;  /* 0x... */": the text up to the ';', without an encoding comment.
    rest = rest.substr(0, rest.find(';'));
    rest = trim(rest.substr(0, rest.find("/*")));
    if (!rest.empty()) out.functions_[current][offset] = std::string(rest);
  }
  return out;
}

const std::string* SassListing::instruction(std::string_view mangled_function, std::uint64_t offset) const {
  auto f = functions_.find(mangled_function);
  if (f == functions_.end()) return nullptr;
  auto i = f->second.find(offset);
  return i == f->second.end() ? nullptr : &i->second;
}

}  // namespace vtools::vtrace
