#include "tools/vplan/dot_syntax.hpp"

#include <cctype>
#include <cstdio>

#include "libcommon/error.hpp"

namespace vtools::vplan {

namespace {

// IDs, "strings", <html> labels, punctuation.
struct DotToken {
  enum Kind { kEof, kId, kString, kHtml, kPunct } kind = kEof;
  std::string text;  // unescaped for strings
  int line = 0, column = 0;
};

class DotLexer {
 public:
  DotLexer(std::string_view text, std::string_view name) : text_(text), name_(name) {}

  std::vector<DotToken> run() {
    std::vector<DotToken> out;
    while (true) {
      skip();
      DotToken t;
      t.line = line_;
      t.column = static_cast<int>(pos_ - line_start_) + 1;
      if (pos_ >= text_.size()) {
        out.push_back(t);
        return out;
      }
      char c = text_[pos_];
      if (c == '"') {
        t.kind = DotToken::kString;
        advance();
        while (true) {
          if (pos_ >= text_.size()) fail("expected '\"' to end the string, got end of file", t);
          char d = text_[pos_];
          if (d == '\\' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '"' || text_[pos_ + 1] == '\\')) {
            t.text += text_[pos_ + 1];
            advance(), advance();
            continue;
          }
          if (d == '\\' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == 'n' || text_[pos_ + 1] == 'l')) {
            t.text += '\n';
            advance(), advance();
            continue;
          }
          advance();
          if (d == '"') break;
          t.text += d;
        }
      } else if (c == '<') {
        t.kind = DotToken::kHtml;
        int depth = 0;
        do {
          if (pos_ >= text_.size()) fail("expected '>' to end the HTML label, got end of file", t);
          if (text_[pos_] == '<') ++depth;
          if (text_[pos_] == '>') --depth;
          t.text += text_[pos_];
          advance();
        } while (depth > 0);
      } else if (c == '-' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '>' || text_[pos_ + 1] == '-')) {
        t.kind = DotToken::kPunct;
        t.text = {c, text_[pos_ + 1]};
        advance(), advance();
      } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
                 static_cast<unsigned char>(c) >= 0x80) {
        t.kind = DotToken::kId;
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                                       text_[pos_] == '.' || static_cast<unsigned char>(text_[pos_]) >= 0x80))
          t.text += text_[pos_], advance();
        if (t.text.empty()) t.text += text_[pos_], advance();
      } else if (std::string_view("{}[];=,:").find(c) != std::string_view::npos) {
        t.kind = DotToken::kPunct;
        t.text = std::string(1, c);
        advance();
      } else {
        char shown[16];
        std::snprintf(shown, sizeof shown, (c >= 0x20 && c < 0x7f) ? "'%c'" : "byte 0x%02x",
                      static_cast<unsigned char>(c));
        fail(std::string("expected a DOT token, got ") + shown, t);
      }
      out.push_back(std::move(t));
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what, const DotToken& at) {
    throw Error(ExitCode::kDataError, what, SourceLocation{std::string(name_), at.line, at.column});
  }
  void advance() {
    if (text_[pos_] == '\n') ++line_, line_start_ = pos_ + 1;
    ++pos_;
  }
  void skip() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      bool line_start = pos_ == line_start_;
      if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        std::size_t end = text_.find("*/", pos_ + 2);
        std::size_t stop = end == std::string_view::npos ? text_.size() : end + 2;
        while (pos_ < stop) advance();
      } else if ((c == '#' && line_start) || (c == '=' && line_start && text_.substr(pos_, 4) == "=== ")) {
        // preprocessor-style lines and the planner's marker lines sit outside the graphs
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else {
        return;
      }
    }
  }

  std::string_view text_, name_;
  std::size_t pos_ = 0, line_start_ = 0;
  int line_ = 1;
};

// ---- statements --------------------------------------------------------------------------------------------------
using Attrs = DotAttrs;

class DotParser {
 public:
  DotParser(std::vector<DotToken> tokens, std::string_view name) : t_(std::move(tokens)), name_(name) {}

  std::vector<DotGraph> run() {
    std::vector<DotGraph> out;
    while (cur().kind != DotToken::kEof) {
      if (cur().kind == DotToken::kId && cur().text == "strict") next();
      if (!(cur().kind == DotToken::kId && (cur().text == "digraph" || cur().text == "graph")))
        fail("'digraph'");
      next();
      DotGraph g;
      if (cur().kind == DotToken::kId || cur().kind == DotToken::kString) g.name = next().text;
      graph_ = &g;
      block("");
      out.push_back(std::move(g));
    }
    return out;
  }

 private:
  const DotToken& cur() const { return t_[pos_]; }
  const DotToken& next() { return t_[pos_ + 1 < t_.size() ? pos_++ : pos_]; }
  bool is(const char* p) const { return cur().kind == DotToken::kPunct && cur().text == p; }
  [[noreturn]] void fail(const std::string& expected) {
    std::string got = cur().kind == DotToken::kEof ? "end of file" : quoted_value(cur().text);
    throw Error(ExitCode::kDataError, "expected " + expected + ", got " + got,
                SourceLocation{std::string(name_), cur().line, cur().column});
  }
  void expect(const char* p, const std::string& context) {
    if (!is(p)) fail("'" + std::string(p) + "' " + context);
    next();
  }
  std::string id() {
    if (cur().kind != DotToken::kId && cur().kind != DotToken::kString && cur().kind != DotToken::kHtml)
      fail("an ID");
    return next().text;
  }
  Attrs attr_list() {
    Attrs a;
    while (is("[")) {
      next();
      while (!is("]")) {
        std::string k = id();
        expect("=", "after attribute name");
        a[k] = id();
        if (is(",") || is(";")) next();
      }
      next();
    }
    return a;
  }
  void block(const std::string& cluster) {
    if (++depth_ > 100) fail("fewer nested subgraphs");
    const DotToken open = cur();
    expect("{", "to open the graph body");
    while (!is("}")) {
      if (cur().kind == DotToken::kEof)
        fail("'}' to close the '{' at " + std::to_string(open.line) + ":" + std::to_string(open.column));
      if (is(";")) {
        next();
        continue;
      }
      if (cur().kind == DotToken::kId && cur().text == "subgraph") {
        next();
        std::string sub = is("{") ? "" : id();
        block(sub);
        continue;
      }
      if (is("{")) {
        block(cluster);
        continue;
      }
      const DotPosition at{cur().line, cur().column};
      std::string first = id();
      if ((first == "graph" || first == "node" || first == "edge") && is("[")) {
        Attrs a = attr_list();
        if (first == "graph" && a.count("label")) graph_->cluster_labels[cluster] = {a["label"], at};
        continue;
      }
      if (is("=")) {
        next();
        std::string value = id();
        if (first == "label") graph_->cluster_labels[cluster] = {value, at};
        continue;
      }
      if (is(":")) next(), id();  // port
      if (is("->") || is("--")) {
        std::vector<std::string> chain{first};
        while (is("->") || is("--")) {
          next();
          chain.push_back(id());
          if (is(":")) next(), id();
        }
        Attrs a = attr_list();
        for (std::size_t i = 1; i < chain.size(); ++i) graph_->edges.push_back({chain[i - 1], chain[i], a, at});
        continue;
      }
      graph_->nodes.push_back({first, cluster, attr_list(), at});
    }
    next();
    --depth_;
  }

  std::vector<DotToken> t_;
  std::size_t pos_ = 0;
  std::string_view name_;
  DotGraph* graph_ = nullptr;
  int depth_ = 0;
};

}  // namespace

std::vector<DotGraph> parse_dot(std::string_view text, std::string_view name) {
  return DotParser(DotLexer(text, name).run(), name).run();
}

}  // namespace vtools::vplan
