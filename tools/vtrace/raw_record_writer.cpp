#include "tools/vtrace/raw_record_writer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vtools::vtrace::raw {

void RecordBatch::add_magic() { bytes_.append(kMagic, sizeof kMagic); }

void RecordBatch::add_bytes(Tag tag, const void* record, std::size_t size, std::string_view tail) {
  FrameHeader h{static_cast<std::uint32_t>(tag), static_cast<std::uint32_t>(size + tail.size())};
  bytes_.append(reinterpret_cast<const char*>(&h), sizeof h);
  if (size) bytes_.append(static_cast<const char*>(record), size);
  bytes_.append(tail.data(), tail.size());
  ++records_;
}

bool append_to_fd(int fd, std::string_view bytes) noexcept {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace vtools::vtrace::raw
