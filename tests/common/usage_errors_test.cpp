#include "libcommon/usage_errors.hpp"

#include <doctest/doctest.h>

#include "libcommon/cli.hpp"
#include "libcommon/flag_ranges.hpp"

using namespace vtools;

namespace {

// Parses `args` with a small two-level app and returns the usage message, or "parsed".
std::string usage_error(std::vector<std::string> args) {
  auto app = make_app("tool", "test app", "");
  auto* run = app->add_subcommand("run", "run it");
  app->add_subcommand("show", "show it");
  int iters = 1;
  std::vector<int> seqs;
  std::string input;
  std::uint64_t seed = 0;
  OutputOptions out;
  run->add_option("--iters", iters);
  run->add_option("--seq,-T", seqs)->delimiter(',');
  run->add_option("--seed", seed)->check(unsigned64_range());
  run->add_option("input", input)->required();
  add_output_options(run, out, {"json", "table"}, {"text"});
  args.insert(args.begin(), "tool");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    app->parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return usage_error_message(*app, e);
  }
  return "parsed";
}

}  // namespace

TEST_CASE("usage_errors: CLI11's messages become lowercase 'expected X, got Y' with the subcommand's help") {
  CHECK(usage_error({"run", "in", "--iters", "1", "--iters", "2"}) ==
        "--iters: expected at most 1 value, got 2 (run 'tool run --help')");
  CHECK(usage_error({"run", "in", "--seq", "64,abc"}) ==
        "--seq: expected an integer, got 'abc' (run 'tool run --help')");
  CHECK(usage_error({"run", "in", "--iters"}) == "--iters: expected a value, got none (run 'tool run --help')");
  CHECK(usage_error({"run"}) == "missing required argument 'input' (run 'tool run --help')");
  CHECK(usage_error({"run", "in", "--seed", "-1"}) ==
        "--seed: expected an integer from 0 to 18446744073709551615, got '-1' (run 'tool run --help')");
}

TEST_CASE("usage_errors: did-you-mean comes from the real choices, options and subcommands") {
  CHECK(usage_error({"run", "in", "--format", "tabel"}) ==
        "--format: expected json or table, got 'tabel'; did you mean 'table'? (run 'tool run --help')");
  CHECK(usage_error({"run", "in", "--format", "text"}) == "parsed");  // an older spelling, accepted, not offered
  CHECK(usage_error({"run", "in", "--itres", "3"}) ==
        "unknown option '--itres'; did you mean '--iters'? (run 'tool run --help')");
  CHECK(usage_error({"run", "in", "--itres=3"}) ==
        "unknown option '--itres'; did you mean '--iters'? (run 'tool run --help')");
  CHECK(usage_error({"rnu"}) == "unknown subcommand 'rnu' (run or show); did you mean 'run'? (run 'tool --help')");
  CHECK(usage_error({"run", "in", "extra"}) == "unexpected argument 'extra' (run 'tool run --help')");
  CHECK(usage_error({"--bogus"}) == "unknown option '--bogus' (run 'tool --help')");
}

TEST_CASE("usage_errors: -q is taken before the subcommand as after it") {
  set_quiet(false);
  CHECK(usage_error({"-q", "run", "in"}) == "parsed");
  CHECK(quiet());
  set_quiet(false);
  CHECK(usage_error({"run", "in", "-q"}) == "parsed");
  CHECK(quiet());
  set_quiet(false);
}

TEST_CASE("usage_errors: choice_list") {
  CHECK(choice_list({"a"}) == "a");
  CHECK(choice_list({"a", "b"}) == "a or b");
  CHECK(choice_list({"a", "b", "c"}) == "a, b or c");
}
