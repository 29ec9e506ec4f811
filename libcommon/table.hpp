// Plain-text and Markdown tables for human output (`--format table|markdown`), and CSV for spreadsheets and
// dataframes (`--format csv`); writers only, no data logic.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace vtools {

struct Table {
  enum class Align { kLeft, kRight };
  std::vector<std::string> headers;
  std::vector<Align> align;  ///< per column; missing entries are kLeft
  std::vector<std::vector<std::string>> rows;

  void add_row(std::vector<std::string> row) { rows.push_back(std::move(row)); }
};

/// `text` with its control characters (C0, DEL) written as \n, \t, \r or \xNN: a kernel name holding an escape
/// sequence must not recolour the terminal, nor a newline split a row.
std::string printable(const std::string& text);

/// Columns `s` takes in a terminal (UTF-8 aware: 2 for wide characters, 0 for combining marks); a byte that starts
/// no well-formed UTF-8 sequence counts as one column.
std::size_t display_width(const std::string& s);

/// `text` when it takes at most `max_cols` columns (display_width), else its longest prefix of whole characters that
/// fits in `max_cols - 3` columns, then "...": a UTF-8 sequence is never split.
std::string cut_to_width(const std::string& text, std::size_t max_cols);

/// Columns padded to their widest cell (UTF-8 aware), two spaces apart, a dashed rule under the header; control
/// characters in cells are shown escaped (printable).
void write_text_table(const Table& table, std::ostream& out);

/// GitHub-flavoured Markdown; '|' in cells is escaped, and control characters as in printable().
void write_markdown_table(const Table& table, std::ostream& out);

/// write_markdown_table when `markdown`, else write_text_table (`--format markdown|table`).
void write_table(const Table& table, bool markdown, std::ostream& out);

/// CSV with RFC 4180 quoting: a header line, then one line per row; a cell holding a comma, a quote or a line break
/// is quoted (quotes doubled). Lines end in \n, as other command-line tools expect. Alignment is ignored.
void write_csv_table(const Table& table, std::ostream& out);

/// A number for a CSV cell: the shortest text that reads back as the same double; "" when not finite.
std::string csv_number(double v);

}  // namespace vtools
