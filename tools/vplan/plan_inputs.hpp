// Turns what the user names (a file, '-', a Triton cache / dump directory) into kernel texts with Triton's own
// shared-memory total when a metadata JSON sits beside them. The only vplan code besides main that opens files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/input_file.hpp"

namespace vtools::vplan {

struct KernelInput {
  std::string name;  ///< display name for messages ("<stdin>", the path)
  std::string stem;  ///< file name without extension ("matmul_ws_sm90"), "stdin" for '-'; where several files of a
                     ///< directory share one, their paths below it ("3f2a/matmul_ws_sm90")
  /// The input, read up to the streamed cap (kStreamedMaxInputBytes; a regular file is mapped, not copied): only a
  /// vtools.plan document, read a record at a time, may be that large; load_one holds other kinds to the default
  /// cap. Reset once read (the model holds its own copies).
  std::optional<InputText> text;
  std::optional<std::int64_t> triton_shared;  ///< from <stem>.json ("shared") or metadata.json[<stem>].shared
};

/// `path` = '-', a file, or a directory (every *.ttgir below it, sorted). Throws Error(kNoInput) when missing or
/// when a directory holds no .ttgir file.
std::vector<KernelInput> collect_inputs(const std::string& path);

/// Whether a directory scan takes `entry`: a regular file, or an entry whose type cannot be read (a symlink loop, no
/// permission), so that reading it reports why instead of the scan failing or skipping it. Dangling links are not.
bool is_file_or_unknown(const std::filesystem::directory_entry& entry);

}  // namespace vtools::vplan
