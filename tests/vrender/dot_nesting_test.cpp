#include "tools/vrender/dot_nesting.hpp"

#include <doctest/doctest.h>

#include <string>

#include "libcommon/error.hpp"

using namespace vtools;
using namespace vtools::vrender;

namespace {

std::string nested(int depth, const std::string& inside = "a -> b;") {
  std::string dot = "digraph G {\n";
  for (int i = 1; i < depth; ++i) dot += "subgraph cluster_" + std::to_string(i) + " {\n";
  dot += inside + "\n";
  for (int i = 0; i < depth; ++i) dot += "}\n";
  return dot;
}

std::string error_of(const std::string& dot) {
  try {
    check_dot_nesting(dot, "g.dot");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("dot_nesting: up to 100 nested braces pass, the 101st is refused at its place") {
  CHECK(error_of(nested(kMaxDotNesting)) == "no error");
  CHECK(error_of(nested(kMaxDotNesting + 1)) == "g.dot:101:22: expected at most 100 nested '{' (subgraphs), got more");
  CHECK(error_of(nested(5000)) == "g.dot:101:22: expected at most 100 nested '{' (subgraphs), got more");
}

TEST_CASE("dot_nesting: braces in strings, HTML labels, comments and '#' lines do not count") {
  const std::string braces(200, '{');
  CHECK(error_of(nested(kMaxDotNesting, "a [label=\"" + braces + "\\\"" + braces + "\"];")) == "no error");
  CHECK(error_of(nested(kMaxDotNesting, "a [label=<<b>" + braces + "</b>>];")) == "no error");
  CHECK(error_of(nested(kMaxDotNesting, "// " + braces + "\n/* " + braces + " */\n# " + braces)) == "no error");
  // Siblings do not add up: only the nesting counts.
  std::string wide = "digraph G {\n";
  for (int i = 0; i < 1000; ++i) wide += "subgraph cluster_" + std::to_string(i) + " { n" + std::to_string(i) + "; }\n";
  CHECK(error_of(wide + "}\n") == "no error");
}
