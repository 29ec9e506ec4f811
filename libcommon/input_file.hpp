// Reading whole inputs: a file path or "-" for stdin, with a size limit so a huge input is refused, not an OOM kill.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vtools {

/// Default cap on one input: 512 MiB. Overridden by the environment variable VTOOLS_MAX_INPUT_BYTES.
constexpr std::uint64_t kDefaultMaxInputBytes = 512ull << 20;

/// Default cap for a reader that holds one record at a time (vtrace's trace reader: its model takes about twice the
/// text, a whole tree ~5x): 4 GiB, above the largest trace `vtrace run` writes.
constexpr std::uint64_t kStreamedMaxInputBytes = 4ull << 30;

/// The cap in force: VTOOLS_MAX_INPUT_BYTES when set (a positive integer of bytes), else `default_bytes`. Throws
/// Error(kUsage) naming the variable when it is set to anything else ("abc", "1e3", "-1", "0").
std::uint64_t max_input_bytes(std::uint64_t default_bytes = kDefaultMaxInputBytes);

/// Throws Error(kUsage) when "-" (standard input) is among `paths` more than once: it can be read only once.
void check_stdin_once(const std::vector<std::string>& paths);

/// What an input holds: text (documents, TTGIR, logs: gzip- or zstd-compressed text is decompressed, found by its
/// magic bytes, so `t.json.zst` reads like `t.json`) or binary (weights: read as they are).
enum class InputContent { kText, kBinary };

/// Reads all of `path` ("-" = stdin). Throws Error: kNoInput when missing/unreadable (or a directory),
/// kDataError when over max_input_bytes(default_limit) (the message names the limit and the variable that raises it;
/// for compressed text the limit applies to the text) or when compressed data is corrupt.
std::string read_input(const std::string& path, std::uint64_t default_limit = kDefaultMaxInputBytes,
                       InputContent content = InputContent::kText);

/// Throws read_input's Error(kDataError) "<name>: input is larger than the ... limit" when `size` bytes are over
/// max_input_bytes(default_limit): for a caller that read with a larger limit before it knew what the input holds
/// (vrender reads traces with kStreamedMaxInputBytes, other documents with the default).
void check_input_size(const std::string& display_name, std::uint64_t size,
                      std::uint64_t default_limit = kDefaultMaxInputBytes);

/// Name used in messages: "<stdin>" for "-", else the path as given.
std::string input_display_name(const std::string& path);

/// An input's text for a reader that goes through it once, front to back (vtrace's trace reader). A regular file that
/// is not compressed is mapped, not copied: its pages are read as the reader reaches them and dropped once it has
/// passed them (read again from the file should a message need them), so a 1 GB trace never sits in memory whole.
/// Anything else (standard input, gzip, zstd) is read_input's text, held in memory. A mapped file that another
/// process cuts short while it is read does not kill the reader with SIGBUS (truncation_guard.hpp): read it through
/// read_checked, which then throws "file changed while being read".
class InputText {
 public:
  explicit InputText(std::string text) : held_(std::move(text)) {}
  InputText(const InputText&) = delete;
  InputText& operator=(const InputText&) = delete;
  InputText(InputText&& other) noexcept;
  InputText& operator=(InputText&&) = delete;
  ~InputText();

  [[nodiscard]] std::string_view text() const { return map_ ? std::string_view(map_, size_) : held_; }
  /// The reader is past `offset`: the mapped pages wholly before it are dropped (nothing for held text). An offset
  /// below the last one starts a new pass through the text.
  void passed(std::size_t offset) const;

  /// Returns read(), which reads text(). When the mapped file changed meanwhile (cut short: its lost pages read as
  /// zeros; or now of another size or modification time), throws Error(kIoError) "<file>: file changed while being
  /// read" instead of what read returned or threw (a reader of zeros fails on them, or reads a shorter document).
  template <class Read>
  auto read_checked(Read read) const -> decltype(read()) {
    try {
      auto result = read();
      check_unchanged();
      return result;
    } catch (...) {
      check_unchanged();
      throw;
    }
  }

  /// Throws read_checked's Error when the mapped file changed since it was mapped; nothing for held text.
  void check_unchanged() const;

 private:
  friend InputText read_input_text(const std::string& path, std::uint64_t default_limit);
  InputText(const char* map, std::size_t size, int fd, std::string name, std::int64_t mtime_ns, int guard)
      : map_(map), size_(size), fd_(fd), name_(std::move(name)), mtime_ns_(mtime_ns), guard_(guard) {}

  std::string held_;
  const char* map_ = nullptr;        ///< the mapping, or null for held text
  std::size_t size_ = 0;
  mutable std::size_t dropped_ = 0;  ///< bytes at the start of the mapping dropped so far
  int fd_ = -1;                      ///< the mapped file, kept open to tell whether it changed
  std::string name_;                 ///< its name in messages
  std::int64_t mtime_ns_ = 0;        ///< its modification time when mapped
  int guard_ = -1;                   ///< its truncation_guard slot
};

/// read_input for a reader that passes through the text once (InputText), with read_input's limits and errors.
InputText read_input_text(const std::string& path, std::uint64_t default_limit = kDefaultMaxInputBytes);

}  // namespace vtools
