#include "tools/vrender/layout_deadline.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>

#include "libcommon/error.hpp"

using namespace vtools;
using namespace vtools::vrender;

TEST_CASE("layout_deadline: the child's result and its errors come back as they were") {
  const std::string big(1 << 20, 'x');  // more than a pipe holds at once
  CHECK(run_with_deadline([&] { return big; }, 10, "g.dot") == big);
  try {
    run_with_deadline([]() -> std::string { throw Error(ExitCode::kDataError, "invalid DOT: syntax error", {"g.dot", 3, 0}); },
                      10, "g.dot");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    CHECK(std::string(e.what()) == "g.dot:3: invalid DOT: syntax error");
  }
}

TEST_CASE("layout_deadline: a layout past its limit is killed, a crashing one is an error") {
  const auto start = std::chrono::steady_clock::now();
  try {
    run_with_deadline([]() -> std::string { ::sleep(30); return ""; }, 1, "g.dot");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    CHECK(std::string(e.what()) ==
          "g.dot: graphviz did not finish the layout within 1 s (raise the limit with VTOOLS_MAX_LAYOUT_SECONDS=<seconds>)");
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  try {
    run_with_deadline(
        []() -> std::string {
          std::signal(SIGSEGV, SIG_DFL);  // past doctest's crash handler: die as a crash in Graphviz would
          std::raise(SIGSEGV);
          return "";
        },
        10, "g.dot");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    CHECK(std::string(e.what()) == "g.dot: graphviz crashed laying out the graph (Segmentation fault)");
  }
}

TEST_CASE("layout_deadline: VTOOLS_MAX_LAYOUT_SECONDS sets the limit; other values are a usage error") {
  ::unsetenv("VTOOLS_MAX_LAYOUT_SECONDS");
  CHECK(max_layout_seconds() == 30);
  ::setenv("VTOOLS_MAX_LAYOUT_SECONDS", "5", 1);
  CHECK(max_layout_seconds() == 5);
  for (const char* bad : {"0", "-1", "1.5", "", "86401", "999999999999"}) {
    ::setenv("VTOOLS_MAX_LAYOUT_SECONDS", bad, 1);
    try {
      max_layout_seconds();
      FAIL("expected an error for ", bad);
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kUsage);
      CHECK(e.message() == "VTOOLS_MAX_LAYOUT_SECONDS='" + std::string(bad) +
                               "': expected a whole number of seconds from 1 to 86400");
    }
  }
  ::unsetenv("VTOOLS_MAX_LAYOUT_SECONDS");
}
