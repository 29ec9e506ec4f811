// Parallel tasks: every index once, the first exception rethrown; a resize whose new pages are touched on several
// threads gives what a plain resize gives.
#include "libcommon/parallel_tasks.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

using vtools::for_each_task;
using vtools::resize_touched_in_parallel;

TEST_CASE("for_each_task: every index exactly once; an exception reaches the caller") {
  std::vector<std::atomic<int>> seen(1000);
  for_each_task(seen.size(), [&](std::size_t i) { ++seen[i]; });
  for (const auto& s : seen) CHECK(s.load() == 1);
  CHECK_THROWS_AS(for_each_task(100, [](std::size_t i) {
                    if (i == 37) throw std::runtime_error("task 37");
                  }),
                  std::runtime_error);
}

TEST_CASE("resize_touched_in_parallel: as resize, small and large, keeping what was there") {
  struct Row {
    std::string name;
    std::vector<int> ranges;
    double mean = 0;
    std::uint64_t count = 0;
  };
  std::vector<Row> small;
  resize_touched_in_parallel(small, 3);  // below the threshold: a plain resize
  CHECK(small.size() == 3);
  std::vector<Row> rows(2);
  rows[0].name = "kept";
  rows[1].ranges = {1, 2};
  const std::size_t n = (std::size_t{80} << 20) / sizeof(Row);  // 80 MiB of growth: touched on threads first
  resize_touched_in_parallel(rows, n);
  REQUIRE(rows.size() == n);
  CHECK(rows[0].name == "kept");
  CHECK(rows[1].ranges == std::vector<int>{1, 2});
  std::size_t nonzero = 0;
  for (std::size_t i = 2; i < n; i += 997)
    nonzero += !rows[i].name.empty() || !rows[i].ranges.empty() || rows[i].mean != 0 || rows[i].count != 0;
  CHECK(nonzero == 0);
  resize_touched_in_parallel(rows, 5);  // shrinking: as resize
  CHECK(rows.size() == 5);
}
