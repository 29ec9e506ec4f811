// Running the traced command: exit codes, signals, environment, exec failures (real processes, no GPU needed).
#include <doctest/doctest.h>

#include "libcommon/error.hpp"
#include "tools/vtrace/child_process.hpp"
#include "tools/vtrace/runtime_check.hpp"

using namespace vtools::vtrace;

TEST_CASE("child_process: the command's exit status passes through") {
  CHECK(run_child({"/bin/sh", "-c", "exit 3"}, {}).exit_status == 3);
  ChildExit ok = run_child({"true"}, {});
  CHECK(ok.exit_status == 0);
  CHECK(ok.signal == 0);
}

TEST_CASE("child_process: death by signal is 128 + N") {
  ChildExit e = run_child({"/bin/sh", "-c", "kill -ABRT $$"}, {});
  CHECK(e.signal == 6);
  CHECK(e.exit_status == 134);
}

TEST_CASE("child_process: the extra environment reaches the command") {
  CHECK(run_child({"/bin/sh", "-c", "test \"$VTRACE_RAW_DIR\" = /some/dir"}, {{"VTRACE_RAW_DIR", "/some/dir"}})
            .exit_status == 0);
  CHECK(run_child({"/bin/sh", "-c", "test \"$VTRACE_RAW_DIR\" = /some/dir"}, {{"VTRACE_RAW_DIR", "/other"}})
            .exit_status == 1);
}

TEST_CASE("child_process: a command that cannot run is an error naming it") {
  try {
    run_child({"/nonexistent/program"}, {});
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kNoInput);
    CHECK(std::string(e.what()) == "cannot run '/nonexistent/program': No such file or directory");
  }
}

TEST_CASE("runtime_check: a missing driver library is exit 69 saying what is missing") {
  try {
    check_tracing_runtime("/nonexistent/libvtrace_cupti.so", "libvtrace-no-such-driver.so.1");
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kUnavailable);
    CHECK(std::string(e.what()) ==
          "cannot trace: the CUDA driver library libvtrace-no-such-driver.so.1 cannot be loaded (no NVIDIA driver on "
          "this machine?): libvtrace-no-such-driver.so.1: cannot open shared object file: No such file or directory");
  }
}

TEST_CASE("runtime_check: an injection library that is not there is exit 69") {
  try {
    find_injection_library("/nonexistent/bin");
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kUnavailable);
    CHECK(std::string(e.what()).rfind("the CUPTI injection library libvtrace_cupti.so was not found in "
                                      "'/nonexistent/bin' or '/nonexistent/bin/../lib/vtrace'",
                                      0) == 0);
  }
}
