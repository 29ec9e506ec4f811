#include "formats/bench/benchmark_key.hpp"

namespace vtools::vbench {

std::string shape_suffix(int batch, int seq) { return "/B:" + std::to_string(batch) + "/T:" + std::to_string(seq); }

std::string shape_key(std::string_view config, int batch, int seq) {
  return std::string(config) + shape_suffix(batch, seq);
}

bool is_sweep_key_of(const BenchmarkShape& keyed, const BenchmarkShape& plain) {
  return keyed.name == shape_key(plain.name, plain.batch_size, plain.seq_len) &&
         keyed.batch_size == plain.batch_size && keyed.seq_len == plain.seq_len;
}

std::optional<std::size_t> paired_benchmark(const std::vector<BenchmarkShape>& among, const BenchmarkShape& x) {
  for (std::size_t i = 0; i < among.size(); ++i)
    if (among[i].name == x.name) return i;
  for (std::size_t i = 0; i < among.size(); ++i)
    if (is_sweep_key_of(among[i], x) || is_sweep_key_of(x, among[i])) return i;
  return std::nullopt;
}

}  // namespace vtools::vbench
