// Frames raw records (raw_records.hpp) into bytes and appends them to a file descriptor. Used inside the traced
// process by the injection library, so it never throws and never allocates after construction beyond its buffer;
// write failures are counted, not raised.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tools/vtrace/raw_records.hpp"

namespace vtools::vtrace::raw {

/// Builds a batch of framed records in memory; `bytes()` is what goes to the file.
class RecordBatch {
 public:
  /// The file header (magic); only the first batch of a file starts with it.
  void add_magic();
  template <class T>
  void add(Tag tag, const T& record, std::string_view tail = {}) {
    add_bytes(tag, &record, sizeof record, tail);
  }
  void add_note(std::string_view message) { add_bytes(Tag::kNote, nullptr, 0, message); }
  /// A record whose payload is just `bytes` (notes, launch parameters).
  void add_bytes_record(Tag tag, std::string_view bytes) { add_bytes(tag, nullptr, 0, bytes); }
  [[nodiscard]] const std::string& bytes() const { return bytes_; }
  [[nodiscard]] std::size_t records() const { return records_; }
  void clear() {
    bytes_.clear();
    records_ = 0;
  }

 private:
  void add_bytes(Tag tag, const void* record, std::size_t size, std::string_view tail);
  std::string bytes_;
  std::size_t records_ = 0;
};

/// Appends `bytes` to `fd` (retrying short writes and EINTR). Returns false on any other failure.
bool append_to_fd(int fd, std::string_view bytes) noexcept;

}  // namespace vtools::vtrace::raw
