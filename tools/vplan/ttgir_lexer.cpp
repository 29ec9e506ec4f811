#include "tools/vplan/ttgir_lexer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>

#include "libcommon/error.hpp"

namespace vtools::vplan {

std::string_view token_kind_spelling(TokenKind kind) {
  switch (kind) {
#define VPLAN_TOKEN_CASE(name, spelling) \
  case TokenKind::name:                  \
    return spelling;
    VPLAN_TTGIR_TOKENS(VPLAN_TOKEN_CASE)
#undef VPLAN_TOKEN_CASE
  }
  return "token";
}

std::size_t LineIndex::starts_up_to(std::size_t offset) const {
  const std::size_t n = starts_.size();
  auto fits = [&](std::size_t k) { return (k == 0 || starts_[k - 1] <= offset) && (k == n || offset < starts_[k]); };
  if (fits(last_)) return last_;
  if (last_ < n && fits(last_ + 1)) return ++last_;
  last_ = static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin());
  return last_;
}

int LineIndex::line(std::size_t offset) const { return 1 + static_cast<int>(starts_up_to(offset)); }

int LineIndex::column(std::size_t offset) const {
  const std::size_t k = starts_up_to(offset);
  return static_cast<int>(offset - (k == 0 ? 0 : starts_[k - 1])) + 1;
}

std::string describe_token(const Token& token) {
  if (token.kind == TokenKind::kEof) return "end of file";
  return quoted_value(std::string(token.text()));
}

namespace {

bool is_id_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// MLIR LangRef "Identifiers and keywords": bare-id continues with [A-Za-z0-9_$.]; suffix-id (%value, #alias, ...)
// also allows '-'.
bool is_id_char(char c) { return is_id_start(c) || is_digit(c) || c == '$' || c == '.'; }
bool is_suffix_char(char c) { return is_id_char(c) || c == '-'; }

}  // namespace

Token TtgirLexer::next() {
  if (at_end_) return eof_;
  skip_space();
  const int line = line_;
  Token t = lex_one();
  t.new_line = line != last_line_;
  last_line_ = line;
  if (t.kind == TokenKind::kEof) at_end_ = true, eof_ = t;
  return t;
}

void TtgirLexer::fail(const std::string& what, int line, int column) {
  failed_ = true;
  throw Error(ExitCode::kDataError, what, SourceLocation{std::string(name_), line, column});
}

void TtgirLexer::advance() {
  if (text_[pos_] == '\n') {
    ++line_;
    line_start_ = pos_ + 1;
    lines_.add_start(line_start_);
  }
  ++pos_;
}

void TtgirLexer::skip_space() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

Token TtgirLexer::make(TokenKind kind, std::size_t start, int line, int column) {
  if (pos_ - start > std::numeric_limits<std::uint32_t>::max()) fail("expected a token shorter than 4 GiB", line, column);
  return Token{text_.data() + start, static_cast<std::uint32_t>(pos_ - start), kind, false};
}

Token TtgirLexer::lex_one() {
  const std::size_t start = pos_;
  const int line = line_;
  const int column = static_cast<int>(pos_ - line_start_) + 1;
  if (pos_ >= text_.size()) return Token{text_.data() + pos_, 0, TokenKind::kEof, false};
  const char c = text_[pos_];
  auto single = [&](TokenKind k) {
    ++pos_;
    return make(k, start, line, column);
  };
  switch (c) {
    case '(': return single(TokenKind::kLParen);
    case ')': return single(TokenKind::kRParen);
    case '[': return single(TokenKind::kLSquare);
    case ']': return single(TokenKind::kRSquare);
    case '{': return single(TokenKind::kLBrace);
    case '}': return single(TokenKind::kRBrace);
    case '<': return single(TokenKind::kLess);
    case '>': return single(TokenKind::kGreater);
    case ',': return single(TokenKind::kComma);
    case ':': return single(TokenKind::kColon);
    case '=': return single(TokenKind::kEqual);
    case '*': return single(TokenKind::kStar);
    case '?': return single(TokenKind::kQuestion);
    case '+': return single(TokenKind::kPlus);
    case '-':
      if (peek(1) == '>') {
        pos_ += 2;
        return make(TokenKind::kArrow, start, line, column);
      }
      if (is_digit(peek(1))) return number(start, line, column);
      return single(TokenKind::kMinus);
    case '"': return string(start, line, column);
    case '%': return prefixed(TokenKind::kValueId, start, line, column, true);
    case '#': return prefixed(TokenKind::kHashId, start, line, column, false);
    case '!': return prefixed(TokenKind::kBangId, start, line, column, false);
    case '@': return prefixed(TokenKind::kAtId, start, line, column, false);
    case '^': return prefixed(TokenKind::kCaretId, start, line, column, false);
    default: break;
  }
  if (is_digit(c)) return number(start, line, column);
  if (is_id_start(c)) {
    while (pos_ < text_.size() && is_id_char(text_[pos_])) ++pos_;
    return make(TokenKind::kBareId, start, line, column);
  }
  char shown[16];
  if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
    std::snprintf(shown, sizeof shown, "'%c'", c);
  else
    std::snprintf(shown, sizeof shown, "byte 0x%02x", static_cast<unsigned char>(c));
  fail(std::string("expected a token, got ") + shown, line, column);
}

// %name, %0, %name#2 (result number), #alias, !dialect.type, @symbol, ^bb0; a string after '@' or '%' is kept.
Token TtgirLexer::prefixed(TokenKind kind, std::size_t start, int line, int column, bool allow_result_number) {
  ++pos_;
  if (peek() == '"') {
    Token s = string(pos_, line, column);
    (void)s;
    return make(kind, start, line, column);
  }
  const std::size_t body = pos_;
  while (pos_ < text_.size() && is_suffix_char(text_[pos_])) ++pos_;
  if (pos_ == body)
    fail("expected a name after '" + std::string(1, text_[start]) + "', got " +
             (pos_ < text_.size() ? "'" + std::string(1, text_[pos_]) + "'" : std::string("end of file")),
         line, column);
  if (allow_result_number && peek() == '#' && is_digit(peek(1))) {
    ++pos_;
    while (is_digit(peek())) ++pos_;
  }
  return make(kind, start, line, column);
}

Token TtgirLexer::number(std::size_t start, int line, int column) {
  if (text_[pos_] == '-') ++pos_;
  if (peek() == '0' && peek(1) == 'x') {
    pos_ += 2;
    while (std::isxdigit(static_cast<unsigned char>(peek()))) ++pos_;
    return make(TokenKind::kInteger, start, line, column);
  }
  while (is_digit(peek())) ++pos_;
  bool is_float = false;
  if (peek() == '.' && is_digit(peek(1))) {
    is_float = true;
    ++pos_;
    while (is_digit(peek())) ++pos_;
  } else if (peek() == '.') {
    is_float = true;
    ++pos_;
  }
  if (is_float && (peek() == 'e' || peek() == 'E') &&
      (is_digit(peek(1)) || ((peek(1) == '-' || peek(1) == '+') && is_digit(peek(2))))) {
    pos_ += 2;
    while (is_digit(peek())) ++pos_;
  }
  return make(is_float ? TokenKind::kFloat : TokenKind::kInteger, start, line, column);
}

Token TtgirLexer::string(std::size_t start, int line, int column) {
  ++pos_;
  while (true) {
    if (pos_ >= text_.size() || text_[pos_] == '\n') fail("expected '\"' to end the string, got end of line", line, column);
    if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
      pos_ += 2;
      continue;
    }
    if (text_[pos_] == '"') break;
    ++pos_;
  }
  ++pos_;
  return make(TokenKind::kString, start, line, column);
}

TokenStream::TokenStream(std::string_view text, std::string_view name) : lexer_(text, name) {
  for (std::size_t i = 0; i <= kAhead; ++i) window_[i] = lexer_.next();
}

void TokenStream::drain() {
  while (!lexer_.failed() && lexer_.next().kind != TokenKind::kEof) {
  }
}

LexedTtgir lex_ttgir(std::string_view text, std::string_view name) {
  TtgirLexer lexer(text, name);
  LexedTtgir out;
  out.base = text.data();
  out.tokens.reserve(text.size() / 4 + 1);  // Triton's TTGIR: ~4.6 bytes per token
  do {
    out.tokens.push_back(lexer.next());
  } while (out.tokens.back().kind != TokenKind::kEof);
  out.lines = std::move(lexer).take_lines();
  return out;
}

}  // namespace vtools::vplan
