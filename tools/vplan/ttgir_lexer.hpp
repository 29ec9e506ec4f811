// Breaks TTGIR text (MLIR's textual form as Triton prints it) into tokens with line:column, handed out one at a
// time (TtgirLexer, TokenStream); knows no grammar.
// The token kinds and the spellings used in messages are listed once, in VPLAN_TTGIR_TOKENS (after MLIR's
// TokenKinds.def). The parser (ttgir_reader) decides what the tokens mean.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vtools::vplan {

// X(enumerator, spelling in messages)
#define VPLAN_TTGIR_TOKENS(X)                 \
  X(kEof, "end of file")                      \
  X(kBareId, "identifier")                    \
  X(kValueId, "value name ('%...')")          \
  X(kHashId, "alias ('#...')")                \
  X(kBangId, "dialect type ('!...')")         \
  X(kAtId, "symbol ('@...')")                 \
  X(kCaretId, "block label ('^...')")         \
  X(kInteger, "integer")                      \
  X(kFloat, "float")                          \
  X(kString, "string")                        \
  X(kLParen, "'('")                           \
  X(kRParen, "')'")                           \
  X(kLSquare, "'['")                          \
  X(kRSquare, "']'")                          \
  X(kLBrace, "'{'")                           \
  X(kRBrace, "'}'")                           \
  X(kLess, "'<'")                             \
  X(kGreater, "'>'")                          \
  X(kComma, "','")                            \
  X(kColon, "':'")                            \
  X(kEqual, "'='")                            \
  X(kArrow, "'->'")                           \
  X(kStar, "'*'")                             \
  X(kQuestion, "'?'")                         \
  X(kPlus, "'+'")                             \
  X(kMinus, "'-'")

enum class TokenKind : std::uint8_t {
#define VPLAN_TOKEN_ENUM(name, spelling) name,
  VPLAN_TTGIR_TOKENS(VPLAN_TOKEN_ENUM)
#undef VPLAN_TOKEN_ENUM
};

/// The spelling of a kind for messages ("'{'", "identifier").
std::string_view token_kind_spelling(TokenKind kind);

/// One token: 16 bytes. `text()` points into the lexed source, which must outlive the tokens; line:column come
/// from the lexer's LineIndex, which counted the lines.
struct Token {
  const char* data = nullptr;
  std::uint32_t size = 0;
  TokenKind kind = TokenKind::kEof;
  bool new_line = false;  ///< starts a later line than the token before it (the first token: a line after line 1)

  [[nodiscard]] std::string_view text() const { return {data, size}; }
};

/// The line starts a lexer counted, so that line:column (1-based) are found when a message or an op needs them
/// rather than stored in every token. Asked in text order, an answer costs O(1); otherwise a binary search.
class LineIndex {
 public:
  void add_start(std::size_t offset) { starts_.push_back(offset); }
  /// Line and column of byte `offset`, which must lie before the last start added or on its line.
  [[nodiscard]] int line(std::size_t offset) const;
  [[nodiscard]] int column(std::size_t offset) const;

 private:
  /// How many line starts lie at or before `offset`; starts from the last answer.
  std::size_t starts_up_to(std::size_t offset) const;
  std::vector<std::size_t> starts_;  ///< offset after each newline counted (not those escaped in strings)
  mutable std::size_t last_ = 0;
};

/// Hands out the tokens of `text` one at a time, in order, so that a 10^6-op module's ~3*10^7 tokens never exist
/// at once. `//` comments are skipped. After the last token, kEof (again on every later call).
class TtgirLexer {
 public:
  TtgirLexer(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  /// The next token. Throws Error(kDataError) at "name:line:col" on a character that starts no token, an
  /// unterminated string or a non-text byte.
  Token next();
  /// line:column of a token this lexer handed out.
  [[nodiscard]] int line(const Token& t) const { return lines_.line(offset(t)); }
  [[nodiscard]] int column(const Token& t) const { return lines_.column(offset(t)); }
  /// The lines counted (all of them once kEof was handed out).
  [[nodiscard]] LineIndex take_lines() && { return std::move(lines_); }
  /// Whether next() threw: the text is not lexed further.
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  std::size_t offset(const Token& t) const { return static_cast<std::size_t>(t.data - text_.data()); }
  [[noreturn]] void fail(const std::string& what, int line, int column);
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void advance();
  void skip_space();
  Token make(TokenKind kind, std::size_t start, int line, int column);
  Token lex_one();
  Token prefixed(TokenKind kind, std::size_t start, int line, int column, bool allow_result_number);
  Token number(std::size_t start, int line, int column);
  Token string(std::size_t start, int line, int column);

  std::string_view text_;
  std::string_view name_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
  int last_line_ = 1;  ///< line of the token handed out last (for Token::new_line)
  bool at_end_ = false;
  bool failed_ = false;
  Token eof_;  ///< the kEof token, once handed out
  LineIndex lines_;
};

/// The parser's window on a TtgirLexer: the current token, two ahead and one behind (no token list). `index()`
/// counts the tokens passed, so a position can be found again by a second pass over the same text.
class TokenStream {
 public:
  TokenStream(std::string_view text, std::string_view name);

  [[nodiscard]] const Token& cur() const { return window_[index_ & kMask]; }
  /// The token `n` (1 or 2) after the current one; kEof past the end.
  [[nodiscard]] const Token& peek(std::size_t n = 1) const { return window_[(index_ + n) & kMask]; }
  /// The token before the current one (the current one at the start).
  [[nodiscard]] const Token& prev() const { return window_[(index_ == 0 ? 0 : index_ - 1) & kMask]; }
  [[nodiscard]] std::size_t index() const { return index_; }
  /// Moves to the next token; stays on kEof.
  void consume() {
    if (cur().kind == TokenKind::kEof) return;
    ++index_;
    window_[(index_ + kAhead) & kMask] = lexer_.next();
  }
  /// Lexes the rest of the text, so that a bad token behind a parser's error is the one reported (as when the
  /// whole text was lexed first). Throws the lexer's Error, if any; nothing when the lexer already threw (that
  /// error is the one to report).
  void drain();
  [[nodiscard]] int line(const Token& t) const { return lexer_.line(t); }
  [[nodiscard]] int column(const Token& t) const { return lexer_.column(t); }

 private:
  static constexpr std::size_t kAhead = 2;
  static constexpr std::size_t kMask = 7;  // a window of 8 >= one behind + current + kAhead
  TtgirLexer lexer_;
  Token window_[kMask + 1];
  std::size_t index_ = 0;
};

/// All tokens of a text ending with one kEof, and the lines the lexer counted (for tests and tools that want the
/// list; the reader takes tokens from a TokenStream).
struct LexedTtgir {
  std::vector<Token> tokens;
  const char* base = nullptr;  ///< the lexed text
  LineIndex lines;

  [[nodiscard]] int line(const Token& t) const { return lines.line(static_cast<std::size_t>(t.data - base)); }
  [[nodiscard]] int column(const Token& t) const { return lines.column(static_cast<std::size_t>(t.data - base)); }
};

/// All tokens of `text` ending with one kEof; TtgirLexer's errors.
LexedTtgir lex_ttgir(std::string_view text, std::string_view name);

/// "'tt.func'" for identifiers and punctuation, "end of file" at the end: how a token is quoted in messages.
std::string describe_token(const Token& token);

}  // namespace vtools::vplan
