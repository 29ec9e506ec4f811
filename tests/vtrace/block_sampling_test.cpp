// block_sampling: --blocks specs, which blocks they keep, and how many of a grid.
#include <doctest/doctest.h>

#include <string>

#include "libcommon/error.hpp"
#include "tools/vtrace/access/block_sampling.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;

namespace {

std::string spec_error(const std::string& spec) {
  try {
    BlockSampling::parse(spec);
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kUsage);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("block_sampling: lists, ranges, every:N and all") {
  BlockSampling s = BlockSampling::parse("10-12,0,5");
  CHECK(s.keeps(0));
  CHECK_FALSE(s.keeps(1));
  CHECK(s.keeps(5));
  CHECK(s.keeps(11));
  CHECK(s.keeps(12));
  CHECK_FALSE(s.keeps(13));
  CHECK(s.str() == "0,5,10-12");
  BlockSampling every = BlockSampling::parse("every:8");
  CHECK(every.keeps(0));
  CHECK(every.keeps(16));
  CHECK_FALSE(every.keeps(17));
  CHECK(BlockSampling::parse("all").keeps(12345));
  CHECK(BlockSampling().str() == "all");
  CHECK(linear_block_index({1, 2, 3}, {4, 5, 6}) == 1 + 2 * 4 + 3 * 20);
  BlockSampling inner = BlockSampling::parse("0-4885,8");  // a range inside an earlier one (found by the fuzzer)
  CHECK(inner.keeps(1000));
  CHECK(inner.str() == "0-4885");
  CHECK(BlockSampling::parse("3-8,0-5,5").str() == "0-8");
  CHECK(BlockSampling::parse("2,1,0").str() == "0,1,2");  // touching ranges stay apart
}

TEST_CASE("block_sampling: bad specs name the column and what was expected") {
  CHECK(spec_error("") == "--blocks:1:1: expected a block index, a range 'A-B', 'every:N' or 'all', got end of spec");
  CHECK(spec_error("0,") == "--blocks:1:3: expected a block index or range after ',', got end of spec");
  CHECK(spec_error("3-x") == "--blocks:1:3: expected the end of the range after '-', got 'x'");
  CHECK(spec_error("5-2") == "--blocks:1:4: expected a range end not below its start 5, got end of spec");
  CHECK(spec_error("every:0") == "--blocks:1:7: the step of 'every:' must be at least 1");
  CHECK(spec_error("every:4x") == "--blocks:1:8: expected end of spec after 'every:N', got 'x'");
  CHECK(spec_error("1;2") == "--blocks:1:2: expected ',' or end of spec, got ';'");
}

TEST_CASE("block_sampling: linear block index of damaged dims wraps, defined (a fuzzed raw file found the overflow)") {
  CHECK(linear_block_index({3, 2, 1}, {10, 4, 1}) == 3 + 2 * 10 + 1 * 40);
  const std::int64_t big = 29087807391124390;
  CHECK(linear_block_index({0, 1715104876, 0}, {big, 1, 1}) ==
        static_cast<std::uint64_t>(1715104876) * static_cast<std::uint64_t>(big));
}

TEST_CASE("block_sampling: kept counts the blocks of a grid it keeps") {
  CHECK(BlockSampling().kept(100) == 100);
  CHECK(BlockSampling::parse("every:8").kept(100) == 13);  // 0, 8, ..., 96
  CHECK(BlockSampling::parse("every:8").kept(0) == 0);
  CHECK(BlockSampling::parse("0,5,10-12").kept(11) == 3);  // 0, 5, 10
  CHECK(BlockSampling::parse("0,5,10-12").kept(1000) == 5);
  CHECK(BlockSampling::parse("0-5,3-8").kept(1000) == 9);  // overlapping ranges count once
  CHECK(BlockSampling::parse("50-60").kept(10) == 0);
}
