#include "human_units.hpp"

#include <cmath>
#include <cstdio>

namespace vtools {

static std::string three_digits(double v, const char* unit) {
  char buf[64];
  const char* fmt = v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s";
  std::snprintf(buf, sizeof buf, fmt, v, unit);
  return buf;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string format_duration_ns(double ns) {
  if (std::isnan(ns)) return "nan";
  double a = std::fabs(ns);
  if (a < 1e3) return three_digits(ns, "ns");
  if (a < 1e6) return three_digits(ns / 1e3, "us");
  if (a < 1e9) return three_digits(ns / 1e6, "ms");
  return three_digits(ns / 1e9, "s");
}

std::string format_std_duration_ns(double std_ns, std::uint64_t samples) {
  return samples > 1 ? format_duration_ns(std_ns) : "-";
}

std::string format_duration_ms(double ms) { return format_duration_ns(ms * 1e6); }

std::string format_address(std::uint64_t address) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
  return buf;
}

std::string format_count(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  int k = static_cast<int>(digits.size());
  for (int i = 0; i < k; ++i) {
    out += digits[i];
    if ((k - i - 1) % 3 == 0 && i != k - 1) out += ',';
  }
  return out;
}

std::string format_si(double value) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int p = 0;
  double v = value;
  while (std::fabs(v) >= 1000.0 && p < 5) {
    v /= 1000.0;
    ++p;
  }
  std::string s = three_digits(v, prefixes[p]);
  if (s.back() == ' ') s.pop_back();
  return s;
}

// Whether v converts to std::uint64_t without undefined behaviour: [0, 2^64), NaN excluded.
static bool fits_u64(double v) { return v >= 0.0 && v < 18446744073709551616.0; }

static std::string general(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string format_bytes_of(double v) {
  return fits_u64(v) ? format_bytes(static_cast<std::uint64_t>(v)) : general(v) + " B";
}

std::string format_count_of(double v) { return fits_u64(v) ? format_count(static_cast<std::uint64_t>(v)) : general(v); }

std::string format_address_of(double v) {
  return fits_u64(v) ? format_address(static_cast<std::uint64_t>(v)) : general(v);
}

}  // namespace vtools
