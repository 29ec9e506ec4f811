#include "tools/vtrace/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "libcommon/error.hpp"

namespace vtools::vtrace {

namespace {

volatile sig_atomic_t g_child_pid = 0;
// SIGINT, SIGTERM or SIGHUP that vtrace itself received while waiting; atomic (lock-free, so signal-safe) because
// another thread of vtrace's reads it (child_interrupted)
std::atomic<int> g_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free);

/// vtrace was told to stop: remember it (run_child reports it) and pass it on to the command, which vtrace then
/// waits for. A terminal's ^C or hangup (si_code SI_KERNEL) already reached the whole foreground process group,
/// the command included; sending it again would interrupt the command's own cleanup (a second KeyboardInterrupt).
void on_interrupt(int sig, siginfo_t* info, void*) {
  g_interrupt = sig;
  if (g_child_pid > 0 && !(info && info->si_code == SI_KERNEL)) ::kill(static_cast<pid_t>(g_child_pid), sig);
}

/// Signal dispositions for the time the child runs, restored on destruction (libcommon's interrupt cleanup, under
/// run_main, which removes half-written outputs if a signal comes later, while the trace is written).
class WaitSignals {
 public:
  WaitSignals() {
    g_interrupt = 0;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    struct sigaction forward {};
    forward.sa_sigaction = on_interrupt;
    sigemptyset(&forward.sa_mask);
    forward.sa_flags = SA_RESTART | SA_SIGINFO;
    sigaction(SIGINT, &forward, &old_[0]);
    sigaction(SIGQUIT, &ignore, &old_[1]);  // the terminal sends it to the command, which may dump core
    sigaction(SIGTERM, &forward, &old_[2]);
    sigaction(SIGHUP, &forward, &old_[3]);
  }
  ~WaitSignals() {
    sigaction(SIGINT, &old_[0], nullptr);
    sigaction(SIGQUIT, &old_[1], nullptr);
    sigaction(SIGTERM, &old_[2], nullptr);
    sigaction(SIGHUP, &old_[3], nullptr);
  }
  WaitSignals(const WaitSignals&) = delete;
  WaitSignals& operator=(const WaitSignals&) = delete;

 private:
  struct sigaction old_[4] {};
};

}  // namespace

bool child_interrupted() { return g_interrupt != 0; }

ChildExit run_child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                    const std::function<void(int pid)>& started) {
  if (argv.empty()) throw Error(ExitCode::kUsage, "no command to run (usage: vtrace run [options] -- CMD ARGS...)");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // The child reports an exec failure through this close-on-exec pipe; EOF means exec succeeded.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Error(ExitCode::kInternal, std::string("pipe2 failed: ") + std::strerror(errno));
  WaitSignals signals;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(ExitCode::kInternal, std::string("fork failed: ") + std::strerror(err));
  }
  if (pid == 0) {
    // Child: default dispositions for what vtrace changed, then exec. Only async-signal-safe calls until exec,
    // except setenv (vtrace is single-threaded here).
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGQUIT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
    ::close(fds[0]);
    std::string pid_text = std::to_string(::getpid());
    for (const auto& [key, value] : env) ::setenv(key.c_str(), value == kChildPid ? pid_text.c_str() : value.c_str(), 1);
    ::execvp(args[0], args.data());
    int err = errno;
    [[maybe_unused]] auto n = ::write(fds[1], &err, sizeof err);
    ::_exit(127);
  }
  g_child_pid = pid;
  // A stop request that came before the command existed could not be passed on: pass it on now.
  if (g_interrupt) ::kill(pid, g_interrupt);
  ::close(fds[1]);
  int exec_errno = 0;
  ssize_t got;
  do {
    got = ::read(fds[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  ::close(fds[0]);
  if (started && got != static_cast<ssize_t>(sizeof exec_errno)) {
    try {
      started(static_cast<int>(pid));
    } catch (...) {  // the command runs on; it must still be waited for
    }
  }

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(ExitCode::kInternal, std::string("waitpid failed: ") + std::strerror(errno));
  }
  g_child_pid = 0;
  if (got == static_cast<ssize_t>(sizeof exec_errno))
    throw Error(ExitCode::kNoInput, "cannot run '" + argv[0] + "': " + std::strerror(exec_errno));

  ChildExit out;
  out.interrupted_by = g_interrupt;
  out.duration_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
    out.exit_status = 128 + out.signal;
  } else {
    out.exit_status = WEXITSTATUS(status);
  }
  return out;
}

}  // namespace vtools::vtrace
