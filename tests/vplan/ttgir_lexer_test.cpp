#include "tools/vplan/ttgir_lexer.hpp"

#include <doctest/doctest.h>

#include "libcommon/error.hpp"

using namespace vtools;
using namespace vtools::vplan;

TEST_CASE("ttgir_lexer: kinds, spellings and line:col of each token") {
  const LexedTtgir lexed =
      lex_ttgir("%acc_60#2 = ttg.local_alloc : () -> !ttg.memdesc<3x1xi64, #shared>\n  loc(\"k.py\":7:0)", "k");
  const auto& t = lexed.tokens;
  REQUIRE(t.size() == 23);
  CHECK(t[0].kind == TokenKind::kValueId);
  CHECK(t[0].text() == "%acc_60#2");
  CHECK(t[2].kind == TokenKind::kBareId);
  CHECK(t[2].text() == "ttg.local_alloc");
  CHECK(t[6].kind == TokenKind::kArrow);
  CHECK(t[7].kind == TokenKind::kBangId);
  CHECK(t[9].kind == TokenKind::kInteger);  // "3" of 3x1xi64; "x1xi64" is an identifier the type reader splits
  CHECK(t[10].text() == "x1xi64");
  CHECK(t[12].kind == TokenKind::kHashId);
  CHECK(t[14].text() == "loc");
  CHECK(lexed.line(t[14]) == 2);
  CHECK(lexed.column(t[14]) == 3);
  CHECK(t[14].new_line);
  CHECK_FALSE(t[15].new_line);
  CHECK(lexed.line(t[13]) == 1);
  CHECK(lexed.column(t[13]) == 66);
  CHECK(t[16].kind == TokenKind::kString);
  CHECK(t.back().kind == TokenKind::kEof);
  CHECK(token_kind_spelling(TokenKind::kLBrace) == "'{'");
}

TEST_CASE("ttgir_lexer: negative numbers, floats, hex and value names with '-'") {
  const auto t = lex_ttgir("%c-1_i32 -1 1.5e-3 0xFF800000 // comment\n->", "k").tokens;
  CHECK(t[0].text() == "%c-1_i32");
  CHECK(t[1].kind == TokenKind::kInteger);
  CHECK(t[1].text() == "-1");
  CHECK(t[2].kind == TokenKind::kFloat);
  CHECK(t[2].text() == "1.5e-3");
  CHECK(t[3].text() == "0xFF800000");
  CHECK(t[4].kind == TokenKind::kArrow);
}

TEST_CASE("ttgir_lexer: binary garbage and unterminated strings are located errors") {
  try {
    lex_ttgir("module\n  \x01", "g.ttgir");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "g.ttgir:2:3: expected a token, got byte 0x01");
    CHECK(e.code() == ExitCode::kDataError);
  }
  try {
    lex_ttgir("loc(\"k.py\n", "s.ttgir");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "s.ttgir:1:5: expected '\"' to end the string, got end of line");
  }
}

TEST_CASE("ttgir_lexer: a long token is quoted cut between characters, never inside a UTF-8 sequence") {
  std::string wide, wide_cut;
  for (int i = 0; i < 30; ++i) wide += "名";
  for (int i = 0; i < 18; ++i) wide_cut += "名";
  const std::string text = "\"" + wide + "\"";  // the tokens point into it
  const LexedTtgir lexed = lex_ttgir(text, "w.ttgir");
  REQUIRE(lexed.tokens.size() == 2);
  CHECK(describe_token(lexed.tokens[0]) == "'\"" + wide_cut + "...'");  // '"' and 18 characters: 37 columns
}

TEST_CASE("ttgir_lexer: line:column are the lines the lexer counts (an escaped newline in a string is not one)") {
  // Line 1: `%a = "s\<newline>t" x`, continued; then blank lines, a comment and `y` at line 4 (as counted).
  const LexedTtgir lexed = lex_ttgir("%a = \"s\\\nt\" x\n\n// c\n  y", "k");
  const auto& t = lexed.tokens;
  REQUIRE(t.size() == 6);
  CHECK(t[2].kind == TokenKind::kString);
  CHECK(t[3].text() == "x");
  CHECK(lexed.line(t[3]) == 1);
  CHECK(lexed.column(t[3]) == 13);
  CHECK_FALSE(t[3].new_line);
  CHECK(t[4].text() == "y");
  CHECK(lexed.line(t[4]) == 4);
  CHECK(lexed.column(t[4]) == 3);
  CHECK(t[4].new_line);
  CHECK(t[5].kind == TokenKind::kEof);
  CHECK(lexed.line(t[5]) == 4);
  CHECK(lexed.column(t[5]) == 4);
  CHECK_FALSE(t[5].new_line);
  CHECK(sizeof(Token) == 16);
}
