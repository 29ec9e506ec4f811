// exposed_times: what each span adds to the union of its lane's spans.
#include <doctest/doctest.h>

#include <numeric>
#include <random>
#include <vector>

#include "libcommon/timeline.hpp"

using vtools::exposed_times;
using vtools::TimeSpan;

TEST_CASE("exposed_times: a programmatic chain, a nested span, a gap, and a second lane") {
  // Given out of order: the result follows the input's order, not the time order.
  const std::vector<TimeSpan> spans = {
      {0, 180, 250},   // starts while the one before runs: adds 250 - 200
      {0, 0, 100},     // first: all of it
      {0, 40, 200},    // waits for the first: adds 200 - 100
      {0, 50, 80},     // inside the first: nothing
      {0, 1000, 1100}, // after idle time: all of it, the gap not counted
      {1, 0, 500},     // another device at the same time: its own
  };
  const std::vector<double> e = exposed_times(spans);
  REQUIRE(e.size() == spans.size());
  CHECK(e[0] == 50);
  CHECK(e[1] == 100);
  CHECK(e[2] == 100);
  CHECK(e[3] == 0);
  CHECK(e[4] == 100);
  CHECK(e[5] == 500);
  CHECK(exposed_times({}).empty());
  CHECK(exposed_times({{7, 5, 5}}) == std::vector<double>{0});      // empty span
  CHECK(exposed_times({{0, 10, 20}, {0, 10, 30}}) == std::vector<double>{10, 10});  // same start: shorter first
}

TEST_CASE("exposed_times: on random spans they sum to the union's length, each within its own duration") {
  std::mt19937 rng(12345);
  for (int round = 0; round < 200; ++round) {
    std::vector<TimeSpan> spans;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t start = rng() % 1000, length = rng() % 200;
      spans.push_back({static_cast<std::int64_t>(rng() % 3), start, start + length});
    }
    const std::vector<double> e = exposed_times(spans);
    // The union per lane, on a 1 ns grid (integer times).
    double covered = 0;
    for (std::int64_t lane = 0; lane < 3; ++lane) {
      for (std::uint64_t t = 0; t < 1200; ++t) {
        bool on = false;
        for (const TimeSpan& s : spans) on = on || (s.lane == lane && s.start <= t && t < s.end);
        covered += on ? 1 : 0;
      }
    }
    CHECK(std::accumulate(e.begin(), e.end(), 0.0) == covered);
    for (std::size_t i = 0; i < spans.size(); ++i) {
      CHECK(e[i] >= 0);
      CHECK(e[i] <= static_cast<double>(spans[i].end - spans[i].start));
    }
  }
}

TEST_CASE("exposed_times: exact past 2^53 ns, where doubles lose nanoseconds") {
  const std::uint64_t far = std::uint64_t{1} << 63;
  const std::vector<double> e = exposed_times({{0, 0, 100}, {0, far, far + 100}, {0, far + 50, far + 101}});
  CHECK(e == std::vector<double>{100, 100, 1});
}
