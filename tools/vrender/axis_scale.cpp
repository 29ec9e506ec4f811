#include "tools/vrender/axis_scale.hpp"

#include <algorithm>
#include <cmath>

#include "libcommon/human_units.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

Ticks ticks_with_step(double lo, double hi, double step) {
  Ticks t;
  t.step = step;
  t.lo = std::floor(lo / step + 1e-9) * step;
  t.hi = std::ceil(hi / step - 1e-9) * step;
  if (t.hi <= t.lo) t.hi = t.lo + step;
  // Ticks are counted, not accumulated: near the largest double the rounded-out end is infinite (or the span is),
  // and `v += step` would never pass it. Such spans get three ticks: both ends and the middle.
  const double count = std::floor((t.hi - t.lo) / step + 1e-6);
  if (!(count >= 0 && count <= 1000)) {
    t.step = hi / 2 - lo / 2;
    t.lo = lo;
    t.hi = hi;
    t.values = {lo, lo + t.step, hi};
    return t;
  }
  for (int i = 0; i <= static_cast<int>(count); ++i) {
    const double v = t.lo + i * step;
    t.values.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  }
  return t;
}

void widen_degenerate(double& lo, double& hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (lo > hi) std::swap(lo, hi);
  if (hi == lo) {
    double pad = lo == 0 ? 1 : std::abs(lo) * 0.5;
    lo -= lo == 0 ? 0 : pad;
    hi += pad;
  }
}

}  // namespace

Ticks nice_ticks(double lo, double hi, int target) {
  widen_degenerate(lo, hi);
  double raw = (hi - lo) / std::max(target, 1);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag * 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  return ticks_with_step(lo, hi, step);
}

Ticks binary_ticks(double lo, double hi, int target) {
  widen_degenerate(lo, hi);
  double raw = (hi - lo) / std::max(target, 1);
  if (raw < 8) return nice_ticks(lo, hi, target);
  double step = std::exp2(std::ceil(std::log2(raw)));
  return ticks_with_step(lo, hi, step);
}

Ticks log_ticks(double lo, double hi) {
  if (!(hi > 0)) hi = 1;
  if (!(lo > 0)) lo = hi / 1000;
  Ticks t;
  t.step = 10;
  int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (b <= a) b = a + 1;
  t.lo = std::pow(10.0, a);
  t.hi = std::pow(10.0, b);
  for (int k = a; k <= b; ++k) t.values.push_back(std::pow(10.0, k));
  return t;
}

Ticks listed_ticks(const std::vector<double>& values, bool log, double lo, double hi) {
  Ticks t;
  bool whole = true;
  for (double v : values) {
    if (!std::isfinite(v) || (log && v <= 0)) continue;
    t.values.push_back(v);
    whole = whole && v == std::round(v);
  }
  if (t.values.empty()) return log ? log_ticks(lo, hi) : nice_ticks(lo, hi);
  std::sort(t.values.begin(), t.values.end());
  t.values.erase(std::unique(t.values.begin(), t.values.end()), t.values.end());
  if (!(log ? lo > 0 : std::isfinite(lo))) lo = t.values.front();
  if (!(log ? hi > 0 : std::isfinite(hi))) hi = t.values.back();
  lo = std::min(lo, t.values.front()), hi = std::max(hi, t.values.back());
  // 6% of the span on each side, so the end points sit off the plot's edge.
  if (log) {
    const double f = hi > lo ? std::pow(hi / lo, 0.06) : 2;
    t.lo = lo / f, t.hi = hi * f;
  } else {
    const double pad = hi > lo ? (hi - lo) * 0.06 : std::max(std::abs(lo) * 0.5, 1.0);
    t.lo = lo - pad, t.hi = hi + pad;
  }
  t.step = whole ? 1 : 0.01;  // decimals of the labels
  return t;
}

Ticks ticks_for(const Axis& axis, double lo, double hi, int target) {
  if (!axis.ticks.empty()) return listed_ticks(axis.ticks, axis.log, lo, hi);
  if (axis.log) return log_ticks(lo, hi);
  if (axis.unit == "B") return binary_ticks(lo, hi, target);
  return nice_ticks(lo, hi, target);
}

double Scale::operator()(double v) const {
  double a = d0, b = d1, x = v;
  if (log) {
    a = std::log10(std::max(d0, 1e-300));
    b = std::log10(std::max(d1, 1e-300));
    x = std::log10(std::max(v, d0));
  }
  if (b == a) return r0;
  return r0 + (x - a) / (b - a) * (r1 - r0);
}

std::string format_tick(double v, double step, std::string_view unit) {
  if (unit == "B") return format_bytes_of(std::max(v, 0.0));
  double a = std::abs(v);
  static constexpr struct {
    double scale;
    const char* suffix;
  } kSi[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  std::string suffix;
  double scaled = v, scaled_step = step;
  if (step != 10 || a < 1e4) {
    for (const auto& si : kSi) {
      if (a >= 1e4 && a >= si.scale) {
        scaled = v / si.scale;
        scaled_step = step / si.scale;
        suffix = si.suffix;
        break;
      }
    }
  } else {
    for (const auto& si : kSi) {
      if (a >= si.scale) {
        scaled = v / si.scale;
        scaled_step = 1;
        suffix = si.suffix;
        break;
      }
    }
  }
  int decimals = 0;
  if (scaled_step > 0 && scaled_step < 1) decimals = static_cast<int>(std::ceil(-std::log10(scaled_step) - 1e-9));
  if (scaled_step > 0 && std::abs(scaled_step * std::pow(10.0, decimals) - std::round(scaled_step * std::pow(10.0, decimals))) > 1e-6)
    ++decimals;  // steps like 2.5 need one more digit
  if (step == 10 && a < 1 && a > 0) decimals = static_cast<int>(std::ceil(-std::log10(a) - 1e-9));
  return num(scaled, std::min(decimals, 9)) + suffix + (unit == "%" ? "%" : "");
}

std::string axis_title(const Axis& axis) {
  if (axis.unit.empty() || axis.unit == "%") return axis.label;
  return axis.label + " (" + axis.unit + ")";
}

}  // namespace vtools::vrender
