// libFuzzer target: read_safetensors (header length, JSON header, offsets) and, when it parses, the float
// conversion of every tensor. Bytes come from memory; only vtools::Error may escape the reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libcommon/error.hpp"
#include "tools/vbench/safetensors_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const auto file = vtools::vbench::read_safetensors(bytes, "fuzz");
    for (const auto& [name, tensor] : file.tensors) {
      if (tensor.end - tensor.begin > (1u << 20)) continue;
      try {
        (void)vtools::vbench::tensor_as_float(file, name, "fuzz");
      } catch (const vtools::Error&) {
      }
    }
  } catch (const vtools::Error&) {
  }
  return 0;
}
