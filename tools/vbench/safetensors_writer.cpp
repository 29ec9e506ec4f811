#include "tools/vbench/safetensors_writer.hpp"

#include <bit>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "tools/vbench/gpt2_tensors.hpp"

namespace vtools::vbench {

namespace {
std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
}  // namespace

void write_safetensors(const GptWeights& weights, std::ostream& out, const std::map<std::string, std::string>& extra) {
  GptWeights& w = const_cast<GptWeights&>(weights);  // the slot table only hands out pointers; nothing is modified
  const auto slots = gpt2_tensor_slots(w);
  const GptConfig& c = weights.config;
  OrderedJson header = OrderedJson::object();
  OrderedJson meta = {{"format", "pt"},
                      {"config", c.name},
                      {"n_layer", std::to_string(c.n_layer)},
                      {"n_head", std::to_string(c.n_head)},
                      {"n_embd", std::to_string(c.n_embd)},
                      {"vocab_size", std::to_string(c.vocab_size)},
                      {"block_size", std::to_string(c.block_size)},
                      {"tied_head", c.tied_head ? "true" : "false"}};
  for (const auto& [k, v] : extra) meta[k] = v;
  header["__metadata__"] = meta;
  std::uint64_t offset = 0;
  for (const auto& s : slots) {
    const std::uint64_t bytes = s.data->size() * 4;
    header[s.name] = {{"dtype", "F32"}, {"shape", s.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.resize((text.size() + 7) / 8 * 8, ' ');
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  out.write(len, 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  std::string buf;
  for (const auto& s : slots) {
    buf.resize(s.data->size() * 4);
    for (std::size_t i = 0; i < s.data->size(); ++i) {
      const std::uint32_t u = std::bit_cast<std::uint32_t>((*s.data)[i]);
      for (int k = 0; k < 4; ++k) buf[4 * i + static_cast<std::size_t>(k)] = static_cast<char>((u >> (8 * k)) & 0xff);
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  }
}

GptConfig config_from_metadata(const SafetensorsFile& file, std::string_view name, bool* found) {
  GptConfig c;
  *found = false;
  const auto& m = file.metadata;
  for (const char* key : {"n_layer", "n_head", "n_embd", "vocab_size", "block_size"})
    if (!m.count(key)) return c;
  auto number = [&](const char* key) {
    const std::string& v = m.at(key);
    try {
      std::size_t used = 0;
      const int n = std::stoi(v, &used);
      if (used == v.size() && n > 0) return n;
    } catch (const std::exception&) {
    }
    throw Error(ExitCode::kDataError, "__metadata__ '" + std::string(key) + "' is '" + v + "', not a positive integer",
                SourceLocation{std::string(name), 0, 0});
  };
  c.name = m.count("config") ? m.at("config") : "custom";
  c.n_layer = number("n_layer");
  c.n_head = number("n_head");
  c.n_embd = number("n_embd");
  c.vocab_size = number("vocab_size");
  c.block_size = number("block_size");
  c.tied_head = !m.count("tied_head") || m.at("tied_head") != "false";
  *found = true;
  return c;
}

GptWeights load_weights(const SafetensorsFile& file, const GptConfig& config, std::string_view name) {
  GptWeights w;
  w.config = config;
  allocate_weights(w);
  for (auto& slot : gpt2_tensor_slots(w)) {
    std::string key = slot.name;
    if (!file.tensors.count(key) && file.tensors.count("transformer." + key)) key = "transformer." + key;
    if (!file.tensors.count(key))
      throw Error(ExitCode::kDataError, "missing tensor '" + slot.name + "' (config '" + config.name + "' needs " +
                                            shape_text(slot.shape) + ")", SourceLocation{std::string(name), 0, 0});
    const SafetensorsTensor& t = file.tensors.at(key);
    if (t.shape != slot.shape)
      throw Error(ExitCode::kDataError, "tensor '" + key + "' has shape " + shape_text(t.shape) + "; config '" +
                                            config.name + "' needs " + shape_text(slot.shape),
                  SourceLocation{std::string(name), 0, 0});
    *slot.data = tensor_as_float(file, key, name);
  }
  return w;
}

}  // namespace vtools::vbench
