#include "tools/vtrace/injection/raw_record_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace vtools::vtrace::injection {

bool RawRecordSink::open(std::string_view dir) noexcept {
  try {
    const std::string path = std::string(dir) + "/raw-" + std::to_string(getpid()) + ".bin";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    fd_ = fd;
    return true;
  } catch (...) {
    ++lost_;
    return false;
  }
}

void RawRecordSink::append(const raw::RecordBatch& batch) noexcept {
  const int fd = fd_.load();
  if (fd < 0 || !raw::append_to_fd(fd, batch.bytes())) lost_ += batch.records();
}

void RawRecordSink::write_in_background(std::size_t max_queued_bytes) noexcept {
  if (writer_ || fd_.load() < 0) return;
  try {
    max_queued_bytes_ = max_queued_bytes;
    writer_ = new std::thread([this] { write_queued(); });
  } catch (...) {  // no thread: writes stay in the caller's thread
  }
}

void RawRecordSink::write_queued() noexcept {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything written
    // Written where it lies and dropped after, so an empty queue means all is written (drain). Other threads only
    // push at the back, which leaves the front in place.
    const Queued& next = queue_.front();
    lock.unlock();
    if (next.job)
      run(next.job);
    else
      append(next.batch);
    lock.lock();
    queued_bytes_ -= next.batch.bytes().size();
    queue_.pop_front();
    changed_.notify_all();
  }
}

void RawRecordSink::write(raw::RecordBatch&& batch) noexcept {
  if (batch.bytes().empty()) return;
  if (!writer_ || fd_.load() < 0) return append(batch);
  const std::size_t bytes = batch.bytes().size();
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queued_bytes_ == 0 || queued_bytes_ + bytes <= max_queued_bytes_; });
  try {
    queue_.push_back(Queued{std::move(batch), {}});
  } catch (...) {
    lost_ += batch.records();
    return;
  }
  queued_bytes_ += bytes;
  changed_.notify_all();
}

void RawRecordSink::run(const std::function<void(const Emit&)>& job) noexcept {
  try {
    job([this](const raw::RecordBatch& batch) { append(batch); });
  } catch (...) {
    ++lost_;
  }
}

void RawRecordSink::write_job(std::function<void(const Emit&)> job) noexcept {
  if (!writer_ || fd_.load() < 0) return run(job);
  std::unique_lock lock(mutex_);
  try {
    queue_.push_back(Queued{{}, std::move(job)});
  } catch (...) {
    ++lost_;
    return;
  }
  changed_.notify_all();
}

void RawRecordSink::drain() noexcept {
  if (!writer_) return;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.empty(); });
}

void RawRecordSink::write(const raw::RecordBatch& batch) noexcept {
  if (batch.bytes().empty()) return;
  if (!writer_ || fd_.load() < 0) return append(batch);
  try {
    write(raw::RecordBatch(batch));
  } catch (...) {
    lost_ += batch.records();
  }
}

void RawRecordSink::write_note(const std::string& message) noexcept {
  try {
    raw::RecordBatch b;
    b.add_note(message);
    write(b);
  } catch (...) {
    ++lost_;
  }
}

bool RawRecordSink::begin_finish() noexcept {
  bool expected = false;
  return finished_.compare_exchange_strong(expected, true);
}

void RawRecordSink::close() noexcept {
  if (std::thread* writer = writer_.exchange(nullptr)) {  // what is queued goes out first
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    writer->join();
    delete writer;
  }
  const int fd = fd_.exchange(-1);
  if (fd >= 0) ::close(fd);
}

}  // namespace vtools::vtrace::injection
