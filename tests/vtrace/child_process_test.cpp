// Running the traced command: exit codes, signals, environment, exec failures (real processes, no GPU needed).
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

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

TEST_CASE("child_process: a SIGTERM to vtrace reaches the command and is reported") {
  // kill() from another thread stands in for `kill <vtrace pid>`: the handler passes it on to `sleep`.
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  std::thread killer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(::getpid(), SIGTERM);
  });
  ChildExit e = run_child({"sleep", "30"}, {});
  killer.join();
  CHECK(e.interrupted_by == SIGTERM);
  CHECK(e.signal == SIGTERM);  // sleep died of the passed-on signal instead of sleeping 30 s
  CHECK(e.duration_ns < 10'000'000'000ull);
  // The disposition is restored: a later SIGTERM is not caught by run_child's handler.
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  CHECK(reinterpret_cast<void*>(after.sa_handler) == reinterpret_cast<void*>(before.sa_handler));
}

TEST_CASE("child_process: a command that ends on its own is not interrupted") {
  CHECK(run_child({"true"}, {}).interrupted_by == 0);
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
