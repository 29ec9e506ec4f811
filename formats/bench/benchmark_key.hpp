// A benchmark's key in a vtools.bench document and when two keys name one benchmark: a sweep's "gpt2/B:4/T:64"
// (Google Benchmark's named arguments) and a single run's "gpt2" at B=4 T=64 are the same. vbench compare pairs
// benchmarks by this rule and vrender's trend joins runs by it, so both tools line up the same benchmarks.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vtools::vbench {

/// "/B:4/T:64": what a benchmark's key in a run of several shapes has after the config's name.
std::string shape_suffix(int batch, int seq);
/// "gpt2/B:4/T:64": a benchmark's key in a run of several shapes.
std::string shape_key(std::string_view config, int batch, int seq);

/// A benchmark as pairing sees it: its key and the shape it ran at (its batch_size and seq_len, else the
/// metadata's; 0 where neither names one).
struct BenchmarkShape {
  std::string name;
  int batch_size = 0, seq_len = 0;
};

/// Whether `keyed` is `plain`'s key in a sweep: "gpt2/B:4/T:64" and "gpt2", both run at B=4 T=64.
bool is_sweep_key_of(const BenchmarkShape& keyed, const BenchmarkShape& plain);

/// The index in `among` of the benchmark that is `x`: the first of the same name; failing that, the first that is
/// x's sweep key or whose sweep key x is, so a single run pairs with a sweep. nullopt when none is.
std::optional<std::size_t> paired_benchmark(const std::vector<BenchmarkShape>& among, const BenchmarkShape& x);

}  // namespace vtools::vbench
