// Reading and folding a run's raw records while the command is still exiting. The tracer writes each process's end
// record at its clean exit, and the process then still tears down (CUDA's contexts, the interpreter) before vtrace
// sees it end; the post-run work (reading the records, building the trace) can run meanwhile. The result is used only
// if the raw files are, once the command has exited, exactly as they were read: a process that started or wrote
// later makes vtrace read and fold them again, so what is written never depends on the timing.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace vtools::vtrace {

/// A raw record file as found in the raw directory: enough to tell whether it changed since.
struct RawFileStamp {
  std::string path;
  std::uint64_t bytes = 0;
  std::int64_t modified_ns = 0;
  ino_t inode = 0;
  bool ended = false;  ///< its last record is the end record (the process flushed everything at a clean exit)
  bool operator==(const RawFileStamp& o) const {
    return path == o.path && bytes == o.bytes && modified_ns == o.modified_ns && inode == o.inode;
  }
};

/// The directory's raw record files (*.bin), by path; an unreadable one is listed as not ended.
std::vector<RawFileStamp> stamp_raw_files(const std::string& dir);

/// Whether every file of `stamps` ended, and there is at least one.
bool all_ended(const std::vector<RawFileStamp>& stamps);

/// Blocks SIGINT, SIGTERM, SIGHUP and SIGQUIT in the calling thread, so that they reach vtrace's main thread.
void block_stop_signals();

/// Runs `fold` on a thread of its own once every raw file in `dir` has ended (polling every 20 ms from start() on),
/// and hands its result out after the command exited if the files did not change in between.
template <class Result>
class EarlyFold {
 public:
  EarlyFold(std::string dir, std::function<Result()> fold) : dir_(std::move(dir)), fold_(std::move(fold)) {}
  EarlyFold(const EarlyFold&) = delete;
  EarlyFold& operator=(const EarlyFold&) = delete;
  ~EarlyFold() { stop(); }

  /// Starts polling. Call after the command is forked (a fork with this thread running would break its child).
  void start() noexcept {
    try {
      if (!thread_.joinable()) thread_ = std::thread([this] { poll(); });
    } catch (...) {  // no thread: everything is read after the exit, as without this
    }
  }

  /// After the command exited: the early result when the raw files are still the ones it read, else nullopt (read
  /// and fold them now). Waits for a fold under way.
  std::optional<Result> take() {
    stop();
    if (!result_ || stamp_raw_files(dir_) != read_) return std::nullopt;
    return std::move(result_);
  }

  /// Whether the fold ran (for tests and the closing line).
  [[nodiscard]] bool folded() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return folded_;
  }

 private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  void poll() {
    block_stop_signals();  // vtrace's main thread takes SIGINT/SIGTERM/SIGHUP (child_process.hpp)
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (changed_.wait_for(lock, std::chrono::milliseconds(20), [&] { return stopping_; })) return;
      }
      try {
        std::vector<RawFileStamp> stamps = stamp_raw_files(dir_);
        if (!all_ended(stamps)) continue;
        result_.emplace(fold_());
        read_ = std::move(stamps);
      } catch (...) {  // vtrace reads them again after the exit and reports what is wrong then
        result_.reset();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      folded_ = true;
      return;
    }
  }

  std::string dir_;
  std::function<Result()> fold_;
  std::optional<Result> result_;
  std::vector<RawFileStamp> read_;  ///< the files as they were when fold_ ran (before it read them)
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool folded_ = false;
};

}  // namespace vtools::vtrace
