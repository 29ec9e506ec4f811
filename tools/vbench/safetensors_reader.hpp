// Reads the safetensors format (https://huggingface.co/docs/safetensors, "Format"): an 8-byte little-endian header
// length N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {str: str}}, then
// the data buffer; offsets are relative to the buffer's start. Every offset, size and dtype is checked here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace vtools::vbench {

/// Largest header accepted (the reference implementation's limit is 100 MB too).
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

struct SafetensorsTensor {
  std::string dtype;                  ///< "F32", "BF16", "F16", ... as written
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;   ///< byte offsets into the data buffer
};

struct SafetensorsFile {
  std::map<std::string, SafetensorsTensor> tensors;
  std::map<std::string, std::string> metadata;  ///< "__metadata__"
  std::string_view data;                         ///< the data buffer; points into the bytes given to the reader
};

/// Parses `bytes` (which must outlive the result). Throws Error(kDataError) at `name` naming the tensor for a
/// truncated file, a header over its size or kMaxSafetensorsHeaderBytes, bad JSON, an unknown dtype, a shape that
/// does not match its byte range, or offsets outside the data.
SafetensorsFile read_safetensors(std::string_view bytes, std::string_view name);

/// Bytes per element of a safetensors dtype; 0 for names this reader does not know.
int safetensors_dtype_bytes(std::string_view dtype);

/// Tensor `tensor_name` converted to float (F32 as is; BF16 and F16 widened exactly). Error(kDataError) for other
/// dtypes, naming the tensor.
std::vector<float> tensor_as_float(const SafetensorsFile& file, const std::string& tensor_name, std::string_view name);

}  // namespace vtools::vbench
