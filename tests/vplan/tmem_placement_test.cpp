#include "tools/vplan/tmem_placement.hpp"

#include <doctest/doctest.h>

#include <utility>
#include <vector>

using namespace vtools::vplan;

namespace {

std::vector<std::pair<std::int64_t, int>> placed(const std::vector<TmemItem>& items) {
  std::vector<std::pair<std::int64_t, int>> out;
  for (const TmemOffset& o : place_tmem_triton(items)) out.emplace_back(o.col, o.row);
  return out;
}

TmemItem item(std::int64_t cols, int start, int end, int rows = 128) {
  TmemItem it;
  it.rows = rows;
  it.cols = cols;
  it.start = start;
  it.end = end;
  return it;
}

}  // namespace

TEST_CASE("tmem_placement: program order, not size order, lowest free column first") {
  // attn_ws_d128_sm100: acc (128 cols), qk (2 x 128), acc f16 packed (64), all live at once -> 0, 128, 384.
  CHECK(placed({item(128, 0, 100), item(256, 10, 90), item(64, 11, 90)}) ==
        std::vector<std::pair<std::int64_t, int>>{{0, 0}, {128, 0}, {384, 0}});
}

TEST_CASE("tmem_placement: an interval that ended at or before a start frees its columns") {
  CHECK(placed({item(128, 0, 5), item(128, 5, 9)}) == std::vector<std::pair<std::int64_t, int>>{{0, 0}, {0, 0}});
  CHECK(placed({item(128, 0, 6), item(128, 5, 9)}) == std::vector<std::pair<std::int64_t, int>>{{0, 0}, {128, 0}});
  // Freed for good: a later item may take the columns of one that ended before an earlier start.
  CHECK(placed({item(32, 0, 2), item(32, 3, 9), item(32, 4, 9)}) ==
        std::vector<std::pair<std::int64_t, int>>{{0, 0}, {0, 0}, {32, 0}});
}

TEST_CASE("tmem_placement: columns are aligned to 4") {
  CHECK(placed({item(3, 0, 9), item(8, 1, 9), item(1, 2, 9)}) ==
        std::vector<std::pair<std::int64_t, int>>{{0, 0}, {4, 0}, {12, 0}});
  // The free columns from 6 on start unaligned: the item goes to 8.
  CHECK(placed({item(6, 0, 9), item(4, 1, 3), item(4, 4, 9)}) ==
        std::vector<std::pair<std::int64_t, int>>{{0, 0}, {8, 0}, {8, 0}});
}

TEST_CASE("tmem_placement: other regions of one warp_specialize are taken whatever their intervals") {
  TmemItem x = item(128, 0, 3), y = item(128, 5, 8);
  x.ws = y.ws = 20;
  x.region = 1;
  y.region = 2;
  CHECK(placed({x, y}) == std::vector<std::pair<std::int64_t, int>>{{0, 0}, {128, 0}});
  y.region = 1;  // one region runs in program order: the columns are free again
  CHECK(placed({x, y}) == std::vector<std::pair<std::int64_t, int>>{{0, 0}, {0, 0}});
  y.ws = 30;  // another warp_specialize: the first one has ended
  y.region = 2;
  CHECK(placed({x, y}) == std::vector<std::pair<std::int64_t, int>>{{0, 0}, {0, 0}});
}

TEST_CASE("tmem_placement: 64-row items take one half of the lanes, the second half at row offset 16") {
  CHECK(placed({item(64, 0, 9, 64), item(64, 1, 9, 64), item(64, 2, 9, 128), item(32, 3, 9, 64)}) ==
        std::vector<std::pair<std::int64_t, int>>{{0, 0}, {0, 16}, {64, 0}, {128, 0}});
  // An earlier column in the second half beats a later one in the first.
  CHECK(placed({item(128, 0, 9, 64), item(32, 1, 9, 64)}) ==
        std::vector<std::pair<std::int64_t, int>>{{0, 0}, {0, 16}});
}

TEST_CASE("tmem_placement: a row group keeps the lanes its first member took") {
  TmemItem a = item(64, 0, 9, 64), acc = item(64, 1, 9, 64), lhs = item(32, 2, 9, 64);
  acc.row_group = lhs.row_group = 1;
  // acc lands in the second half (a holds the first); lhs follows it there although column 64 of the first half
  // would do.
  CHECK(placed({a, acc, lhs}) == std::vector<std::pair<std::int64_t, int>>{{0, 0}, {0, 16}, {64, 16}});
}

TEST_CASE("tmem_placement: an item of no columns fits at 0") {
  CHECK(placed({item(512, 0, 9), item(0, 1, 9)}) == std::vector<std::pair<std::int64_t, int>>{{0, 0}, {0, 0}});
}

TEST_CASE("tmem_placement: the module's size is rounded to 32, 64, 128, 256 or 512 columns") {
  CHECK(tmem_module_cols(0) == 0);
  CHECK(tmem_module_cols(1) == 32);
  CHECK(tmem_module_cols(32) == 32);
  CHECK(tmem_module_cols(33) == 64);
  CHECK(tmem_module_cols(448) == 512);
  CHECK(tmem_module_cols(513) == 513);  // over the hardware's 512: left as it is, Triton reports it
}
