// formats/bench benchmark_key: sweep keys, and which benchmarks vbench compare and vrender's trend take as one.
#include "formats/bench/benchmark_key.hpp"

#include <doctest/doctest.h>

using namespace vtools::vbench;

TEST_CASE("benchmark_key: a sweep's key is the config's name and its shape") {
  CHECK(shape_suffix(4, 64) == "/B:4/T:64");
  CHECK(shape_key("gpt2", 1, 1024) == "gpt2/B:1/T:1024");
}

TEST_CASE("benchmark_key: a plain name pairs with the sweep's key of its own shape only, either way round") {
  const BenchmarkShape plain{"gpt_nano", 1, 16}, keyed{"gpt_nano/B:1/T:16", 1, 16};
  CHECK(is_sweep_key_of(keyed, plain));
  CHECK_FALSE(is_sweep_key_of(plain, keyed));
  CHECK_FALSE(is_sweep_key_of({"gpt_nano/B:1/T:16", 4, 16}, plain));   // the key says B=1, the entry ran B=4
  CHECK_FALSE(is_sweep_key_of({"gpt_nano/B:4/T:16", 4, 16}, plain));   // another shape of the config
  CHECK_FALSE(is_sweep_key_of({"gpt_micro/B:1/T:16", 1, 16}, plain));  // another config
  const std::vector<BenchmarkShape> sweep{{"gpt_nano/B:4/T:16", 4, 16}, keyed};
  CHECK(paired_benchmark(sweep, plain) == 1);
  CHECK(paired_benchmark({plain}, keyed) == 0);
  CHECK(paired_benchmark(sweep, {"gpt_nano", 2, 16}) == std::nullopt);
}

TEST_CASE("benchmark_key: the same name pairs first, whatever the shape") {
  // vbench compare pairs "gpt2" at B=1 with "gpt2" at B=4 (and says the runs differ in B) before any sweep key.
  const std::vector<BenchmarkShape> among{{"gpt2/B:1/T:64", 1, 64}, {"gpt2", 4, 64}};
  CHECK(paired_benchmark(among, {"gpt2", 1, 64}) == 1);
}
