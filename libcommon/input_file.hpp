// Reading whole inputs: a file path or "-" for stdin, with a size limit so a huge input is refused, not an OOM kill.
#pragma once

#include <cstdint>
#include <string>
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

}  // namespace vtools
