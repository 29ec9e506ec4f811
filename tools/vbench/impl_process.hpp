// Runs an implementation's command line (`vbench run --impl CMD`) as a child process: `/bin/sh -c CMD` in a process
// group of its own, standard input from a file (the request), standard output sent to vbench's standard error (so
// that a document on vbench's stdout stays clean), standard error passed through; killed, with its whole group, when
// it runs past a timeout. Knows nothing of the protocol (impl_protocol) or of benchmarks (impl_harness).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace vtools::vbench {

/// How a child ended.
struct ProcessOutcome {
  bool timed_out = false;  ///< killed (SIGKILL to its group) after the timeout
  int exit_status = -1;    ///< its exit status when it exited; -1 otherwise
  int signal = 0;          ///< the signal that ended it when it did not exit (0 otherwise)
  double wall_s = 0;
  [[nodiscard]] bool ok() const { return !timed_out && exit_status == 0; }
  /// "exited with status 3", "killed by signal 11 (Segmentation fault)", "timed out after 2 s (killed)".
  [[nodiscard]] std::string describe(double timeout_s) const;
};

/// Runs `command` through /bin/sh with `stdin_path` as its standard input and `env` added to its environment.
/// Error(kUnavailable) when it cannot be started (fork, the stdin file); a command that is not found is a child
/// exiting 127, as in a shell.
ProcessOutcome run_process(const std::string& command, const std::string& stdin_path, double timeout_s,
                           const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace vtools::vbench
