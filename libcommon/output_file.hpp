// Atomic output: write to a temporary file beside the target, then rename over it. A failed or interrupted run
// never leaves a half-written output and never truncates an existing one. "-" means stdout.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace vtools {

/// Writes `content` to `path` atomically ("-" = stdout). Throws Error(kIoError) naming the path and errno text.
void write_output(const std::string& path, std::string_view content);

/// An output being written: bytes go to `path.vtools-tmp-<pid>` until commit() renames it into place. When `path` is
/// a symlink, the file it points to is replaced (the temporary sits beside it) and the link is kept.
/// Destroying an uncommitted AtomicFile removes the temporary. Fatal signals (SIGINT, SIGTERM, SIGHUP) remove
/// every live temporary before the process exits (see install_interrupt_cleanup).
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  /// Closes and renames. Throws Error(kIoError) on any failure (e.g. ENOSPC on /dev/full-like targets). No fsync:
  /// the rename keeps a failed run from leaving a half-written output; surviving a power cut is not promised (as
  /// with a compiler's output), and syncing a 700 MiB access trace cost 0.3 s.
  void commit();

 private:
  std::string path_;    // as given, for messages
  std::string target_;  // path_ with symlinks followed: what the rename replaces
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

/// An output written piece by piece, as write_output writes it whole (a 10^8-byte document is sent out as it is
/// formatted, never joined): atomically to a file (through symlinks, as AtomicFile), to stdout for "-", directly
/// (not atomically) to a FIFO, a device or a socket.
/// Nothing of a file output is in place until commit(). write() and commit() throw Error(kIoError).
class OutputStream {
 public:
  explicit OutputStream(const std::string& path);
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;

  void write(std::string_view bytes);
  void commit();

 private:
  std::string path_;
  std::unique_ptr<AtomicFile> file_;  // a regular file
  std::FILE* special_ = nullptr;      // a FIFO, a device: written in place
};

/// Throws Error(kIoError) now when `path` could not be written later (its folder missing or read-only, or it is a
/// folder): for commands that work for minutes before they write (vbench run, vtrace run). "-" and special files
/// (FIFOs, devices) pass. Creates and removes a probe file beside it.
void check_output_creatable(const std::string& path);

/// While alive, `path` (a file, or an empty folder once its registered files are gone) is removed if SIGINT, SIGTERM
/// or SIGHUP ends the process, as AtomicFile's temporaries are: for working files that must not outlive a run
/// (vbench --impl's weights and messages). 16 paths at most are registered at once, AtomicFiles included.
class RemoveOnInterrupt {
 public:
  explicit RemoveOnInterrupt(std::string path);
  ~RemoveOnInterrupt();
  RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
  RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;

 private:
  std::string path_;
};

/// While alive, process group `group` gets SIGKILL if SIGINT, SIGTERM or SIGHUP ends this process: a child run in a
/// group of its own (which a terminal's ^C does not reach) must not outlive it. One group at a time.
class KillOnInterrupt {
 public:
  explicit KillOnInterrupt(pid_t group);
  ~KillOnInterrupt();
  KillOnInterrupt(const KillOnInterrupt&) = delete;
  KillOnInterrupt& operator=(const KillOnInterrupt&) = delete;
};

/// Installs SIGINT/SIGTERM/SIGHUP handlers that unlink live temporaries and exit with 128 + signal.
/// Called by run_main(); safe to call more than once.
void install_interrupt_cleanup();

}  // namespace vtools
