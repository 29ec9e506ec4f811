#include "tools/vbench/safetensors_reader.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"

namespace vtools::vbench {

namespace {

[[noreturn]] void fail(std::string_view name, const std::string& what) {
  throw Error(ExitCode::kDataError, what, SourceLocation{std::string(name), 0, 0});
}

std::uint64_t read_u64_le(const char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

float half_to_float(std::uint16_t h) {
  const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  return sign ? -v : v;
}

}  // namespace

int safetensors_dtype_bytes(std::string_view dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" || dtype == "F8_E5M2") return 1;
  return 0;
}

SafetensorsFile read_safetensors(std::string_view bytes, std::string_view name) {
  if (bytes.size() < 8)
    fail(name, "truncated safetensors file: " + std::to_string(bytes.size()) + " bytes, the header length needs 8");
  const std::uint64_t header_len = read_u64_le(bytes.data());
  if (header_len > kMaxSafetensorsHeaderBytes)
    fail(name, "safetensors header of " + std::to_string(header_len) + " bytes is over the limit of " +
                   std::to_string(kMaxSafetensorsHeaderBytes));
  if (header_len > bytes.size() - 8)
    fail(name, "safetensors header of " + std::to_string(header_len) + " bytes runs past the end of the file (" +
                   std::to_string(bytes.size()) + " bytes)");
  const std::string header_name = std::string(name) + " (header)";
  const OrderedJson header = parse_json(bytes.substr(8, header_len), header_name);
  if (!header.is_object()) fail(name, "safetensors header is not a JSON object");
  SafetensorsFile file;
  file.data = bytes.substr(8 + header_len);
  for (const auto& item : header.items()) {
    const std::string& key = item.key();  // not a structured binding: clang 14 cannot capture those in lambdas
    const OrderedJson& value = item.value();
    if (key == "__metadata__") {
      if (!value.is_object()) fail(name, "safetensors __metadata__ is not an object");
      for (const auto& [mk, mv] : value.items())
        file.metadata[mk] = mv.is_string() ? mv.get<std::string>() : mv.dump();
      continue;
    }
    auto bad = [&](const std::string& what) { fail(name, "tensor '" + key + "': " + what); };
    if (!value.is_object()) bad("entry is not an object");
    SafetensorsTensor t;
    if (!value.contains("dtype") || !value["dtype"].is_string()) bad("missing string 'dtype'");
    t.dtype = value["dtype"].get<std::string>();
    const int elem = safetensors_dtype_bytes(t.dtype);
    if (elem == 0) bad("unknown dtype '" + t.dtype + "'");
    if (!value.contains("shape") || !value["shape"].is_array()) bad("missing array 'shape'");
    std::uint64_t count = 1;
    for (const auto& d : value["shape"]) {
      if (!d.is_number_unsigned()) bad("shape " + value["shape"].dump() + " holds a non-negative integer only");
      const std::uint64_t dim = d.get<std::uint64_t>();
      if (dim != 0 && count > (std::uint64_t{1} << 62) / dim) bad("shape " + value["shape"].dump() + " is too large");
      count *= dim;
      t.shape.push_back(static_cast<std::int64_t>(dim));
    }
    if (!value.contains("data_offsets")) bad("missing 'data_offsets' [begin, end]");
    const auto& off = value["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
      std::string text = off.dump();  // cut: the header may hold anything
      bad("data_offsets " + (text.size() > 60 ? text.substr(0, 57) + "..." : text) +
          " is not [begin, end] of two unsigned 64-bit integers");
    }
    t.begin = off[0].get<std::uint64_t>();
    t.end = off[1].get<std::uint64_t>();
    if (t.begin > t.end || t.end > file.data.size())
      bad("data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
          "] out of range of the data buffer (" + std::to_string(file.data.size()) + " bytes)");
    if (count > (std::uint64_t{1} << 62) / 8 || t.end - t.begin != count * static_cast<std::uint64_t>(elem))
      bad("shape " + value["shape"].dump() + " of " + t.dtype + " needs " +
          std::to_string(count * static_cast<std::uint64_t>(elem)) + " bytes, data_offsets give " +
          std::to_string(t.end - t.begin));
    file.tensors.emplace(key, std::move(t));
  }
  return file;
}

std::vector<float> tensor_as_float(const SafetensorsFile& file, const std::string& tensor_name, std::string_view name) {
  const SafetensorsTensor& t = file.tensors.at(tensor_name);
  const char* p = file.data.data() + t.begin;
  const std::size_t bytes = static_cast<std::size_t>(t.end - t.begin);
  std::vector<float> out;
  if (t.dtype == "F32") {
    out.resize(bytes / 4);
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::uint32_t u = 0;
      for (int k = 3; k >= 0; --k) u = (u << 8) | static_cast<unsigned char>(p[4 * i + static_cast<std::size_t>(k)]);
      out[i] = std::bit_cast<float>(u);
    }
  } else if (t.dtype == "BF16" || t.dtype == "F16") {
    out.resize(bytes / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::uint16_t h = static_cast<std::uint16_t>(static_cast<unsigned char>(p[2 * i]) |
                                                         (static_cast<unsigned char>(p[2 * i + 1]) << 8));
      out[i] = t.dtype == "BF16" ? std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16) : half_to_float(h);
    }
  } else {
    fail(name, "tensor '" + tensor_name + "' has dtype " + t.dtype + "; expected F32, BF16 or F16");
  }
  return out;
}

}  // namespace vtools::vbench
