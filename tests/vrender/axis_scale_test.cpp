#include "tools/vrender/axis_scale.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <utility>

using namespace vtools::vrender;

TEST_CASE("axis_scale: nice ticks use 1-2-5 steps and cover the range") {
  Ticks t = nice_ticks(0, 9.3, 5);
  CHECK(t.step == doctest::Approx(2));
  CHECK(t.values == std::vector<double>{0, 2, 4, 6, 8, 10});
  Ticks u = nice_ticks(0.21, 4.8, 5);
  CHECK(u.lo <= 0.21);
  CHECK(u.hi >= 4.8);
  CHECK(u.step == doctest::Approx(1));
  Ticks flat = nice_ticks(3, 3, 5);  // degenerate range still gets ticks around the value
  CHECK(flat.lo <= 3);
  CHECK(flat.hi > 3);
}

TEST_CASE("axis_scale: byte axes tick at powers of two") {
  Ticks t = binary_ticks(0, 232448, 5);
  CHECK(t.step == doctest::Approx(65536));
  CHECK(t.values.back() == doctest::Approx(262144));
  CHECK(format_tick(65536, t.step, "B") == "64.0 KiB");
}

TEST_CASE("axis_scale: log axes tick at decades") {
  Ticks t = log_ticks(3, 768);
  CHECK(t.values == std::vector<double>{1, 10, 100, 1000});
  Scale s{1, 1000, 0, 300, true};
  CHECK(s(10) == doctest::Approx(100));
  CHECK(s(0) == doctest::Approx(0));  // non-positive values clamp to the lowest decade
}

TEST_CASE("axis_scale: tick labels carry SI suffixes, decimals from the step and percent") {
  CHECK(format_tick(1500000, 500000, "") == "1.5M");
  CHECK(format_tick(1000000, 500000, "") == "1M");
  CHECK(format_tick(20000, 10000, "") == "20k");
  CHECK(format_tick(0.25, 0.25, "ms") == "0.25");
  CHECK(format_tick(0.5, 0.1, "") == "0.5");
  CHECK(format_tick(75, 25, "%") == "75%");
  CHECK(axis_title({"latency", "ms"}) == "latency (ms)");
  CHECK(axis_title({"share", "%"}) == "share");
}

TEST_CASE("axis_scale: linear scale maps the data range onto pixels, inverted for y") {
  Scale y{0, 10, 300, 50};
  CHECK(y(0) == doctest::Approx(300));
  CHECK(y(10) == doctest::Approx(50));
  CHECK(y(5) == doctest::Approx(175));
}

TEST_CASE("axis_scale: listed ticks label each swept value and span them with a margin") {
  // Issue 45, item 20: a sweep's B = 1, 4, 16 sat between decade ticks with no label.
  Ticks t = listed_ticks({16, 1, 4, 4}, true, 1, 16);
  CHECK(t.values == std::vector<double>{1, 4, 16});
  CHECK(t.lo < 1);
  CHECK(t.lo > 0.5);  // not widened to a whole decade
  CHECK(t.hi > 16);
  CHECK(t.hi < 32);
  CHECK(format_tick(16, t.step, "") == "16");
  Axis axis{"T", "", true, {16, 32, 64}};
  CHECK(ticks_for(axis, 16, 64).values == std::vector<double>{16, 32, 64});
  Ticks linear = listed_ticks({0.25, 1.5}, false, 0.25, 1.5);
  CHECK(linear.lo < 0.25);
  CHECK(format_tick(0.25, linear.step, "") == "0.25");
}

TEST_CASE("axis_scale: spans out to the largest double get finite ticks, and an end") {
  // 0..DBL_MAX rounded out to a step of 5e307 ends at infinity: stepping towards it never ended (vrender hung).
  const double big = std::numeric_limits<double>::max();
  for (auto [lo, hi] : {std::pair{0.0, big}, std::pair{-big, big}, std::pair{1e300, big}}) {
    for (const Ticks& t : {nice_ticks(lo, hi, 5), binary_ticks(lo, hi, 5)}) {
      REQUIRE(!t.values.empty());
      CHECK(t.values.size() <= 1001);
      for (double v : t.values) CHECK(std::isfinite(v));
      CHECK(std::isfinite(t.step));
      CHECK(t.values.front() <= lo);
      CHECK(t.values.back() >= hi);
    }
  }
}
