#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "error.hpp"

namespace vtools {

namespace {

// Temporaries alive right now, readable from a signal handler: fixed slots of C strings, no allocation there.
constexpr int kMaxLiveTemps = 16;
constexpr int kMaxPath = 4096;
std::array<std::atomic<bool>, kMaxLiveTemps> g_slot_used{};
std::array<std::array<char, kMaxPath>, kMaxLiveTemps> g_slot_path{};

int register_temp(const std::string& path) {
  if (path.size() + 1 > kMaxPath) return -1;
  for (int i = 0; i < kMaxLiveTemps; ++i) {
    bool expected = false;
    if (g_slot_used[i].compare_exchange_strong(expected, true)) {
      std::memcpy(g_slot_path[i].data(), path.c_str(), path.size() + 1);
      return i;
    }
  }
  return -1;  // more live outputs than slots: still atomic, just not cleaned up on a signal
}

void unregister_temp(const std::string& path) {
  for (int i = 0; i < kMaxLiveTemps; ++i)
    if (g_slot_used[i] && path == g_slot_path[i].data()) g_slot_used[i] = false;
}

// A child's process group to kill on a fatal signal (KillOnInterrupt); 0: none.
std::atomic<pid_t> g_child_group{0};

extern "C" void on_fatal_signal(int sig) {
  if (const pid_t group = g_child_group.load(); group > 0) ::kill(-group, SIGKILL);
  for (int i = 0; i < kMaxLiveTemps; ++i)
    if (g_slot_used[i]) ::unlink(g_slot_path[i].data());
  for (int i = 0; i < kMaxLiveTemps; ++i)  // then folders (RemoveOnInterrupt), once the files in them are gone
    if (g_slot_used[i]) ::rmdir(g_slot_path[i].data());
  ::_exit(128 + sig);
}

[[noreturn]] void io_error(const std::string& what, const std::string& path) {
  throw Error(ExitCode::kIoError, what + " '" + path + "': " + std::strerror(errno));
}

// True when `path` names (through any symlinks) something that exists and is neither a regular file nor a folder:
// a FIFO, a device, a socket. Those are written through in place; renaming over them would replace them.
bool is_special_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// The path a chain of symlinks ends at (the target itself may not exist yet), so that the rename replaces the
// target and the link keeps pointing at it. Paths without a link are returned unchanged.
std::string final_link_target(const std::string& path) {
  std::string at = path;
  for (int hops = 0; hops < 40; ++hops) {  // 40: the kernel's own limit (ELOOP) on links followed
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
    std::string target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : kMaxPath), '\0');
    const ssize_t n = ::readlink(at.c_str(), target.data(), target.size());
    if (n < 0) io_error("cannot read symlink", at);
    target.resize(static_cast<std::size_t>(n));
    if (!target.empty() && target[0] != '/') {
      const std::size_t slash = at.rfind('/');
      if (slash != std::string::npos) target = at.substr(0, slash + 1) + target;
    }
    at = target;
  }
  errno = ELOOP;
  io_error("cannot create output", path);
}

// A sibling of `target` to write first and rename over it: "<name>.<tag>-<pid>" where that fits the file system's
// limit on one name (NAME_MAX), else ".<tag>-<pid>-<n>", so that any name that can be created can also be written.
std::string sibling_name(const std::string& target, const char* tag) {
  static std::atomic<unsigned> counter{0};
  const std::string suffix = std::string(".") + tag + "-" + std::to_string(::getpid());
  const std::size_t slash = target.rfind('/');
  const std::size_t base_len = slash == std::string::npos ? target.size() : target.size() - slash - 1;
  const std::string dir = slash == std::string::npos ? std::string() : target.substr(0, slash + 1);
  long name_max = ::pathconf(dir.empty() ? "." : dir.c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  if (base_len + suffix.size() <= static_cast<std::size_t>(name_max)) return target + suffix;
  return dir + suffix + "-" + std::to_string(counter++);
}

}  // namespace

RemoveOnInterrupt::RemoveOnInterrupt(std::string path) : path_(std::move(path)) { register_temp(path_); }
RemoveOnInterrupt::~RemoveOnInterrupt() { unregister_temp(path_); }

KillOnInterrupt::KillOnInterrupt(pid_t group) { g_child_group.store(group); }
KillOnInterrupt::~KillOnInterrupt() { g_child_group.store(0); }

void install_interrupt_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), target_(final_link_target(path_)) {
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {  // say so before writing, not at the rename
    errno = EISDIR;
    io_error("cannot create output", path_);
  }
  temp_path_ = sibling_name(target_, "vtools-tmp");
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) io_error("cannot create output", path_);
  register_temp(temp_path_);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) {
    ::unlink(temp_path_.c_str());
  }
  unregister_temp(temp_path_);
}

void AtomicFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      io_error("cannot write output", path_);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void AtomicFile::commit() {
  if (::close(fd_) != 0) {
    fd_ = -1;
    io_error("cannot write output", path_);
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) io_error("cannot rename output into place", path_);
  committed_ = true;
}

void check_output_creatable(const std::string& path) {
  if (path == "-" || is_special_file(path)) return;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    io_error("cannot create output", path);
  }
  const std::string probe = sibling_name(final_link_target(path), "vtools-probe");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) io_error("cannot create output", path);
  ::close(fd);
  ::unlink(probe.c_str());
}

OutputStream::OutputStream(const std::string& path) : path_(path) {
  if (path_ == "-") return;
  // Special files (/dev/null, /dev/full, a FIFO a reader waits on) cannot be renamed over: write them directly, so
  // they are not atomic. Opening a FIFO waits for its reader, as a shell redirection does.
  if (is_special_file(path_)) {
    special_ = std::fopen(path_.c_str(), "wb");
    if (!special_) io_error("cannot open output", path_);
    return;
  }
  file_ = std::make_unique<AtomicFile>(path_);
}

OutputStream::~OutputStream() {
  if (special_) std::fclose(special_);
}

void OutputStream::write(std::string_view bytes) {
  if (file_) {
    file_->write(bytes);
  } else if (special_) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), special_) != bytes.size()) io_error("cannot write output", path_);
  } else {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!std::cout) throw Error(ExitCode::kIoError, "cannot write to stdout");
  }
}

void OutputStream::commit() {
  if (file_) {
    file_->commit();
  } else if (special_) {
    const bool ok = std::fflush(special_) == 0;
    const bool closed = std::fclose(special_) == 0;
    special_ = nullptr;
    if (!ok || !closed) io_error("cannot write output", path_);
  } else {
    std::cout.flush();
    if (!std::cout) throw Error(ExitCode::kIoError, "cannot write to stdout");
  }
}

void write_output(const std::string& path, std::string_view content) {
  OutputStream out(path);
  out.write(content);
  out.commit();
}

}  // namespace vtools
