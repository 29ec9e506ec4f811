#include "tools/vbench/gpt_configs.hpp"

#include <doctest/doctest.h>

#include "libcommon/error.hpp"
#include "tools/vbench/forward_cost.hpp"

using namespace vtools;
using namespace vtools::vbench;

TEST_CASE("gpt_configs: gpt2 has GPT-2 small's published 124,439,808 parameters (tied head)") {
  CHECK(count_parameters(find_config("gpt2")).total == 124439808u);
  GptConfig untied = find_config("gpt2");
  untied.tied_head = false;
  CHECK(count_parameters(untied).total == 124439808u + 50257u * 768u);
}

TEST_CASE("gpt_configs: the seed table's shapes") {
  const GptConfig nano = find_config("gpt_nano");
  CHECK(nano.n_layer == 3);
  CHECK(nano.n_head == 3);
  CHECK(nano.n_embd == 48);
  CHECK(nano.block_size == 128);
  CHECK(find_config("gpt_tile_large").block_size == 512);
  CHECK(find_config("gpt2-xl").n_head == 25);
  CHECK(builtin_configs().size() == 10);
  for (const auto& c : builtin_configs()) CHECK_NOTHROW(validate_config(c));
}

TEST_CASE("gpt_configs: unknown names get a suggestion, lists keep their order, a name twice is a usage error") {
  try {
    find_config("gpt_nan");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "unknown config 'gpt_nan'; did you mean 'gpt_nano'?");
    CHECK(e.code() == ExitCode::kUsage);
  }
  const auto list = parse_config_list("gpt2,gpt_nano");
  REQUIRE(list.size() == 2);
  CHECK(list[0].name == "gpt2");
  CHECK(list[1].name == "gpt_nano");
  try {
    parse_config_list("gpt2,gpt_nano,gpt2");
    FAIL("no throw");
  } catch (const Error& e) {  // as -B and -T: not run twice, nor dropped without a word
    CHECK(std::string(e.what()) == "--config lists gpt2 twice");
    CHECK(e.code() == ExitCode::kUsage);
  }
  CHECK(parse_config_list("all").size() == 10);
  CHECK_THROWS_AS(parse_config_list("gpt2,"), Error);
}

TEST_CASE("gpt_configs: n_embd must be a multiple of n_head") {
  try {
    validate_config({"custom", 2, 5, 48, 100, 16, true});
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "config 'custom': n_embd 48 is not a multiple of n_head 5");
  }
}

TEST_CASE("forward_cost: FLOPs and bytes by the documented formulas, hand-computed for a tiny config") {
  // L=1, C=4, V=10, block 8, tied: total = V·C + 8·C + (12·16 + 13·4) + 2·4 = 40 + 32 + 244 + 8 = 324
  const GptConfig c{"tiny", 1, 2, 4, 10, 8, true};
  CHECK(count_parameters(c).total == 324u);
  CHECK(count_parameters(c).matmul == 12u * 16u + 40u);
  // B=2, T=3: 2·232·6 + 2·1·2·4·3·4 = 2784 + 192
  const ForwardCost f = forward_cost(c, 2, 3, DType::kFp32);
  CHECK(f.flops == doctest::Approx(2976.0));
  CHECK(f.bytes == doctest::Approx(324.0 * 4 + 6.0 * 10 * 4));
  CHECK(forward_cost(c, 2, 3, DType::kBf16).bytes == doctest::Approx(f.bytes / 2));
}

TEST_CASE("forward_cost: roofline floor takes the slower of compute and memory") {
  DeviceInfo d;
  CHECK(roofline_floor({1e9, 1e9}, d).floor_ms == 0.0);
  d.peak_flops = 1e12;
  d.peak_bandwidth_bytes_per_s = 1e11;
  Floor f = roofline_floor({1e9, 1e9}, d);  // compute 1 ms, memory 10 ms
  CHECK(f.floor_ms == doctest::Approx(10.0));
  CHECK(f.bound == "memory");
  f = roofline_floor({1e11, 1e9}, d);  // compute 100 ms
  CHECK(f.floor_ms == doctest::Approx(100.0));
  CHECK(f.bound == "compute");
  CHECK(parse_dtype("bf16") == DType::kBf16);
  CHECK_THROWS_WITH_AS(parse_dtype("fp16"), "unknown dtype 'fp16'", Error);
}

TEST_CASE("check_model_fits: a config whose fp32 weights exceed memory is refused with both sizes (issue 45, item 3)") {
  GptConfig huge{"custom", 100000, 1, 100000, 50257, 128, true};
  try {
    check_model_fits(huge, 24e9);
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kUsage);
    CHECK(std::string(e.what()) ==
          "config 'custom' has 1.2e+16 parameters, 4.8e+07 GB in fp32, more than this machine's 24 GB of memory");
  }
  GptConfig gpt2{"gpt2", 12, 12, 768, 50257, 1024, true};
  CHECK_NOTHROW(check_model_fits(gpt2, 24e9));  // 124 M parameters, 0.5 GB
  CHECK_THROWS(check_model_fits(gpt2, 0.4e9));
}
