#include "table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace vtools {

// Columns a code point takes in a terminal: 2 for East Asian wide and fullwidth characters and emoji, 0 for
// combining marks, zero-width characters and variation selectors, else 1 (after Unicode's EastAsianWidth.txt, in
// broad ranges, as terminals draw them).
static std::size_t code_point_width(char32_t c) {
  auto in = [c](char32_t lo, char32_t hi) { return c >= lo && c <= hi; };
  if (in(0x0300, 0x036F) || in(0x1AB0, 0x1AFF) || in(0x1DC0, 0x1DFF) || in(0x20D0, 0x20FF) || in(0xFE20, 0xFE2F) ||
      in(0x200B, 0x200F) || in(0xFE00, 0xFE0F))
    return 0;
  if (in(0x1100, 0x115F) || in(0x2E80, 0x303E) || in(0x3041, 0x33FF) || in(0x3400, 0x4DBF) || in(0x4E00, 0x9FFF) ||
      in(0xA000, 0xA4CF) || in(0xAC00, 0xD7A3) || in(0xF900, 0xFAFF) || in(0xFE30, 0xFE4F) || in(0xFF00, 0xFF60) ||
      in(0xFFE0, 0xFFE6) || in(0x1F300, 0x1F64F) || in(0x1F900, 0x1F9FF) || in(0x20000, 0x3FFFD))
    return 2;
  return 1;
}

// The code point at s[i] and its length in bytes; a byte that does not start a well-formed UTF-8 sequence is one
// "code point" of one byte (shown as one column).
static std::size_t next_code_point(const std::string& s, std::size_t i, char32_t& c) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 1;
  c = n == 1 ? b : n == 2 ? b & 0x1F : n == 3 ? b & 0x0F : b & 0x07;
  bool ok = i + n <= s.size();
  for (std::size_t k = 1; ok && k < n; ++k) {
    const auto cont = static_cast<unsigned char>(s[i + k]);
    ok = (cont & 0xC0) == 0x80;
    c = (c << 6) | (cont & 0x3F);
  }
  if (ok) return n;
  c = b;
  return 1;
}

static std::size_t code_point_columns(char32_t c, std::size_t bytes) { return bytes == 1 ? 1 : code_point_width(c); }

std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    char32_t c = 0;
    const std::size_t n = next_code_point(s, i, c);
    w += code_point_columns(c, n);
    i += n;
  }
  return w;
}

std::string cut_to_width(const std::string& text, std::size_t max_cols) {
  if (display_width(text) <= max_cols) return text;
  const std::size_t room = max_cols > 3 ? max_cols - 3 : 0;
  std::size_t w = 0, i = 0;
  while (i < text.size()) {
    char32_t c = 0;
    const std::size_t n = next_code_point(text, i, c);
    const std::size_t cols = code_point_columns(c, n);
    if (w + cols > room) break;
    w += cols;
    i += n;
  }
  return text.substr(0, i) + "...";
}

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

static Table::Align align_of(const Table& t, std::size_t col) {
  return col < t.align.size() ? t.align[col] : Table::Align::kLeft;
}

void write_text_table(const Table& raw, std::ostream& out) {
  Table table = raw;  // cells made printable first, so widths are measured on what is shown
  for (auto& h : table.headers) h = printable(h);
  for (auto& r : table.rows)
    for (auto& cell : r) cell = printable(cell);
  std::size_t cols = table.headers.size();
  for (const auto& r : table.rows) cols = std::max(cols, r.size());
  std::vector<std::size_t> width(cols, 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], display_width(row[c]));
  };
  measure(table.headers);
  for (const auto& r : table.rows) measure(r);
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < cols; ++c) {
      std::string cell = c < row.size() ? row[c] : "";
      std::string pad(width[c] - display_width(cell), ' ');
      line += align_of(table, c) == Table::Align::kRight ? pad + cell : cell + pad;
      if (c + 1 < cols) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  print(table.headers);
  std::size_t total = 0;
  for (std::size_t c = 0; c < cols; ++c) total += width[c] + (c + 1 < cols ? 2 : 0);
  out << std::string(total, '-') << "\n";
  for (const auto& r : table.rows) print(r);
}

static std::string escape_md(const std::string& s) {
  std::string out;
  for (char c : printable(s)) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

void write_markdown_table(const Table& table, std::ostream& out) {
  std::size_t cols = table.headers.size();
  out << "|";
  for (const auto& h : table.headers) out << " " << escape_md(h) << " |";
  out << "\n|";
  for (std::size_t c = 0; c < cols; ++c) out << (align_of(table, c) == Table::Align::kRight ? " ---: |" : " --- |");
  out << "\n";
  for (const auto& r : table.rows) {
    out << "|";
    for (std::size_t c = 0; c < cols; ++c) out << " " << (c < r.size() ? escape_md(r[c]) : "") << " |";
    out << "\n";
  }
}

namespace {
void write_csv_cell(const std::string& cell, std::ostream& out) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) {
    out << cell;
    return;
  }
  out << '"';
  for (const char c : cell) out << (c == '"' ? "\"\"" : std::string(1, c));
  out << '"';
}

void write_csv_line(const std::vector<std::string>& cells, std::size_t cols, std::ostream& out) {
  for (std::size_t c = 0; c < cols; ++c) {
    if (c > 0) out << ',';
    if (c < cells.size()) write_csv_cell(cells[c], out);
  }
  out << '\n';
}
}  // namespace

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "";
}

void write_csv_table(const Table& table, std::ostream& out) {
  write_csv_line(table.headers, table.headers.size(), out);
  for (const auto& r : table.rows) write_csv_line(r, table.headers.size(), out);
}

void write_table(const Table& table, bool markdown, std::ostream& out) {
  if (markdown)
    write_markdown_table(table, out);
  else
    write_text_table(table, out);
}

}  // namespace vtools
