// Breaks TTGIR text (MLIR's textual form as Triton prints it) into tokens with line:column; knows no grammar.
// The token kinds and the spellings used in messages are listed once, in VPLAN_TTGIR_TOKENS (after MLIR's
// TokenKinds.def). The parser (ttgir_parser) decides what the tokens mean.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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

/// One token: 16 bytes (a 10^6-op module has ~3*10^7 tokens). `text()` points into the lexed source, which must
/// outlive the tokens; line:column come from LexedTtgir, which counted the lines.
struct Token {
  const char* data = nullptr;
  std::uint32_t size = 0;
  TokenKind kind = TokenKind::kEof;
  bool new_line = false;  ///< starts a later line than the token before it (the first token: a line after line 1)

  [[nodiscard]] std::string_view text() const { return {data, size}; }
};

/// The tokens of a text ending with one kEof, and the lines the lexer counted, so that line:column (1-based) are
/// found when a message or an op needs them rather than stored in every token.
struct LexedTtgir {
  std::vector<Token> tokens;
  const char* base = nullptr;            ///< the lexed text
  std::vector<std::size_t> line_starts;  ///< offset after each newline counted (not those escaped in strings)

  [[nodiscard]] int line(const Token& t) const;
  [[nodiscard]] int column(const Token& t) const;

 private:
  /// How many line starts lie at or before `offset`; starts from the last answer (the parser asks in text order).
  std::size_t starts_up_to(std::size_t offset) const;
  mutable std::size_t last_ = 0;
};

/// All tokens of `text` ending with one kEof. `//` comments are skipped. Throws Error(kDataError) at
/// "name:line:col" on a character that starts no token, an unterminated string or a non-text byte.
LexedTtgir lex_ttgir(std::string_view text, std::string_view name);

/// "'tt.func'" for identifiers and punctuation, "end of file" at the end: how a token is quoted in messages.
std::string describe_token(const Token& token);

}  // namespace vtools::vplan
