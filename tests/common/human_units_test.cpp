#include "libcommon/human_units.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "libcommon/table.hpp"

using namespace vtools;

TEST_CASE("human_units: sizes, durations, addresses, counts") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(232448) == "227.0 KiB");
  CHECK(format_bytes(3ull << 30) == "3.0 GiB");
  CHECK(format_duration_ns(850) == "850 ns");
  CHECK(format_duration_ns(12345) == "12.3 us");
  CHECK(format_duration_ms(4.567) == "4.57 ms");
  CHECK(format_duration_ns(1.5e9) == "1.50 s");
  CHECK(format_address(0x7f0000001000ull) == "0x7f0000001000");
  CHECK(format_count(1234567) == "1,234,567");
  CHECK(format_count(12) == "12");
  CHECK(format_si(1.23e12) == "1.23 T");
  CHECK(format_si(950) == "950");
}

TEST_CASE("human_units: a standard deviation of fewer than two samples is '-', not 0 ns") {
  CHECK(format_std_duration_ns(0, 0) == "-");
  CHECK(format_std_duration_ns(0, 1) == "-");
  CHECK(format_std_duration_ns(0, 2) == "0.00 ns");
  CHECK(format_std_duration_ns(12345, 3) == "12.3 us");
}

TEST_CASE("human_units: numbers read from documents, in and out of an integer's range") {
  CHECK(format_bytes_of(1536.0) == "1.5 KiB");
  CHECK(format_count_of(1234567.9) == "1,234,567");  // rounded toward zero, as a cast would
  CHECK(format_address_of(4096.0) == "0x1000");
  CHECK(format_count_of(18446744073709549568.0) == "18,446,744,073,709,549,568");  // the largest double below 2^64
  // Out of range (a cast would be undefined): the number itself.
  CHECK(format_count_of(1.10631e80) == "1.106e+80");
  CHECK(format_count_of(18446744073709551616.0) == "1.845e+19");
  CHECK(format_bytes_of(-5) == "-5 B");
  CHECK(format_address_of(-1) == "-1");
  CHECK(format_count_of(std::nan("")) == "nan");
}

TEST_CASE("table: text columns align, markdown escapes pipes") {
  Table t;
  t.headers = {"name", "bytes"};
  t.align = {Table::Align::kLeft, Table::Align::kRight};
  t.add_row({"acc", "65536"});
  t.add_row({"a|b", "8"});
  std::ostringstream text, md;
  write_text_table(t, text);
  CHECK(text.str() == "name  bytes\n-----------\nacc   65536\na|b       8\n");
  write_markdown_table(t, md);
  CHECK(md.str() == "| name | bytes |\n| --- | ---: |\n| acc | 65536 |\n| a\\|b | 8 |\n");
  std::ostringstream csv;
  t.add_row({"say \"hi\", twice", ""});
  t.add_row({"short"});  // missing cells are empty
  write_csv_table(t, csv);
  CHECK(csv.str() == "name,bytes\nacc,65536\na|b,8\n\"say \"\"hi\"\", twice\",\nshort,\n");
  CHECK(csv_number(0.1) == "0.1");  // the shortest text that reads back as the same double
  CHECK(csv_number(0.053119998425245285) == "0.053119998425245285");
  CHECK(csv_number(1e80) == "1e+80");
  CHECK(csv_number(NAN).empty());
}

TEST_CASE("table: columns align in terminal columns: wide CJK characters take two, combining marks none") {
  Table t;
  t.headers = {"kernel", "calls"};
  t.align = {Table::Align::kLeft, Table::Align::kRight};
  t.add_row({"名前", "1"});          // 2 characters, 4 columns
  t.add_row({"e\u0301tape", "22"});  // 'é' written as e + a combining accent: 5 columns
  t.add_row({"plain", "3"});
  std::ostringstream text;
  write_text_table(t, text);
  CHECK(text.str() == "kernel  calls\n-------------\n名前        1\ne\u0301tape      22\nplain       3\n");
}

TEST_CASE("table: cut_to_width cuts at a column count, between characters, never inside a UTF-8 sequence") {
  CHECK(display_width("名前e\u0301") == 5);
  CHECK(cut_to_width("abcdef", 6) == "abcdef");
  CHECK(cut_to_width("abcdefg", 6) == "abc...");
  CHECK(cut_to_width("名前名前名前", 12) == "名前名前名前");  // 12 columns: fits
  CHECK(cut_to_width("名前名前名前", 11) == "名前名前...");    // 8 columns of 8 room, then "..."
  CHECK(cut_to_width("名前名前名前", 10) == "名前名...");      // a wide character that does not fit is left out
  CHECK(cut_to_width("ab名前", 4) == "a...");
  CHECK(cut_to_width("\xff\xfe\xfd\xfc", 3) == "...");      // bytes that are no UTF-8: a column each
}

TEST_CASE("tables: control characters in cells are shown escaped, never sent to the terminal (issue 45, item 14)") {
  CHECK(printable("plain ü") == "plain ü");
  CHECK(printable("\x1b[31mred\nrow\t\x7f") == "\\x1b[31mred\\nrow\\t\\x7f");
  Table t;
  t.headers = {"kernel", "calls"};
  t.align = {Table::Align::kLeft, Table::Align::kRight};
  t.add_row({"\x1b[31mk\nx", "1"});
  std::ostringstream text, md;
  write_text_table(t, text);
  CHECK(text.str() == "kernel        calls\n-------------------\n\\x1b[31mk\\nx      1\n");
  write_markdown_table(t, md);
  CHECK(md.str().find("| \\x1b[31mk\\nx | 1 |") != std::string::npos);
  CHECK(text.str().find('\x1b') == std::string::npos);
}
