#include "tools/vbench/impl_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "libcommon/error.hpp"
#include "libcommon/output_file.hpp"

namespace vtools::vbench {

std::string ProcessOutcome::describe(double timeout_s) const {
  std::ostringstream s;
  if (timed_out) {
    s << "timed out after " << timeout_s << " s (killed)";
  } else if (exit_status >= 0) {
    s << "exited with status " << exit_status;
    // A shell reports a command killed by signal N as status 128 + N.
    if (exit_status > 128 && exit_status < 128 + 65)
      s << " (signal " << exit_status - 128 << ", " << strsignal(exit_status - 128) << ")";
  } else {
    s << "killed by signal " << signal << " (" << strsignal(signal) << ")";
  }
  return s.str();
}

ProcessOutcome run_process(const std::string& command, const std::string& stdin_path, double timeout_s,
                           const std::vector<std::pair<std::string, std::string>>& env) {
  const int in = ::open(stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    throw Error(ExitCode::kIoError, "cannot open '" + stdin_path + "': " + std::strerror(errno));
  const pid_t parent = ::getpid();
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(in);
    throw Error(ExitCode::kUnavailable, std::string("cannot start a process: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Child: its own group (the timeout kills the shell and whatever it started), killed if vbench dies first.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in, STDIN_FILENO);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    for (const auto& [key, value] : env) ::setenv(key.c_str(), value.c_str(), 1);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in);
  ::setpgid(pid, pid);  // also here: no race with the kill below
  const KillOnInterrupt kill_on_interrupt(pid);  // ^C reaches vbench's group only
  ProcessOutcome out;
  const auto deadline = start + std::chrono::duration<double>(timeout_s);
  int status = 0;
  for (auto pause = std::chrono::milliseconds(1);;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw Error(ExitCode::kInternal, std::string("waitpid: ") + std::strerror(errno));
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      out.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);  // whatever the shell left running in its group
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!out.timed_out) {
    if (WIFEXITED(status)) out.exit_status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  }
  return out;
}

}  // namespace vtools::vbench
