#include "tools/vrender/layout_deadline.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>

#include "libcommon/error.hpp"

namespace vtools::vrender {

namespace {

constexpr int kDefaultLayoutSeconds = 30;
constexpr int kMaxLayoutSeconds = 86400;

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone or gave up: nothing left to tell
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The child's answer: 'S' + the result, or 'E' + "<code> <line> <column>\n<file>\n<message>".
std::string error_reply(const Error& e) {
  return "E" + std::to_string(static_cast<int>(e.code())) + " " + std::to_string(e.where().line) + " " +
         std::to_string(e.where().column) + "\n" + e.where().file + "\n" + e.message();
}

[[noreturn]] void run_child(const std::function<std::string()>& work, int fd, std::string_view name) {
  std::string reply;
  try {
    reply = "S" + work();
  } catch (const Error& e) {
    reply = error_reply(e);
  } catch (const std::exception& e) {
    reply = error_reply(Error(ExitCode::kInternal, std::string("graph layout failed: ") + e.what(),
                              SourceLocation{std::string(name)}));
  }
  write_all(fd, reply);
  ::_exit(0);  // no atexit handlers or stdio flushes: those belong to the parent
}

Error parse_error_reply(const std::string& reply) {
  std::istringstream in(reply.substr(1));
  int code = static_cast<int>(ExitCode::kInternal);
  SourceLocation where;
  in >> code >> where.line >> where.column;
  in.ignore(1);  // the newline after the numbers
  std::getline(in, where.file);
  std::string message{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return Error(static_cast<ExitCode>(code), message, where);
}

}  // namespace

int max_layout_seconds() {
  const char* env = std::getenv("VTOOLS_MAX_LAYOUT_SECONDS");
  if (!env) return kDefaultLayoutSeconds;
  const std::string text(env);
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::atoi(text.c_str()) < 1 || std::atoi(text.c_str()) > kMaxLayoutSeconds)
    throw Error(ExitCode::kUsage, "VTOOLS_MAX_LAYOUT_SECONDS='" + text + "': expected a whole number of seconds from 1 to " +
                                      std::to_string(kMaxLayoutSeconds));
  return std::atoi(text.c_str());
}

std::string run_with_deadline(const std::function<std::string()>& work, int limit_s, std::string_view name) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw Error(ExitCode::kInternal, std::string("cannot start graph layout: pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(ExitCode::kInternal, std::string("cannot start graph layout: fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(work, fds[1], name);
  }
  ::close(fds[1]);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
  std::string reply;
  bool timed_out = false;
  char buf[1 << 16];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      timed_out = true;
      break;
    }
    const ssize_t n = r < 0 ? -1 : ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of the answer (or a broken pipe: judged by the child's status below)
    reply.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const SourceLocation where{std::string(name)};
  if (timed_out)
    throw Error(ExitCode::kDataError,
                "graphviz did not finish the layout within " + std::to_string(limit_s) +
                    " s (raise the limit with VTOOLS_MAX_LAYOUT_SECONDS=<seconds>)",
                where);
  if (WIFSIGNALED(status))
    throw Error(ExitCode::kDataError,
                "graphviz crashed laying out the graph (" + std::string(strsignal(WTERMSIG(status))) + ")", where);
  if (reply.empty() || (reply[0] != 'S' && reply[0] != 'E'))
    throw Error(ExitCode::kInternal, "graph layout ended without an answer", where);
  if (reply[0] == 'E') throw parse_error_reply(reply);
  return reply.substr(1);
}

}  // namespace vtools::vrender
