// The text of a source line, read at trace time from the file a line table names, so the trace shows the line a
// finding points at without the source tree (vrender reads no file the document names). Files are read once each;
// a missing, unreadable, non-regular or oversized file gives no text.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vtools::vtrace {

class SourceText {
 public:
  /// Line `line` (1-based) of `path`, without its line end and cut to 300 bytes; nullopt when it cannot be read.
  std::optional<std::string> line(const std::string& path, std::uint32_t line);

  /// Files larger than this are not read (a generated file, or not a source file at all).
  static constexpr std::uint64_t kMaxFileBytes = 16ull << 20;

 private:
  std::map<std::string, std::optional<std::vector<std::string>>> files_;
};

}  // namespace vtools::vtrace
