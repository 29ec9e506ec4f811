#include "tools/vplan/ttgir_reader.hpp"

// Grammar, as Triton prints it (MLIR LangRef "Operations"): an op is `results = name body loc(...)`, where the body
// is op-specific (custom assembly). We do not know every op's format, so the body is read generically: operands are
// the `%values` it names, `{...}` is an attribute dictionary unless it opens a region (the `{` ends its line or is
// followed by an op), types are collected by position (after ':', 'to', '->'). An op ends at its top-level
// `loc(...)`, at a new line when locations are not printed, or at the `}` of the enclosing region. Aliases
// (`#name = ...`) may be defined after use (Triton prints `#loc` aliases at the end), so they are read first.

#include <cctype>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "libcommon/error.hpp"
#include "tools/vplan/ttgir_lexer.hpp"
#include "tools/vplan/ttgir_locations.hpp"
#include "tools/vplan/ttgir_type.hpp"

namespace vtools::vplan {

namespace {

constexpr int kMaxNesting = 200;  // regions and brackets; deeper input is refused, not a stack overflow

/// A string literal's text: quotes stripped and MLIR's escapes decoded (\\, \", \n, \t and \HH, two hex digits), so
/// a location named q"x shows as q"x, not q\"x.
std::string unquote(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::string(s);
  s = s.substr(1, s.size() - 2);
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
    } else if (s[i + 1] == 'n' || s[i + 1] == 't' || s[i + 1] == '"' || s[i + 1] == '\\') {
      out += s[i + 1] == 'n' ? '\n' : s[i + 1] == 't' ? '\t' : s[i + 1];
      ++i;
    } else if (i + 2 < s.size() && hex(s[i + 1]) && hex(s[i + 2])) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];  // not an escape MLIR writes: kept as it is
    }
  }
  return out;
}

bool is_partition_label(std::string_view s) {
  if (s == "default") return true;
  if (s.substr(0, 9) != "partition" || s.size() == 9) return false;
  for (char c : s.substr(9))
    if (c < '0' || c > '9') return false;
  return true;
}

// i32, si8, ui16, f16, bf16, tf32, f8E4M3FN, index, none (builtin scalar types).
bool is_scalar_type_name(std::string_view s) {
  if (s == "bf16" || s == "tf32" || s == "index" || s == "none") return true;
  if (s.substr(0, 3) == "f8E" && s.size() > 3) return true;
  std::string_view digits = s.substr(0, 2) == "si" || s.substr(0, 2) == "ui" ? s.substr(2)
                            : (!s.empty() && (s[0] == 'i' || s[0] == 'f')) ? s.substr(1)
                                                                          : std::string_view();
  if (digits.empty()) return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  return true;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view name) : text_(text), name_(name), tokens_(text, name) {}

  // Two passes over the text, each lexing it as it goes: the aliases first (see the top of this file), then the
  // ops. The first pass lexes every token, so a bad one is reported before any parse error, and the second meets
  // none.
  Module run() {
    module_.name = std::string(name_);
    try {
      read_aliases();
    } catch (const Error&) {
      tokens_.drain();  // a bad token further on is reported instead, as when the whole text was lexed first
      throw;
    }
    tokens_ = TokenStream(text_, name_);
    for (const auto& [alias, value] : module_.aliases) defined_aliases_.insert(alias);
    checking_references_ = true;
    while (cur().kind != TokenKind::kEof) {
      if (is_alias_definition(index())) {
        const std::size_t end = alias_end_[index()];
        while (index() < end) consume();
        continue;
      }
      if (cur().kind == TokenKind::kBareId || cur().kind == TokenKind::kString || cur().kind == TokenKind::kValueId) {
        Op op = parse_op();
        take_top_level(std::move(op));
        continue;
      }
      error_expected("alias definition or 'module'");
    }
    if (module_.line == 0) {  // no module op (bare functions, or nothing): the end of the input
      module_.line = line(cur());
      module_.column = column(cur());
    }
    if (undefined_alias_)
      throw Error(ExitCode::kDataError,
                  "expected a defined alias, got unknown alias '" + std::string(undefined_alias_->text()) + "'",
                  where(*undefined_alias_));
    if (loc_error_) throw *loc_error_;
    return std::move(module_);
  }

 private:
  // ---- token access -------------------------------------------------------------------------------------------
  const Token& cur() const { return tokens_.cur(); }
  const Token& peek(std::size_t n = 1) const { return tokens_.peek(n); }
  std::size_t index() const { return tokens_.index(); }
  bool at(TokenKind k) const { return cur().kind == k; }
  // Every token of the second pass goes through here: a `#name` used (not a dialect attribute like
  // `#ttg.shared_memory`) must be defined somewhere; the first that is not is reported once the ops are read.
  void consume() {
    const Token& t = cur();
    if (t.kind == TokenKind::kHashId && checking_references_ && !undefined_alias_ &&
        t.text().find('.') == std::string_view::npos && !defined_aliases_.count(t.text()) &&
        !loc_table_.has_alias(std::string(t.text())))
      undefined_alias_ = t;
    tokens_.consume();
  }
  bool consume_if(TokenKind k) {
    if (!at(k)) return false;
    consume();
    return true;
  }
  SourceLocation where(const Token& t) const { return SourceLocation{std::string(name_), line(t), column(t)}; }
  int line(const Token& t) const { return tokens_.line(t); }
  int column(const Token& t) const { return tokens_.column(t); }
  /// line:column of `t` for messages ("12:7").
  std::string line_column(const Token& t) const { return std::to_string(line(t)) + ":" + std::to_string(column(t)); }

  /// The one place that writes "expected X, got Y". At end of input it also names the ops still open, outermost
  /// last, so a truncated file says what was cut off (`skip_innermost`: the message already names that one).
  [[noreturn]] void error_expected(const std::string& what, bool skip_innermost = false) {
    std::string message = "expected " + what + ", got " + describe_token(cur());
    if (at(TokenKind::kEof)) {
      std::string still_open;
      for (auto it = open_ops_.rbegin() + (skip_innermost && !open_ops_.empty() ? 1 : 0); it != open_ops_.rend(); ++it)
        still_open += (still_open.empty() ? "" : ", ") + *it;
      if (!still_open.empty()) message += " (also unclosed: " + still_open + ")";
    }
    throw Error(ExitCode::kDataError, message, where(cur()));
  }
  Token expect(TokenKind k, const std::string& context) {
    if (!at(k)) error_expected(std::string(token_kind_spelling(k)) + (context.empty() ? "" : " " + context));
    const Token t = cur();
    consume();
    return t;
  }
  void enter(const Token& t) {
    if (++nesting_ > kMaxNesting)
      throw Error(ExitCode::kDataError, "expected at most " + std::to_string(kMaxNesting) + " nested regions, got more",
                  where(t));
  }
  void leave() { --nesting_; }

  // Source text from `begin` (the start of a token) to the end of the token before the current one.
  std::string_view text_since(const char* begin) const {
    const Token& last = tokens_.prev();
    return std::string_view(begin, static_cast<std::size_t>(last.data + last.size - begin));
  }

  // ---- aliases -----------------------------------------------------------------------------------------------
  bool is_alias_definition(std::size_t i) const { return alias_end_.count(i) != 0; }

  // Skips one balanced token group starting at the current token (a bracket pair or one token).
  void skip_balanced() {
    const Token open = cur();
    TokenKind close;
    switch (open.kind) {
      case TokenKind::kLParen: close = TokenKind::kRParen; break;
      case TokenKind::kLSquare: close = TokenKind::kRSquare; break;
      case TokenKind::kLBrace: close = TokenKind::kRBrace; break;
      case TokenKind::kLess: close = TokenKind::kGreater; break;
      default: consume(); return;
    }
    enter(open);
    consume();
    while (!at(close)) {
      if (at(TokenKind::kEof))
        error_expected(std::string(token_kind_spelling(close)) + " to close " +
                       std::string(token_kind_spelling(open.kind)) + " at " + line_column(open));
      if (at(TokenKind::kRParen) || at(TokenKind::kRSquare) || at(TokenKind::kRBrace) || at(TokenKind::kGreater))
        error_expected(std::string(token_kind_spelling(close)) + " to close " +
                       std::string(token_kind_spelling(open.kind)) + " at " + line_column(open));
      skip_balanced();
    }
    consume();
    leave();
  }

  // Pre-pass: every top-level `#name = value` / `!name = type` (brace depth 0). A value runs to the next token
  // that starts a line outside brackets.
  void read_aliases() {
    int depth = 0;
    while (!at(TokenKind::kEof)) {
      const Token t = cur();
      const std::size_t i = index();
      if (t.kind == TokenKind::kLBrace) ++depth;
      if (t.kind == TokenKind::kRBrace) --depth;
      if (depth != 0 || (t.kind != TokenKind::kHashId && t.kind != TokenKind::kBangId) ||
          peek().kind != TokenKind::kEqual || (i > 0 && !t.new_line)) {
        consume();
        continue;
      }
      consume();
      consume();
      const std::size_t value_start = index();
      const char* value_begin = cur().data;
      if (at(TokenKind::kBareId) && cur().text() == "loc" && peek().kind == TokenKind::kLParen) {
        int node = parse_loc();
        loc_table_.define_alias(std::string(t.text()), node);
      } else {
        do {
          if (at(TokenKind::kEof)) error_expected("a value for alias '" + std::string(t.text()) + "'");
          skip_balanced();
        } while (!at(TokenKind::kEof) && !cur().new_line);
      }
      if (index() == value_start) error_expected("a value for alias '" + std::string(t.text()) + "'");
      module_.aliases[std::string(t.text())] = std::string(text_since(value_begin));
      alias_end_[i] = index();
    }
  }

  // ---- locations ---------------------------------------------------------------------------------------------
  // At `loc` `(`: returns the location node.
  int parse_loc() {
    consume();
    expect(TokenKind::kLParen, "after 'loc'");
    int node = parse_loc_expr();
    expect(TokenKind::kRParen, "to close 'loc('");
    return node;
  }

  int parse_loc_expr() {
    enter(cur());
    LocNode node;
    node.where = where(cur());
    if (at(TokenKind::kHashId)) {
      node.kind = LocNode::Kind::kAliasRef;
      node.text = std::string(cur().text());
      consume();
    } else if (at(TokenKind::kBareId) && cur().text() == "unknown") {
      consume();
    } else if (at(TokenKind::kBareId) && cur().text() == "callsite") {
      consume();
      expect(TokenKind::kLParen, "after 'callsite'");
      node.kind = LocNode::Kind::kCallSite;
      node.children.push_back(parse_loc_expr());
      if (!(at(TokenKind::kBareId) && cur().text() == "at")) error_expected("'at' in callsite location");
      consume();
      node.children.push_back(parse_loc_expr());
      expect(TokenKind::kRParen, "to close 'callsite('");
    } else if (at(TokenKind::kBareId) && cur().text() == "fused") {
      consume();
      node.kind = LocNode::Kind::kFused;
      if (at(TokenKind::kLess)) skip_balanced();
      expect(TokenKind::kLSquare, "after 'fused'");
      do {
        node.children.push_back(parse_loc_expr());
      } while (consume_if(TokenKind::kComma));
      expect(TokenKind::kRSquare, "to close 'fused['");
    } else if (at(TokenKind::kString)) {
      std::string text = unquote(cur().text());
      consume();
      if (consume_if(TokenKind::kColon)) {
        node.kind = LocNode::Kind::kFile;
        node.text = text;
        node.line = parse_int("line number in file location");
        expect(TokenKind::kColon, "between line and column");
        node.column = parse_int("column number in file location");
        if (at(TokenKind::kBareId) && cur().text() == "to") {  // ranges: "f":1:2 to 3:4 / to :4
          consume();
          while (at(TokenKind::kInteger) || at(TokenKind::kColon)) consume();
        }
      } else {
        node.kind = LocNode::Kind::kName;
        node.text = text;
        if (consume_if(TokenKind::kLParen)) {
          node.children.push_back(parse_loc_expr());
          expect(TokenKind::kRParen, "to close the name location");
        }
      }
    } else {
      error_expected("location (string, alias, 'callsite', 'fused' or 'unknown')");
    }
    leave();
    return loc_table_.add(std::move(node));
  }

  int parse_int(const std::string& what) {
    if (!at(TokenKind::kInteger)) error_expected(what);
    int v = 0;
    for (char c : cur().text())
      if (c >= '0' && c <= '9' && v < 100000000) v = v * 10 + (c - '0');
    consume();
    return v;
  }

  // ---- types -------------------------------------------------------------------------------------------------
  bool at_type() const {
    if (at(TokenKind::kBangId)) return true;
    if (at(TokenKind::kLParen)) return false;
    if (!at(TokenKind::kBareId)) return false;
    std::string_view t = cur().text();
    if ((t == "tensor" || t == "tuple" || t == "vector" || t == "memref") && peek().kind == TokenKind::kLess)
      return true;
    return is_scalar_type_name(t);
  }

  /// The type at the cursor, interned: one Type per distinct text (its first occurrence parsed, and refused there).
  TypeRef parse_type() {
    const Token start = cur();
    consume();
    if (at(TokenKind::kLess) && cur().data == start.data + start.size) skip_balanced();
    const std::string_view text = text_since(start.data);
    auto [it, fresh] = types_.try_emplace(text, nullptr);
    if (fresh) {
      try {
        it->second = &module_.types.emplace_back(parse_type_text(text, where(start)));
      } catch (...) {
        types_.erase(it);
        throw;
      }
    }
    return it->second;
  }

  // `(%a: type loc(...), ...)` after a function symbol, region label or block label.
  void parse_arg_list(std::vector<std::string>& args, std::vector<TypeRef>& types) {
    const Token open = expect(TokenKind::kLParen, "to start the argument list");
    enter(open);
    if (!consume_if(TokenKind::kRParen)) {
      do {
        args.emplace_back(expect(TokenKind::kValueId, "as argument name").text());
        expect(TokenKind::kColon, "after argument name");
        if (!at_type()) error_expected("argument type");
        types.push_back(parse_type());
        if (at(TokenKind::kLBrace)) skip_balanced();  // argument attributes
        if (at(TokenKind::kBareId) && cur().text() == "loc" && peek().kind == TokenKind::kLParen) {
          const std::size_t nodes = loc_table_.size();
          parse_loc();
          loc_table_.truncate(nodes);
        }
      } while (consume_if(TokenKind::kComma));
      expect(TokenKind::kRParen, "to close the argument list");
    }
    leave();
  }

  // ---- attributes --------------------------------------------------------------------------------------------
  void parse_attr_dict(std::vector<Attribute>& out) {
    const Token open = expect(TokenKind::kLBrace, "to start attributes");
    enter(open);
    if (!consume_if(TokenKind::kRBrace)) {
      do {
        if (!at(TokenKind::kBareId) && !at(TokenKind::kString)) error_expected("attribute name");
        Attribute a;
        a.key = unquote(cur().text());
        consume();
        if (consume_if(TokenKind::kEqual)) {
          const std::size_t first = index();
          const char* value_begin = cur().data;
          while (!at(TokenKind::kComma) && !at(TokenKind::kRBrace)) {
            if (at(TokenKind::kEof) || at(TokenKind::kRParen) || at(TokenKind::kRSquare) || at(TokenKind::kGreater))
              error_expected("',' or '}' in attribute dictionary opened at " + line_column(open));
            skip_balanced();
          }
          if (index() == first) error_expected("attribute value");
          a.value = std::string(text_since(value_begin));
        }
        out.push_back(std::move(a));
      } while (consume_if(TokenKind::kComma));
      expect(TokenKind::kRBrace, "to close attributes opened at " + line_column(open));
    }
    leave();
  }

  // A `{` opens a region when it ends its line or is followed by something that starts an op.
  // A file cut right after the `{` on its line (or after its first word) cannot tell: the cut is reported, not a
  // kind of brace.
  bool brace_opens_region() const {
    const Token& next = peek();
    if (next.kind == TokenKind::kEof) return true;
    if (next.new_line) return true;
    if (next.kind == TokenKind::kValueId || next.kind == TokenKind::kCaretId) return true;
    if (next.kind == TokenKind::kBareId || next.kind == TokenKind::kString) {
      TokenKind after = peek(2).kind;
      return after != TokenKind::kEqual && after != TokenKind::kComma && after != TokenKind::kRBrace &&
             after != TokenKind::kEof;
    }
    return false;
  }

  // ---- ops and regions ---------------------------------------------------------------------------------------
  // `owner` is "'scf.for'" or "'tt.func' @f": the op whose region this is, named when the input ends inside it.
  Region parse_region(Region region, const std::string& owner) {
    const Token open = expect(TokenKind::kLBrace, "to open a region");
    enter(open);
    // The ops are gathered in chunks, then moved into one vector of the exact size, each chunk freed as it goes: a
    // vector grown by doubling holds its old and new buffers at once (176 MB more at the last doubling of a
    // 10^6-op region). A chunk (2^17 ops, ~45 MB) is above glibc's largest mmap threshold (32 MiB), so a freed
    // one goes back to the system instead of leaving a hole in the heap.
    constexpr std::size_t kChunkOps = std::size_t{1} << 17;
    std::vector<std::vector<Op>> chunks(1);
    std::size_t op_count = 0;
    while (!at(TokenKind::kRBrace)) {
      if (at(TokenKind::kEof))
        error_expected("'}' to close the region of " + owner + " opened at " + line_column(open),
                       true);
      if (at(TokenKind::kCaretId)) {  // block label ^bb0(%a: f32 loc(...)):
        consume();
        std::vector<std::string> args;
        std::vector<TypeRef> types;
        if (at(TokenKind::kLParen)) parse_arg_list(args, types);
        expect(TokenKind::kColon, "after block label");
        if (op_count == 0) region.args.insert(region.args.end(), args.begin(), args.end());
        continue;
      }
      if (chunks.back().size() == kChunkOps) chunks.emplace_back().reserve(kChunkOps);
      chunks.back().push_back(parse_op());
      ++op_count;
    }
    consume();
    leave();
    if (chunks.size() == 1) {
      region.ops = std::move(chunks.front());
    } else {
      region.ops.reserve(op_count);
      for (auto& chunk : chunks) {
        std::move(chunk.begin(), chunk.end(), std::back_inserter(region.ops));
        std::vector<Op>().swap(chunk);
      }
    }
    return region;
  }

  Op parse_op() {
    Op op;
    op.line = line(cur());
    op.column = column(cur());
    enter(cur());
    if (at(TokenKind::kValueId)) {
      do {
        const std::string_view name = expect(TokenKind::kValueId, "as result name").text();
        if (op.result.empty())
          op.result = std::string(name);
        else
          op.details_to_fill().more_results.emplace_back(name);
        int count = 1;
        if (consume_if(TokenKind::kColon)) count = parse_int("result count after ':'");
        op.result_count += count;
      } while (consume_if(TokenKind::kComma));
      expect(TokenKind::kEqual, "after op results");
    }
    if (at(TokenKind::kBareId) || at(TokenKind::kString)) {
      op.name = unquote(cur().text());
      consume();
    } else {
      error_expected("op name");
    }
    parse_op_body(op);
    leave();
    return op;
  }

  void parse_op_body(Op& op) {
    enum class Segment { kNone, kColon, kTo, kArrow };
    Segment segment = Segment::kNone;
    std::vector<TypeRef> colon_types, to_types, arrow_types, written;  // written: every type, in order
    std::vector<Token> open;  // brackets opened in the body
    Region pending;           // label/args/num_warps for the next region
    const int op_line = op.line;
    while (true) {
      const Token t = cur();
      if (open.empty()) {
        if (t.kind == TokenKind::kEof || t.kind == TokenKind::kRBrace) break;
        if (t.kind == TokenKind::kBareId && t.text() == "loc" && peek().kind == TokenKind::kLParen) {
          const std::size_t nodes = loc_table_.size();
          op.loc = resolve_loc(parse_loc());
          loc_table_.truncate(nodes);
          break;
        }
        bool new_line = t.new_line && index() > 0;
        if (new_line && !(t.kind == TokenKind::kBareId && is_partition_label(t.text()))) break;
        if (t.kind == TokenKind::kBareId && is_partition_label(t.text()) &&
            (peek().kind == TokenKind::kLBrace || peek().kind == TokenKind::kLParen)) {
          pending.label = std::string(t.text());
          consume();
          if (at(TokenKind::kLParen)) parse_arg_list(pending.args, pending.arg_types);
          continue;
        }
        if (t.kind == TokenKind::kBareId && t.text() == "num_warps" && peek().kind == TokenKind::kLParen) {
          consume();
          consume();
          pending.num_warps = parse_int("warp count in 'num_warps('");
          expect(TokenKind::kRParen, "to close 'num_warps('");
          continue;
        }
        if (t.kind == TokenKind::kColon) segment = Segment::kColon;
        if (t.kind == TokenKind::kArrow) segment = Segment::kArrow, arrow_types.clear();
        if (t.kind == TokenKind::kBareId && t.text() == "to") segment = Segment::kTo;
      }
      switch (t.kind) {
        case TokenKind::kEof: {
          const Token& o = open.back();
          error_expected(closer_for(o.kind) + " to close " + std::string(token_kind_spelling(o.kind)) + " at " +
                         line_column(o));
        }
        case TokenKind::kLBrace:
          if (peek().kind == TokenKind::kEof && !peek().new_line) {
            consume();
            error_expected("'}' to close '{' at " + line_column(t));
          }
          if (brace_opens_region()) {
            const std::string owner = "'" + op.name + "'" + (op.symbol().empty() ? "" : " " + op.symbol());
            open_ops_.push_back(owner + " at " + std::to_string(op.line) + ":" + std::to_string(op.column));
            op.regions.push_back(parse_region(std::move(pending), owner));
            open_ops_.pop_back();
            pending = Region{};
          } else {
            parse_attr_dict(op.attributes);
          }
          continue;
        case TokenKind::kAtId:
          op.details_to_fill().symbol = std::string(t.text());
          consume();
          if (at(TokenKind::kLParen)) parse_arg_list(pending.args, pending.arg_types);
          continue;
        case TokenKind::kLParen:
        case TokenKind::kLSquare:
        case TokenKind::kLess:
          if (open.size() >= static_cast<std::size_t>(kMaxNesting)) error_expected("fewer nested brackets");
          open.push_back(t);
          consume();
          continue;
        case TokenKind::kRParen:
        case TokenKind::kRSquare:
        case TokenKind::kGreater:
          if (open.empty() || closer_kind(open.back().kind) != t.kind) {
            if (open.empty()) error_expected("end of op started at " + std::to_string(op_line));
            const Token& o = open.back();
            error_expected(closer_for(o.kind) + " to close " + std::string(token_kind_spelling(o.kind)) + " at " +
                           line_column(o));
          }
          open.pop_back();
          consume();
          continue;
        case TokenKind::kRBrace: {
          const Token& o = open.back();
          error_expected(closer_for(o.kind) + " to close " + std::string(token_kind_spelling(o.kind)) + " at " +
                         line_column(o));
        }
        case TokenKind::kValueId:
          if (peek().kind == TokenKind::kEqual) op.details_to_fill().defined_args.emplace_back(t.text());
          else op.operands.emplace_back(t.text());
          consume();
          continue;
        case TokenKind::kBareId:
        case TokenKind::kBangId:
          if (segment != Segment::kNone && at_type()) {
            TypeRef type = parse_type();
            if (segment == Segment::kColon) colon_types.push_back(type);
            if (segment == Segment::kTo) to_types.push_back(type);
            if (segment == Segment::kArrow) arrow_types.push_back(type);
            written.push_back(type);
            continue;
          }
          if (open.empty() && t.kind == TokenKind::kBareId) op.details_to_fill().keywords.emplace_back(t.text());
          consume();
          continue;
        default:
          consume();
          continue;
      }
    }
    const std::vector<TypeRef>& results =
        !arrow_types.empty() ? arrow_types : !to_types.empty() ? to_types : colon_types;
    // The operand types are the written ones less as many at the end as there are result types (kept once).
    const std::size_t operands = written.size() >= results.size() ? written.size() - results.size() : 0;
    op.types.reserve(operands + results.size());
    op.types.assign(written.begin(), written.begin() + static_cast<std::ptrdiff_t>(operands));
    op.types.insert(op.types.end(), results.begin(), results.end());
    op.result_types_at = static_cast<std::uint32_t>(operands);
  }

  // Triton prints the `#loc` aliases after the module, so a truncated file lacks them: an undefined alias is kept
  // until the whole text is read, and the truncation (at end of input) is reported instead when there is one.
  SourceLoc resolve_loc(int node) {
    try {
      return loc_table_.resolve(node);
    } catch (const Error& e) {
      if (!loc_error_) loc_error_ = e;
      return {};
    }
  }

  static TokenKind closer_kind(TokenKind open) {
    switch (open) {
      case TokenKind::kLParen: return TokenKind::kRParen;
      case TokenKind::kLSquare: return TokenKind::kRSquare;
      case TokenKind::kLess: return TokenKind::kGreater;
      default: return TokenKind::kRBrace;
    }
  }
  static std::string closer_for(TokenKind open) { return std::string(token_kind_spelling(closer_kind(open))); }

  // `module attributes {...} { tt.func ... }` or bare functions at top level.
  void take_top_level(Op op) {
    if (op.name == "module" || op.name == "builtin.module") {
      if (module_.line == 0) {
        module_.line = op.line;
        module_.column = op.column;
      }
      for (auto& a : op.attributes) module_.attributes[a.key] = a.value;
      for (auto& region : op.regions)
        for (auto& inner : region.ops)
          if (inner.name == "tt.func" || inner.name == "func.func") module_.functions.push_back(std::move(inner));
    } else if (op.name == "tt.func" || op.name == "func.func") {
      module_.functions.push_back(std::move(op));
    }
  }

  std::string_view text_;
  std::string_view name_;
  TokenStream tokens_;
  int nesting_ = 0;
  std::unordered_map<std::size_t, std::size_t> alias_end_;  // alias definition start token -> token after it
  std::unordered_set<std::string_view> defined_aliases_;    // module_.aliases' names, for the second pass
  bool checking_references_ = false;                        // in the second pass (consume)
  std::optional<Token> undefined_alias_;                    // the first use of an alias defined nowhere
  LocTable loc_table_;
  std::optional<Error> loc_error_;    // first location that did not resolve (see resolve_loc)
  std::vector<std::string> open_ops_;  // "'tt.func' @f at 2:3" for each op whose region is being read, outermost first
  Module module_;
  std::unordered_map<std::string_view, TypeRef> types_;  ///< type text (in the input) -> its Type in module_
};

}  // namespace

Module read_ttgir(std::string_view text, std::string_view name) { return Parser(text, name).run(); }

}  // namespace vtools::vplan
