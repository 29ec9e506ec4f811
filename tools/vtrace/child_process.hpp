// Runs the traced command: fork + exec with extra environment variables, stdin/stdout/stderr inherited untouched,
// and waits for it. While it runs, SIGINT/SIGTERM/SIGHUP sent to vtrace are passed on to the command (a terminal's ^C
// already reached it) and reported in ChildExit::interrupted_by; SIGQUIT is ignored (the terminal sends it to the
// command too). vtrace always outlives the command and decides what to write.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace vtools::vtrace {

struct ChildExit {
  int exit_status = 0;  ///< the command's exit code, or 128 + signal when a signal killed it
  int signal = 0;       ///< the killing signal, 0 when it exited
  std::uint64_t duration_ns = 0;  ///< wall time from fork to reaping
  int interrupted_by = 0;  ///< SIGINT, SIGTERM or SIGHUP that vtrace itself received while waiting (0: none)
};

/// Runs `argv` (argv[0] looked up in PATH) with `env` added to (or replacing in) the environment; a value of
/// kChildPid is replaced by the command's own pid (so a preloaded library can tell the target from its children).
/// Throws
/// Error(kNoInput) when the command cannot be executed ("cannot run 'x': No such file or directory"),
/// Error(kUsage) when argv is empty. `started`, when given, is called with the command's pid once it was executed
/// (vtrace may start threads from then on), before the wait; what it throws is ignored.
inline constexpr const char* kChildPid = "{pid}";

ChildExit run_child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                    const std::function<void(int pid)>& started = nullptr);

/// Whether vtrace received SIGINT, SIGTERM or SIGHUP while waiting for the command (readable from any thread).
bool child_interrupted();

}  // namespace vtools::vtrace
