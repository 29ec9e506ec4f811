// Reading and folding a run's raw records while the command is still exiting. The tracer writes each process's end
// record at its clean exit, and the process then still tears down (CUDA's contexts, the interpreter) before vtrace
// sees it end; the post-run work (reading the records, building the trace) can run meanwhile. The result is used only
// if the raw files are, once the command has exited, exactly as they were read: a process that started or wrote
// later makes vtrace read and fold them again, so the records a trace holds never depend on the timing. (Source files
// quoted beside findings and hot lines are read when the fold runs, a moment earlier than without it.)
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <atomic>
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

/// Runs `fold` on a thread of its own once the command's own raw file and every other one in `dir` have ended
/// (polling every 20 ms from start() on), again whenever they change and all end again, and hands the result out
/// after the command exited if the files did not change since it was made. Requiring the command's own file keeps it
/// from folding between the programs of a script (`sh -c 'a && b'`: the shell has none).
template <class Result>
class EarlyFold {
 public:
  using Clock = std::chrono::steady_clock;
  /// `cancelled`: checked before each fold (vtrace was interrupted: no trace will be written).
  EarlyFold(std::string dir, std::function<Result()> fold, std::function<bool()> cancelled = nullptr)
      : dir_(std::move(dir)), fold_(std::move(fold)), cancelled_(std::move(cancelled)) {}
  EarlyFold(const EarlyFold&) = delete;
  EarlyFold& operator=(const EarlyFold&) = delete;
  ~EarlyFold() { stop(); }

  /// Starts polling for command `pid`'s records. Call once the command was executed (a fork while this thread runs
  /// would break its child).
  void start(int pid) noexcept {
    try {
      own_ = dir_ + "/raw-" + std::to_string(pid) + ".bin";
      if (!thread_.joinable()) thread_ = std::thread([this] { poll(); });
    } catch (...) {  // no thread: everything is read after the exit, as without this
    }
  }

  /// After the command exited: the early result when the raw files are still the ones it read, else nullopt (read
  /// and fold them now). Waits for a fold under way; a result it drops is freed first.
  std::optional<Result> take() {
    stop();
    std::optional<Result> r = std::move(result_);
    result_.reset();
    if (!r) return std::nullopt;
    if (stamp_raw_files(dir_) != read_) {
      ++dropped_;
      return std::nullopt;
    }
    return r;
  }

  /// Whether a fold has finished (for tests).
  [[nodiscard]] bool folded() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return folds_ > 0;
  }
  /// Folds made and dropped because the files changed after them (the closing line says so).
  [[nodiscard]] int dropped() const { return dropped_.load(); }
  /// When the fold whose result take() gave began.
  [[nodiscard]] Clock::time_point fold_started() const { return fold_started_; }

 private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  bool stopping() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopping_;
  }

  void poll() {
    block_stop_signals();  // vtrace's main thread takes SIGINT/SIGTERM/SIGHUP (child_process.hpp)
    std::vector<RawFileStamp> failed;  // the files as a fold that threw found them: not tried again as they are
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (changed_.wait_for(lock, std::chrono::milliseconds(20), [&] { return stopping_; })) return;
      }
      std::vector<RawFileStamp> stamps;
      try {
        stamps = stamp_raw_files(dir_);
      } catch (...) {
        continue;
      }
      if (result_ && stamps == read_) continue;  // folded; nothing changed
      if (result_) {  // changed since: its memory goes now
        result_.reset();
        ++dropped_;
      }
      const bool own_ended = std::any_of(stamps.begin(), stamps.end(),
                                         [&](const RawFileStamp& f) { return f.path == own_ && f.ended; });
      if (!own_ended || !all_ended(stamps) || stamps == failed || (cancelled_ && cancelled_()) || stopping()) continue;
      const Clock::time_point started = Clock::now();
      try {
        result_.emplace(fold_());
        read_ = std::move(stamps);
        fold_started_ = started;
      } catch (...) {  // vtrace reads them again after the exit and reports what is wrong then
        result_.reset();
        failed = std::move(stamps);
      }
      std::lock_guard<std::mutex> lock(mutex_);
      ++folds_;
    }
  }

  std::string dir_, own_;
  std::function<Result()> fold_;
  std::function<bool()> cancelled_;
  std::optional<Result> result_;
  std::vector<RawFileStamp> read_;  ///< the files as they were when fold_ ran (before it read them)
  Clock::time_point fold_started_{};
  std::atomic<int> dropped_{0};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  int folds_ = 0;
};

}  // namespace vtools::vtrace
