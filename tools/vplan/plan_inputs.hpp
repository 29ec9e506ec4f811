// Turns what the user names (a file, '-', a Triton cache / dump directory) into kernel texts with Triton's own
// shared-memory total when a metadata JSON sits beside them. The only vplan code besides main that opens files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vtools::vplan {

struct KernelInput {
  std::string name;  ///< display name for messages ("<stdin>", the path)
  std::string stem;  ///< file name without extension ("matmul_ws_sm90"), "stdin" for '-'
  std::string text;
  std::optional<std::int64_t> triton_shared;  ///< from <stem>.json ("shared") or metadata.json[<stem>].shared
};

/// `path` = '-', a file, or a directory (every *.ttgir below it, sorted). Throws Error(kNoInput) when missing or
/// when a directory holds no .ttgir file.
std::vector<KernelInput> collect_inputs(const std::string& path);

}  // namespace vtools::vplan
