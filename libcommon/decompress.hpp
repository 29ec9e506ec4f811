// gzip and zstd data as their text, decompressed piece by piece (a TextStream), never held whole: a 1 GB trace
// compressed to 100 MB is read in the memory of its compressed bytes and a buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "libcommon/text_stream.hpp"

namespace vtools {

enum class Compression { kNone, kGzip, kZstd };

/// What `data` is, by its leading magic bytes (gzip 1f 8b, zstd 28 b5 2f fd), whatever its name.
Compression compression_of(std::string_view data);

/// The text of `data` (gzip: one or more members, as `cat a.gz b.gz` gives; zstd: one or more frames), which must
/// outlive the stream. Its reads throw Error(kDataError) at `display_name`: "invalid gzip data: <zlib's reason>",
/// "invalid zstd data: <zstd's reason>", "invalid ... data: it ends early (a cut file?)", or read_input's "input is
/// larger than the ... limit" once the text passes `limit_bytes`.
std::unique_ptr<TextStream> decompress_stream(std::string_view data, Compression compression,
                                              std::string display_name, std::uint64_t limit_bytes);

}  // namespace vtools
