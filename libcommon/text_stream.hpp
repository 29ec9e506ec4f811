// A text read front to back in pieces (TextStream), so that a reader goes through a text it never holds whole:
// a compressed input's text as it is decompressed (decompress.hpp), or a string in memory cut at chosen places.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>

namespace vtools {

/// One pass over a text, front to back.
class TextStream {
 public:
  virtual ~TextStream() = default;
  /// Writes the next bytes of the text to `out`, at most `size` (> 0); returns how many, 0 only at the end of the
  /// text. Throws Error for data it cannot read (corrupt or cut-short compressed data, a text over its size limit).
  virtual std::size_t read(char* out, std::size_t size) = 0;
};

/// Opens a new pass over one text, from its start: a reader that needs the text again (to word an error) reads it
/// again rather than keep it.
using OpenText = std::function<std::unique_ptr<TextStream>()>;

/// A text in memory as a TextStream, in pieces of at most `piece` bytes (tests cut it at every place this way).
class StringTextStream final : public TextStream {
 public:
  explicit StringTextStream(std::string_view text, std::size_t piece = std::string_view::npos)
      : text_(text), piece_(piece) {}
  std::size_t read(char* out, std::size_t size) override {
    const std::size_t n = std::min({size, piece_, text_.size()});
    std::memcpy(out, text_.data(), n);
    text_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view text_;
  std::size_t piece_;
};

}  // namespace vtools
