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

void RawRecordSink::write(const raw::RecordBatch& batch) noexcept {
  if (batch.bytes().empty()) return;
  const int fd = fd_.load();
  if (fd < 0 || !raw::append_to_fd(fd, batch.bytes())) lost_ += batch.records();
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
  const int fd = fd_.exchange(-1);
  if (fd >= 0) ::close(fd);
}

}  // namespace vtools::vtrace::injection
