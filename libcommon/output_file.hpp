// Atomic output: write to a temporary file beside the target, then rename over it. A failed or interrupted run
// never leaves a half-written output and never truncates an existing one. "-" means stdout.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace vtools {

/// Writes `content` to `path` atomically ("-" = stdout). Throws Error(kIoError) naming the path and errno text.
void write_output(const std::string& path, std::string_view content);
/// The same for content in consecutive pieces (a 10^8-byte document need not be joined into one string first).
void write_output(const std::string& path, std::span<const std::string> pieces);

/// An output being written: bytes go to `path.vtools-tmp-<pid>` until commit() renames it into place.
/// Destroying an uncommitted AtomicFile removes the temporary. Fatal signals (SIGINT, SIGTERM, SIGHUP) remove
/// every live temporary before the process exits (see install_interrupt_cleanup).
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  /// Flushes, fsyncs and renames. Throws Error(kIoError) on any failure (e.g. ENOSPC on /dev/full-like targets).
  void commit();

 private:
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

/// Installs SIGINT/SIGTERM/SIGHUP handlers that unlink live temporaries and exit with 128 + signal.
/// Called by run_main(); safe to call more than once.
void install_interrupt_cleanup();

}  // namespace vtools
