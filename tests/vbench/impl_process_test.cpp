#include "tools/vbench/impl_process.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <unistd.h>

#include <fstream>
#include <string>

using namespace vtools::vbench;

namespace {

/// A file holding `text`, removed at scope exit: the child's standard input.
struct TempInput {
  std::string path = "impl_process_test_stdin." + std::to_string(::getpid());
  explicit TempInput(const std::string& text) { std::ofstream(path) << text; }
  ~TempInput() { std::remove(path.c_str()); }
};

}  // namespace

TEST_CASE("impl_process: exit status, standard input and the environment reach the child") {
  const TempInput in("hello\n");
  CHECK(run_process("exit 3", in.path, 10, {}).exit_status == 3);
  CHECK(run_process("exit 3", in.path, 10, {}).describe(10) == "exited with status 3");
  const ProcessOutcome read =
      run_process("read x && test \"$x\" = hello && test \"$V\" = 7", in.path, 10, {{"V", "7"}});
  CHECK(read.ok());
  CHECK(run_process("no-such-command-vbench-test 2>/dev/null", in.path, 10, {}).exit_status == 127);
}

TEST_CASE("impl_process: a signal and a timeout are told apart; the timeout kills the whole group") {
  const TempInput in("");
  const ProcessOutcome killed = run_process("kill -SEGV $$", in.path, 10, {});
  CHECK(killed.signal == 11);
  CHECK(killed.exit_status == -1);
  CHECK(killed.describe(10).starts_with("killed by signal 11 ("));
  // The shell's child sleeps on: the kill of the group ends it too, so the call returns at the timeout.
  const ProcessOutcome slow = run_process("sleep 30; true", in.path, 0.3, {});
  CHECK(slow.timed_out);
  CHECK_FALSE(slow.ok());
  CHECK(slow.wall_s < 5);
  CHECK(slow.describe(0.3) == "timed out after 0.3 s (killed)");
}
