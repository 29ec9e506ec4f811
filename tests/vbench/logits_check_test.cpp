#include "tools/vbench/logits_check.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace vtools::vbench;

TEST_CASE("logits_check: errors and top-1 agreement against hand-computed values") {
  // Two rows of V = 3. Row 0 agrees on the argmax, row 1 does not.
  const std::vector<double> ref{1, 2, 3, 4, 0, 0};
  const std::vector<float> got{1, 2, 3.5f, 3, 3.5f, 0};
  const Correctness c = compare_logits(got, ref, 3, 0.5);
  CHECK(c.max_abs_err == doctest::Approx(3.5));
  // diff² = 0.25 + 1 + 12.25 = 13.5; ref² = 1 + 4 + 9 + 16 = 30
  CHECK(c.rel_err == doctest::Approx(std::sqrt(13.5 / 30)));
  CHECK(c.top1_agreement == doctest::Approx(0.5));
  CHECK(c.compared_rows == 2);
  CHECK_FALSE(c.passed);
  CHECK(compare_logits(got, ref, 3, 0.7).passed);
}

TEST_CASE("logits_check: NaN fails whatever the tolerance; tolerances grow with lower precision") {
  const std::vector<double> ref{1, 2};
  const std::vector<float> got{1, NAN};
  const Correctness c = compare_logits(got, ref, 2, 1e9);
  CHECK_FALSE(c.passed);
  CHECK(std::isinf(c.rel_err));
  CHECK(tolerance_for(DType::kFp32) < tolerance_for(DType::kTf32));
  CHECK(tolerance_for(DType::kTf32) < tolerance_for(DType::kBf16));
  CHECK(tolerance_for(DType::kFp32) == 1e-4);
}
