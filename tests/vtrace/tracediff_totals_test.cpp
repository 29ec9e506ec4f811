// formats/tracediff totals rows: the six totals that vtrace diff's table and vrender's page both list, in order,
// with their units, both sides' values and the change.
#include "formats/tracediff/tracediff_totals.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace vtools::vtrace;

TEST_CASE("tracediff_totals: the six totals in order, each with its unit, both sides and the change") {
  TraceDiff d;
  d.base = {.launches = 18, .kernels = 4, .gpu_time_ns = 300e3, .busy_ns = 250e3, .copies = 1, .copy_ns = 1e3};
  d.candidate = {.launches = 20, .kernels = 5, .gpu_time_ns = 330e3, .busy_ns = 200e3, .copies = 0, .copy_ns = 0};
  const auto rows = diff_total_rows(d);
  std::vector<std::string> names;
  for (const DiffTotalRow& r : rows) names.emplace_back(r.name);
  CHECK(names == std::vector<std::string>{"busy time", "GPU time", "launches", "kernels", "copies", "copy time"});
  using Unit = DiffTotalRow::Unit;
  CHECK(rows[0].unit == Unit::kNanoseconds);
  CHECK(rows[1].unit == Unit::kNanoseconds);
  CHECK(rows[2].unit == Unit::kCount);
  CHECK(rows[3].unit == Unit::kCount);
  CHECK(rows[4].unit == Unit::kCount);
  CHECK(rows[5].unit == Unit::kNanoseconds);
  CHECK(rows[0].base == 250e3);
  CHECK(rows[0].candidate == 200e3);
  CHECK(rows[0].change() == doctest::Approx(-20.0));
  CHECK(rows[1].change() == doctest::Approx(10.0));
  CHECK(rows[2].base == 18);
  CHECK(rows[2].candidate == 20);
  CHECK(rows[3].change() == doctest::Approx(25.0));
  CHECK(rows[4].change() == doctest::Approx(-100.0));
  CHECK(rows[5].change() == doctest::Approx(-100.0));
  d.base.copies = 0;  // a total that was 0 has no change (NaN: the views print "-")
  CHECK(std::isnan(diff_total_rows(d)[4].change()));
}

TEST_CASE("tracediff_totals: counts keep their exact value beside the double (near 2^64 a double cannot be cast back)") {
  TraceDiff d;
  d.base.launches = UINT64_MAX;
  d.candidate.launches = (1ull << 53) + 1;  // not exact as a double
  const auto rows = diff_total_rows(d);
  CHECK(rows[2].base_count == UINT64_MAX);
  CHECK(rows[2].candidate_count == (1ull << 53) + 1);
}
