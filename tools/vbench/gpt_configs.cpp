#include "tools/vbench/gpt_configs.hpp"

#include <unistd.h>

#include <cstdio>

#include "libcommon/error.hpp"

namespace vtools::vbench {

const std::vector<GptConfig>& builtin_configs() {
  // name, n_layer, n_head, n_embd, vocab, block (DESIGN.md; GPT-2 sizes from the GPT-2 paper / HF configs)
  static const std::vector<GptConfig> configs = {
      {"gpt_nano", 3, 3, 48, 50257, 128, true},
      {"gpt_micro", 4, 4, 128, 50257, 256, true},
      {"gpt_mini", 6, 6, 192, 50257, 256, true},
      {"gpt_tile_small", 4, 4, 64, 50257, 128, true},
      {"gpt_tile_medium", 6, 4, 128, 50257, 256, true},
      {"gpt_tile_large", 8, 8, 256, 50257, 512, true},
      {"gpt2", 12, 12, 768, 50257, 1024, true},
      {"gpt2-medium", 24, 16, 1024, 50257, 1024, true},
      {"gpt2-large", 36, 20, 1280, 50257, 1024, true},
      {"gpt2-xl", 48, 25, 1600, 50257, 1024, true},
  };
  return configs;
}

GptConfig find_config(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& c : builtin_configs()) {
    if (c.name == name) return c;
    names.push_back(c.name);
  }
  throw Error(ExitCode::kUsage, with_suggestion("unknown config '" + std::string(name) + "'", name, names));
}

std::vector<GptConfig> parse_config_list(std::string_view list) {
  if (list == "all") return builtin_configs();
  std::vector<GptConfig> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view name = list.substr(start, comma - start);
    if (name.empty()) throw Error(ExitCode::kUsage, "empty config name in '" + std::string(list) + "'");
    GptConfig config = find_config(name);
    for (const auto& c : out)  // as -B and -T: a value listed twice is a usage error, not run twice or dropped
      if (c.name == config.name) throw Error(ExitCode::kUsage, "--config lists " + c.name + " twice");
    out.push_back(config);
    start = comma + 1;
  }
  return out;
}

void validate_config(const GptConfig& c) {
  auto bad = [&](const std::string& what) {
    throw Error(ExitCode::kUsage, "config '" + c.name + "': " + what);
  };
  if (c.n_layer <= 0 || c.n_head <= 0 || c.n_embd <= 0 || c.vocab_size <= 0 || c.block_size <= 0)
    bad("n_layer, n_head, n_embd, vocab and block must all be positive");
  if (c.n_embd % c.n_head != 0)
    bad("n_embd " + std::to_string(c.n_embd) + " is not a multiple of n_head " + std::to_string(c.n_head));
}

ParameterCount count_parameters(const GptConfig& c) {
  const std::uint64_t C = static_cast<std::uint64_t>(c.n_embd), V = static_cast<std::uint64_t>(c.vocab_size);
  const std::uint64_t L = static_cast<std::uint64_t>(c.n_layer), P = static_cast<std::uint64_t>(c.block_size);
  ParameterCount n;
  n.total = V * C + P * C + L * (12 * C * C + 13 * C) + 2 * C + (c.tied_head ? 0 : V * C);
  n.matmul = L * 12 * C * C + V * C;
  return n;
}

void check_model_fits(const GptConfig& c, long double memory_bytes) {
  if (memory_bytes < 0) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return;  // cannot tell: let the allocation decide
    memory_bytes = static_cast<long double>(pages) * static_cast<long double>(page);
  }
  // In long double: the sizes of an absurd custom config overflow 64-bit integers.
  const long double C = c.n_embd, V = c.vocab_size, L = c.n_layer, P = c.block_size;
  const long double params = V * C + P * C + L * (12 * C * C + 13 * C) + 2 * C + (c.tied_head ? 0 : V * C);
  const long double bytes = 4 * params;
  if (bytes <= memory_bytes) return;
  char text[160];
  std::snprintf(text, sizeof text, "%.3Lg parameters, %.3Lg GB in fp32, more than this machine's %.3Lg GB of memory",
                params, bytes / 1e9, memory_bytes / 1e9);
  throw Error(ExitCode::kUsage, "config '" + c.name + "' has " + text);
}

}  // namespace vtools::vbench
