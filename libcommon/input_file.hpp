// Reading whole inputs: a file path or "-" for stdin, with a size limit so a huge input is refused, not an OOM kill.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libcommon/decompress.hpp"
#include "libcommon/text_stream.hpp"

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

/// Throws read_input's Error(kDataError) "<display_name>: input is larger than the <limit> limit (raise it with ...)".
[[noreturn]] void refuse_large_input(const std::string& display_name, std::uint64_t limit);

/// Name used in messages: "<stdin>" for "-", else the path as given.
std::string input_display_name(const std::string& path);

/// An input's text for a reader that goes through it once, front to back (vtrace's trace reader). A regular file that
/// is not compressed is mapped, not copied: its pages are read as the reader reaches them and dropped once it has
/// passed them (read again from the file should a message need them), so a 1 GB trace never sits in memory whole.
/// Standard input is read_input's text, held in memory. Compressed text (gzip, zstd; a mapped file, or standard input
/// held as its compressed bytes) is decompressed as it is read: open() gives a pass over its text in pieces, for a
/// streamed reader (vtrace's trace reader), so its whole text is never in memory; text() decompresses it whole,
/// for the others. A mapped file that another
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

  /// The whole text (a compressed input's is decompressed into memory at the first call, then kept).
  [[nodiscard]] std::string_view text() const;
  /// Whether the text is compressed: read it through open() to keep it out of memory.
  [[nodiscard]] bool compressed() const { return compression_ != Compression::kNone; }
  /// A new pass over the text, from its start (a compressed input's is decompressed as it is read; its reads throw
  /// read_input's errors for corrupt or cut-short data and for text over the limit).
  [[nodiscard]] std::unique_ptr<TextStream> open() const;
  /// The first `bytes` bytes of the text (all of it where shorter).
  [[nodiscard]] std::string head(std::size_t bytes) const;
  /// The reader is past `offset`: the mapped pages wholly before it are dropped (nothing for held or compressed
  /// text). An offset
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

  [[nodiscard]] std::string_view bytes() const { return map_ ? std::string_view(map_, size_) : held_; }

  std::string held_;                 ///< the text, or a compressed input's bytes, when not mapped
  const char* map_ = nullptr;        ///< the mapping (of the text or the compressed bytes), or null
  std::size_t size_ = 0;
  mutable std::size_t dropped_ = 0;  ///< bytes at the start of the mapping dropped so far
  int fd_ = -1;                      ///< the mapped file, kept open to tell whether it changed
  std::string name_;                 ///< its name in messages
  std::int64_t mtime_ns_ = 0;        ///< its modification time when mapped
  int guard_ = -1;                   ///< its truncation_guard slot
  Compression compression_ = Compression::kNone;
  std::uint64_t limit_ = 0;  ///< the most text a compressed input may hold
  mutable std::optional<std::string> decompressed_;  ///< text()'s copy of a compressed input's text
};

/// read_input for a reader that passes through the text once (InputText), with read_input's limits and errors.
InputText read_input_text(const std::string& path, std::uint64_t default_limit = kDefaultMaxInputBytes);

}  // namespace vtools
