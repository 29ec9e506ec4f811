#include "error.hpp"

#include <algorithm>

#include "table.hpp"

namespace vtools {

std::string SourceLocation::str() const {
  std::string s = file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s;
}

std::string quoted_value(const std::string& value, std::size_t max_cols) {
  return "'" + printable(cut_to_width(value, max_cols)) + "'";
}

static std::string compose(const std::string& message, const SourceLocation& where) {
  std::string loc = where.str();
  return loc.empty() ? message : loc + ": " + message;
}

Error::Error(ExitCode code, std::string message, SourceLocation where)
    : std::runtime_error(compose(message, where)),
      code_(code),
      message_(std::move(message)),
      where_(std::move(where)) {}

SourceLocation location_of_offset(std::string_view text, std::size_t offset, std::string file) {
  offset = std::min(offset, text.size());
  SourceLocation loc{std::move(file), 1, 1};
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

// Optimal string alignment distance: insertions, deletions, replacements and swaps of two neighbours ("tabel" for
// "table") each count 1, as typing slips do.
static std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string closest_match(std::string_view name, const std::vector<std::string>& candidates) {
  // Like ninja's SpellcheckString: suggest only when the distance is small relative to the name.
  const std::size_t max_distance = std::max<std::size_t>(1, name.size() / 3);
  std::string best;
  std::size_t best_distance = max_distance + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string with_suggestion(std::string message, std::string_view name, const std::vector<std::string>& candidates) {
  std::string best = closest_match(name, candidates);
  if (!best.empty()) message += "; did you mean '" + best + "'?";
  return message;
}

}  // namespace vtools
