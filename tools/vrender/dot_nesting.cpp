#include "tools/vrender/dot_nesting.hpp"

#include <string>

#include "libcommon/error.hpp"

namespace vtools::vrender {

void check_dot_nesting(std::string_view dot, std::string_view name) {
  int depth = 0;
  bool line_start = true;  // only blanks so far on this line ('#' lines are Graphviz's preprocessor output)
  for (std::size_t i = 0; i < dot.size(); ++i) {
    const char c = dot[i];
    const bool at_line_start = line_start;
    line_start = c == '\n' || (line_start && (c == ' ' || c == '\t' || c == '\r'));
    if (c == '"') {  // a string: up to the next unescaped quote
      for (++i; i < dot.size() && dot[i] != '"'; ++i)
        if (dot[i] == '\\') ++i;
    } else if (c == '<') {  // an HTML label: up to its matching '>'
      int angles = 1;
      for (++i; i < dot.size() && angles > 0; ++i) angles += dot[i] == '<' ? 1 : dot[i] == '>' ? -1 : 0;
      --i;
    } else if (c == '/' && i + 1 < dot.size() && dot[i + 1] == '/') {
      i = dot.find('\n', i);
      if (i == std::string_view::npos) return;
      line_start = true;
    } else if (c == '#' && at_line_start) {
      i = dot.find('\n', i);
      if (i == std::string_view::npos) return;
      line_start = true;
    } else if (c == '/' && i + 1 < dot.size() && dot[i + 1] == '*') {
      i = dot.find("*/", i + 2);
      if (i == std::string_view::npos) return;
      ++i;
    } else if (c == '{') {
      if (++depth > kMaxDotNesting)
        throw Error(ExitCode::kDataError,
                    "expected at most " + std::to_string(kMaxDotNesting) + " nested '{' (subgraphs), got more",
                    location_of_offset(dot, i, std::string(name)));
    } else if (c == '}') {
      depth = depth > 0 ? depth - 1 : 0;
    }
  }
}

}  // namespace vtools::vrender
