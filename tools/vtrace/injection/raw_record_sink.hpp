// The raw-record file of one traced process, $VTRACE_RAW_DIR/raw-<pid>.bin, as both injection libraries
// (cupti_injection.cpp, sanitizer_tool.cpp) write it: open once, append record batches, count what could not be
// written, and close once with the lost-record count and the library's end records. What goes into the batches is
// the libraries' business. Runs inside someone else's process: nothing here throws or exits.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "tools/vtrace/raw_record_writer.hpp"

namespace vtools::vtrace::injection {

class RawRecordSink {
 public:
  /// Opens (creates, appends to) `dir`/raw-<pid>.bin. False when it cannot: the library then stays inert.
  bool open(std::string_view dir) noexcept;
  /// From now on batches go to a writer thread, in order: write() returns once a batch is queued (and waits while
  /// `max_queued_bytes` are), so a launch end's 10^5 sites do not wait for the file. The Sanitizer tool uses it;
  /// a batch still queued when the process dies is lost with the rest (no end record: the trace says partial).
  void write_in_background(std::size_t max_queued_bytes) noexcept;
  /// Appends `batch`; its records count as lost when the file is not open (or closed, or forked away) or the write
  /// fails.
  void write(raw::RecordBatch&& batch) noexcept;
  void write(const raw::RecordBatch& batch) noexcept;
  /// Appends what `job` emits, in order with the batches, built on the writer thread when there is one (so that
  /// packing a launch's sites costs the program's thread nothing), else here. A job that throws loses what it had
  /// not emitted yet, counted as one lost record.
  using Emit = std::function<void(const raw::RecordBatch&)>;
  void write_job(std::function<void(const Emit&)> job) noexcept;
  /// Waits until every queued batch and job is written (before the closing note sums what the jobs counted).
  void drain() noexcept;
  /// Appends one note record (a message the parent prints).
  void write_note(const std::string& message) noexcept;
  /// Counts `records` lost before they reached a batch (an allocation failed, a callback caught an exception).
  void count_lost(std::uint64_t records = 1) noexcept { lost_ += records; }
  /// True for the first caller only: the library then flushes what it holds and calls close_with. After that, or
  /// after detach_after_fork, the process is done (`finished()`).
  bool begin_finish() noexcept;
  [[nodiscard]] bool finished() const noexcept { return finished_.load(); }
  /// Writes one last batch, the lost-record count (kDropped, when any) then what `add_end_records(batch)` adds, and
  /// closes the file. An exception from building the batch loses the batch, nothing else.
  template <class AddEndRecords>
  void close_with(AddEndRecords&& add_end_records) noexcept {
    try {
      raw::RecordBatch b;
      if (lost_ > 0) b.add(raw::Tag::kDropped, raw::DroppedRecord{lost_.load()});
      add_end_records(b);
      write(std::move(b));
    } catch (...) {
    }
    close();
  }
  /// In a forked child (pthread_atfork): the file is the parent's, the tracing state is not the child's; write
  /// nothing more.
  void detach_after_fork() noexcept {
    finished_ = true;
    fd_ = -1;
    writer_ = nullptr;  // the parent's thread (not the child's: left alone, as is the queue)
  }

 private:
  void close() noexcept;
  void append(const raw::RecordBatch& batch) noexcept;
  void write_queued() noexcept;

  // Background writing (write_in_background): batches wait in queue_ for writer_.
  /// Made once, joined by close() (not in a forked child, where it is not ours): never destroyed while joinable.
  std::atomic<std::thread*> writer_{nullptr};
  std::mutex mutex_;
  std::condition_variable changed_;
  struct Queued {
    raw::RecordBatch batch;
    std::function<void(const Emit&)> job;  ///< run instead when set
  };
  void run(const std::function<void(const Emit&)>& job) noexcept;
  std::deque<Queued> queue_;  ///< the front stays until written
  std::size_t queued_bytes_ = 0, max_queued_bytes_ = 0;
  bool stopping_ = false;

  std::atomic<int> fd_{-1};
  std::atomic<std::uint64_t> lost_{0};  ///< records lost (allocation or write failures)
  std::atomic<bool> finished_{false};   ///< end records written, or this process is not traced any more
};

}  // namespace vtools::vtrace::injection
