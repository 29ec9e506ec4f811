#include "tools/vbench/logits_check.hpp"

#include <algorithm>
#include <cmath>

namespace vtools::vbench {

double tolerance_for(DType dtype) {
  switch (dtype) {
    case DType::kFp32: return 1e-4;
    case DType::kTf32: return 1e-2;
    case DType::kBf16: return 2e-2;
  }
  return 1e-4;
}

Correctness compare_logits(std::span<const float> got, std::span<const double> ref, std::int64_t V, double tolerance) {
  Correctness c;
  c.tolerance = tolerance;
  const std::size_t n = std::min(got.size(), ref.size());
  double diff2 = 0, ref2 = 0;
  bool finite = got.size() == ref.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(got[i]) - ref[i];
    if (!std::isfinite(d)) finite = false;
    c.max_abs_err = std::max(c.max_abs_err, std::fabs(d));
    diff2 += d * d;
    ref2 += ref[i] * ref[i];
  }
  c.rel_err = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  const std::int64_t rows = V > 0 ? static_cast<std::int64_t>(n) / V : 0;
  std::int64_t agree = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto g0 = got.begin() + r * V;
    const auto r0 = ref.begin() + r * V;
    agree += std::max_element(g0, g0 + V) - g0 == std::max_element(r0, r0 + V) - r0;
  }
  c.compared_rows = rows;
  c.top1_agreement = rows > 0 ? static_cast<double>(agree) / static_cast<double>(rows) : 0;
  c.passed = finite && std::isfinite(c.rel_err) && c.rel_err <= tolerance;
  if (!finite) c.max_abs_err = c.rel_err = INFINITY;
  return c;
}

}  // namespace vtools::vbench
